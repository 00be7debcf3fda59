"""The progress barrier a node passes before each step of its operation after START
(Cassandra's tcm/sequences/ProgressBarrier).

For each range the operation locked, the replicas of the current read and write groups that
match it (`Metadata.barrier_groups`), minus the replaced or removed node, must have seen the
epoch of the previous step: a peer counts when its answer to a watermark request (Cassandra's
TCM_CURRENT_EPOCH_REQ) carries an epoch at least that one. How many must count is a consistency
level over those replicas: EACH_QUORUM (a quorum of each DC's replicas of each range) first,
then, each time `barrier_timeout` passes without success, the next of the fallback chain
EACH_QUORUM -> QUORUM -> LOCAL_QUORUM -> ONE -> NODE_LOCAL, never below the configured minimum
(`barrier_min_consistency`, default EACH_QUORUM: no relaxation; at the minimum it keeps
asking; fix `barrier-no-relaxation`: never). Unanswered peers are asked again every
`barrier_retry`; a down node never answers, so it never counts. No barrier precedes START (`ProgressBarrier.immediate`) or a cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.messages import WatermarkRequest, WatermarkResponse
from observed.protocol import BarrierPass
from spec import fixes
from spec.tokens import Range

if TYPE_CHECKING:
    from impl.node.host import Host

CHAIN = ("EACH_QUORUM", "QUORUM", "LOCAL_QUORUM", "ONE", "NODE_LOCAL")


def relax(level: str, minimum: str) -> str | None:
    """The next level of the fallback chain, or None at (or below) the minimum."""
    i = CHAIN.index(level)
    if level == minimum or i + 1 >= len(CHAIN) or CHAIN.index(minimum) <= i:
        return None
    return CHAIN[i + 1]


def satisfied(level: str, groups: list[frozenset[str]], responded: set[str],
              dc_of: Callable[[str], str], local_dc: str) -> bool:
    for group in groups:
        if level == "NODE_LOCAL" or not group:
            continue
        if level == "ONE":
            if not group & responded:
                return False
            continue
        if level == "QUORUM":
            if len(group & responded) < len(group) // 2 + 1:
                return False
            continue
        by_dc: dict[str, list[str]] = {}
        for r in group:
            by_dc.setdefault(dc_of(r), []).append(r)
        dcs = [local_dc] if level == "LOCAL_QUORUM" else sorted(by_dc)
        for dc in dcs:
            members = by_dc.get(dc, [])
            if members and sum(1 for r in members if r in responded) < len(members) // 2 + 1:
                return False
    return True


def _added_replicas(meta: Any, sequence_node: str, ks_name: str, rng: Range) -> frozenset[str]:
    """Mutant `barrier-new-replicas-only`: the replicas the operation adds to `rng` (its
    transitions' after - before), which is whom a barrier built from the operation's placement
    deltas instead of the range's current replicas (ProgressBarrier.await matches the range in
    `metadata.placements`) would ask. A range no one is added to (a join's split neighbour)
    asks no one; for a join every step then waits for the joining node alone."""
    seq = meta.sequences[sequence_node]
    out: set[str] = set()
    for e in seq.transitions.get(meta.keyspaces[ks_name].replication.key, ()):
        if Range(e.left, e.right).intersects(rng):
            out |= e.after - e.before
    return frozenset(out)


class ProgressBarrier:
    def __init__(self, node: Host, *, wait_for: int, sequence_node: str, excluded: str | None,
                 on_pass: Callable[[str], None]) -> None:
        self._node = node
        self.wait_for = wait_for
        self._sequence_node = sequence_node
        self._excluded = excluded
        self._on_pass = on_pass
        self.level = node.settings.barrier_consistency
        if bugs.on(node.settings, "barrier-at-one"):
            self.level = "ONE"
        self._level_since = 0
        self._responded: set[str] = set()
        self._request_id = 0
        self._timer: object = None
        self.done = False
        self._groups_of: object = None
        self._cached: list[frozenset[str]] = []

    def _groups(self) -> list[frozenset[str]]:
        meta = self._node.log.metadata
        if self._groups_of is meta:  # the same metadata: the same groups (asked per answer)
            return self._cached
        out = []
        for ks_name, rng, reads, writes in meta.barrier_groups(self._sequence_node):
            group = frozenset(reads) | frozenset(writes)
            if bugs.on(self._node.settings, "barrier-new-replicas-only"):
                group = _added_replicas(meta, self._sequence_node, ks_name, rng)
            if self._excluded is not None:
                group = group - {self._excluded}
            out.append(group)
        self._groups_of, self._cached = meta, out
        return out

    def _dc_of(self, n: str) -> str:
        meta = self._node.log.metadata
        return meta.node_location(n)[0] if n in meta.directory else ""

    def start(self) -> None:
        node = self._node
        self._level_since = node.world.queue.clock.now
        node.trace.event("barrier", node.id, "-", f"wait e{self.wait_for} {self.level}")
        self._round()

    def _round(self) -> None:
        if self.done:
            return
        node = self._node
        if node.log.applied >= self.wait_for:
            self._responded.add(node.id)
        groups = self._groups()
        if self._check(groups):
            return
        now = node.world.queue.clock.now
        if now - self._level_since >= node.settings.barrier_timeout_ns \
                and not fixes.on(node.settings.fixes, fixes.BARRIER_NO_RELAXATION):
            nxt = relax(self.level, node.settings.barrier_min_consistency)
            if nxt is not None:
                node.counters["barrier_relaxations"] += 1
                node.trace.event("barrier", node.id, "-", f"relax {self.level} -> {nxt}")
                self.level = nxt
                self._level_since = now
                if self._check(groups):
                    return
        self._request_id = node.next_request_id()
        msg = WatermarkRequest(sender=node.id, epoch=node.log.applied, request_id=self._request_id)
        for peer in sorted(set().union(*groups) - self._responded) if groups else ():
            node.send(peer, msg)
        self._timer = node.timer(node.settings.barrier_retry_ns, self._round)

    def _check(self, groups: list[frozenset[str]]) -> bool:
        node = self._node
        # LOCAL_QUORUM's DC: where the node the sequence is about is (the `location` every
        # sequence's barrier() passes: the joining, leaving, moving or replacing node)
        local = self._dc_of(self._sequence_node)
        if satisfied(self.level, groups, self._responded, self._dc_of, local):
            self.done = True
            node.cancel(self._timer)
            node.trace.event("barrier", node.id, "-", f"passed e{self.wait_for} {self.level}")
            node.world.protocol.emit(BarrierPass, driver=node.id, seq_node=self._sequence_node,
                                     wait_for=self.wait_for, level=self.level,
                                     responded=tuple(sorted(self._responded)))
            self._on_pass(self.level)
            return True
        return False

    def on_watermark(self, msg: WatermarkResponse) -> None:
        behind = 1 if bugs.on(self._node.settings, "barrier-accepts-one-behind") else 0
        if self.done or msg.epoch < self.wait_for - behind:
            return
        self._responded.add(msg.sender)
        self._check(self._groups())

    def cancel(self) -> None:
        self.done = True
        self._node.cancel(self._timer)
