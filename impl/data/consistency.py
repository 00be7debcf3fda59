"""How many replica responses a consistency level needs (Cassandra's db/ConsistencyLevel).

`block_for(cl, replication, local_dc, pending_dcs)`: for reads `pending_dcs` is empty; for writes
it lists the DC of every pending replica, each adding one response (`blockForWrite`: LOCAL_*
count only the local DC's pending replicas and responses, under any strategy; EACH_QUORUM adds
each DC's pending replicas to that DC's quorum; every other level, ALL included, adds them all). The replication is read from the
coordinator's own metadata — never from a group's current size, which changes during operations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from attrs import frozen

from impl import bugs

LEVELS = ("ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_ONE", "LOCAL_QUORUM", "EACH_QUORUM")
LOCAL_LEVELS = ("LOCAL_ONE", "LOCAL_QUORUM")
SIMPLE = "SimpleStrategy"


@frozen(kw_only=True)
class Requirement:
    """`total` responses from replicas (of `local_dc` only, when set), or `per_dc` counts."""

    total: int = 0
    local_dc: str | None = None
    per_dc: tuple[tuple[str, int], ...] = ()

    def satisfied(self, responders: Iterable[str], dc_of: Callable[[str], str]) -> bool:
        if self.per_dc:
            got: dict[str, int] = {}
            for r in responders:
                d = dc_of(r)
                got[d] = got.get(d, 0) + 1
            return all(got.get(dc, 0) >= n for dc, n in self.per_dc)
        if self.local_dc is not None:
            return sum(1 for r in responders if dc_of(r) == self.local_dc) >= self.total
        return sum(1 for _ in responders) >= self.total


def _quorum(rf: int) -> int:
    return rf // 2 + 1


def block_for(cl: str, strategy: str, factors: Sequence[tuple[str, int]], local_dc: str,
              pending_dcs: Sequence[str] = (), *, mutants: frozenset[str] = frozenset()) -> Requirement:
    """Cassandra's `blockFor` / `blockForWrite` (pending replicas given by their DCs). `mutants`:
    the run's known-bug switches (impl/bugs.py) that act here."""
    if bugs.on(mutants, "each-quorum-pending-local-dc-only") and cl == "EACH_QUORUM":
        pending_dcs = [d for d in pending_dcs if d == local_dc]
    if bugs.on(mutants, "local-quorum-ignores-pending") and cl in LOCAL_LEVELS:
        pending_dcs = []
    rf_by_dc = dict(factors)
    total_rf = sum(rf_by_dc.values())
    nts = strategy != SIMPLE
    local_rf = rf_by_dc.get(local_dc, 0) if nts else total_rf  # localQuorumFor: RF without NTS
    pending = len(pending_dcs)
    # LOCAL_* count the local DC's pending replicas and responses whatever the strategy
    # (blockForWrite: `pending.count(InOurDc.replicas())`; DatacenterWriteResponseHandler)
    local_pending = sum(1 for d in pending_dcs if d == local_dc)
    if cl == "EACH_QUORUM" and nts:
        per_dc = tuple((dc, _quorum(rf) + sum(1 for d in pending_dcs if d == dc))
                       for dc, rf in sorted(rf_by_dc.items()) if rf > 0)
        return Requirement(per_dc=per_dc)
    if cl in LOCAL_LEVELS:
        base = 1 if cl == "LOCAL_ONE" else _quorum(local_rf)
        return Requirement(total=base + local_pending, local_dc=local_dc)
    base = {"ONE": 1, "TWO": 2, "THREE": 3, "QUORUM": _quorum(total_rf), "ALL": total_rf,
            "EACH_QUORUM": _quorum(total_rf)}[cl]  # EACH_QUORUM without NTS: QUORUM (Cassandra)
    return Requirement(total=base + pending)
