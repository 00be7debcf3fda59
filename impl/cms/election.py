"""Initializing the CMS in a gossip-era cluster (Cassandra's `Election`).

The initiator sends its view of the cluster metadata (a digest) to every peer not ignored and
waits for all of them: a peer whose view differs makes the election fail with
"Got mismatching cluster metadatas. Check logs on peers ([...])", a peer that does not answer
before the timeout with "Did not get response from ...". When everyone agrees, the initiator
executes INITIALIZE_CMS on its metadata — the five gates (joined initiator, ignored nodes
real, everyone upgraded, nothing in progress, CMS not yet initialized) live there — and, if
accepted, commits it as the first epoch, with itself as the one CMS member, and pushes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from impl.engine import rejection_reason
from impl.entry import Entry, canonical_json
from impl.messages import ElectionAck, ElectionPrepare

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
        self._process = node.history.new_process()
        node.history.record(self._process, "invoke", self._value(), node.id)
        digest = node.log.metadata.digest()
        for peer in self._peers:
            node.send(peer, ElectionPrepare(sender=node.id, epoch=node.log.applied,
                                            digest=digest))
        node.timer(node.settings.election_timeout_ns, self._decide)

    def _value(self, **extra: object) -> str:
        import json

        return canonical_json({"transformation": json.loads(self._transformation),
                               "entry_id": f"{self._node.id}:election", **extra})

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
        if mismatched:
            self._fail(f"Got mismatching cluster metadatas. Check logs on peers "
                       f"([{', '.join(mismatched)}])")
            return
        if missing:
            self._fail(f"Did not get response from {', '.join(missing)}")
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
        node.history.record(self._process, "ok", self._value(epoch=entry.epoch), node.id)
        node.reconfiguration.poll()

    def _fail(self, reason: str) -> None:
        node = self._node
        self.outcome = reason
        node.counters["rejections"] += 1
        node.trace.event("reject", node.id, "-", f"INITIALIZE_CMS {reason}")
        node.history.record(self._process, "fail",
                            self._value(rejection=reason, epoch=node.log.applied), node.id)

    def crash(self) -> None:
        """The initiator crashed before deciding: the outcome is unknown."""
        if self.outcome is None:
            self.outcome = "crashed"
            node = self._node
            node.history.record(self._process, "info", self._value(), node.id)
