"""Initializing the CMS in a gossip-era cluster (Cassandra's `Election`).

The initiator sends its view of the cluster metadata (a digest) to every peer not ignored and
waits for all of them: a peer whose view differs makes the election fail with
"Got mismatching cluster metadatas. Check logs on peers ([...])", a peer that does not answer
before the timeout with "Did not get response from ...". When everyone agrees, the initiator
executes INITIALIZE_CMS on its metadata — the five gates (joined initiator, ignored nodes
real, everyone upgraded, nothing in progress, CMS not yet initialized) live there — and, if
accepted, commits it as the first epoch, with itself as the one CMS member, and pushes it.

`Discovery` is how a new cluster finds its initiator without one being named (Cassandra's
tcm/Discovery.java and Startup's vote): every node sends TCM_DISCOVER_REQ to the seeds and to
every node it has discovered, round after round, for at least the discovery timeout and until
the discovered set has been unchanged for `rounds` consecutive rounds; a node that hears of an
existing CMS stops. Then the lowest id among the node and those it discovered nominates itself
and runs the Election over the discovered peers (the undiscovered ones ignored).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from impl import bugs
from impl.engine import rejection_reason
from impl.entry import Entry, canonical_json
from impl.messages import DiscoverRequest, DiscoverResponse, ElectionAck, ElectionPrepare

if TYPE_CHECKING:
    from impl.node.host import Host


class Election:
    def __init__(self, node: Host, ignore: tuple[str, ...]) -> None:
        self._node = node
        self._ignore = ignore
        self._peers = [n for n in node.world.node_ids if n != node.id and n not in ignore]
        self._acks: dict[str, bool] = {}
        self._transformation = canonical_json(
            {"kind": "INITIALIZE_CMS", "node": node.id, "ignore": sorted(ignore)})
        self._process = -1
        self.outcome: str | None = None

    def start(self) -> None:
        node = self._node
        self._process = node.history.invoke_commit(node=node.id, entry_id=f"{node.id}:election",
                                                   transformation=self._transformation)
        digest = node.log.metadata.digest()
        for peer in self._peers:
            node.send(peer, ElectionPrepare(sender=node.id, epoch=node.log.applied,
                                            digest=digest))
        node.timer(node.settings.election_timeout_ns, self._decide)

    def on_ack(self, msg: ElectionAck) -> None:
        if self.outcome is None:
            self._acks[msg.sender] = msg.matches
            if len(self._acks) == len(self._peers):
                self._decide()

    def _decide(self) -> None:
        if self.outcome is not None:
            return
        node = self._node
        mismatched = sorted(p for p, ok in self._acks.items() if not ok)
        missing = sorted(p for p in self._peers if p not in self._acks)
        # Election.initiate throws on these before anything is committed: the metadata (and
        # its gates) never sees the INITIALIZE_CMS, so this is an abort, not a rejection
        if mismatched:
            self._fail(f"Got mismatching cluster metadatas. Check logs on peers "
                       f"([{', '.join(mismatched)}])", aborted=True)
            return
        if missing:
            self._fail(f"Did not get response from {', '.join(missing)}", aborted=True)
            return
        result = node.executor.validate(node.log.metadata, self._transformation)
        reason = rejection_reason(result)
        if reason is not None:
            self._fail(reason)
            return
        entry = Entry(epoch=node.log.applied + 1, entry_id=f"{node.id}:election",
                      kind="INITIALIZE_CMS", transformation=self._transformation)
        node.trace.event("commit", node.id, "-", entry.brief())
        node.commit_and_push(entry)
        self.outcome = "committed"
        node.history.complete_commit(self._process, "ok", epoch=entry.epoch)
        node.reconfiguration.poll()

    def _fail(self, reason: str, *, aborted: bool = False) -> None:
        node = self._node
        self.outcome = reason
        node.counters["election_aborts" if aborted else "rejections"] += 1
        node.trace.event("reject", node.id, "-", f"INITIALIZE_CMS {reason}")
        node.history.complete_commit(self._process, "fail", rejection=reason, epoch=node.log.applied,
                                     aborted=aborted)

    def crash(self) -> None:
        """The initiator crashed before deciding: the outcome is unknown."""
        if self.outcome is None:
            self.outcome = "crashed"
            node = self._node
            node.history.complete_commit(self._process, "info")


class Discovery:
    """One node's discovery state: what it has discovered (kept whether or not it runs rounds,
    since a request discovers its sender) and its rounds when it runs them."""

    def __init__(self, node: Host, nominate: Callable[[tuple[str, ...]], None]) -> None:
        self._node = node
        self._nominate = nominate  # start an Election ignoring these nodes
        self.discovered: set[str] = set()
        self._running = False
        self._found_cms = False
        self._rounds = 0
        self._seeds: tuple[str, ...] = ()
        self._deadline = 0
        self._round_ns = 0
        self._last_count = 0
        self._unchanged = -1

    def start(self, seeds: tuple[str, ...], rounds: int, timeout_ns: int) -> None:
        node = self._node
        if self._running or node.executor.members(node.log.metadata):
            return  # running already, or the CMS exists: nothing to discover
        self._running = True
        self._seeds, self._rounds = seeds, rounds
        self._round_ns = max(1, timeout_ns // rounds)
        self._deadline = node.world.queue.clock.now + timeout_ns
        self._last_count = len(self.discovered)
        self._unchanged = -1
        node.trace.event("discovery", node.id, "-", "start")
        self._round()

    def _round(self) -> None:
        node = self._node
        if not self._running:
            return
        for peer in sorted((self.discovered | set(self._seeds)) - {node.id}):
            node.send(peer, DiscoverRequest(sender=node.id, epoch=node.log.applied))
        node.timer(self._round_ns, self._end_round)

    def _end_round(self) -> None:
        node = self._node
        if not self._running:
            return
        if self._found_cms:
            self._running = False
            node.trace.event("discovery", node.id, "-", "found the CMS")
            return
        if len(self.discovered) == self._last_count:
            self._unchanged += 1
        else:
            if not bugs.on(node.settings, "discovery-never-resets-unchanged-rounds"):
                self._unchanged = 0  # the fix of CASSANDRA-19153
            self._last_count = len(self.discovered)
        if node.world.queue.clock.now <= self._deadline or self._unchanged < self._rounds:
            self._round()
            return
        self._running = False
        candidates = sorted(self.discovered | {node.id})
        node.trace.event("discovery", node.id, "-", f"done: {','.join(candidates)}")
        if candidates[0] == node.id and not node.executor.members(node.log.metadata):
            self._nominate(tuple(n for n in node.world.node_ids if n not in candidates))

    def on_request(self, msg: DiscoverRequest) -> None:
        node = self._node
        self.discovered.add(msg.sender)
        cms = tuple(node.executor.members(node.log.metadata))
        node.send(msg.sender, DiscoverResponse(sender=node.id, epoch=node.log.applied,
                                               nodes=tuple(sorted(self.discovered)), cms=cms))

    def on_response(self, msg: DiscoverResponse) -> None:
        if not self._running:
            return
        if msg.cms:
            self._found_cms = True
            return
        self.discovered.add(msg.sender)
        self.discovered.update(n for n in msg.nodes if n != self._node.id)
