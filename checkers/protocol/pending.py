"""Reads that returned a value one of their token's pending replicas did not hold, with no read
repair — what finding `monotonic-read-across-movement` is made of (campaign/run/findings.py).

Cassandra (trunk 6bbe85ef) repairs a read only on a digest mismatch
(`AbstractReadExecutor.awaitResponses`: `if (digestResolver.responsesMatch()) setResult(...)`,
and `DigestResolver.responsesMatch` returns true for a single response), and its read plan never
contacts a pending replica. So while a range moves, a QUORUM read can return a write that failed
(it reached the natural replicas, not the pending one: no acknowledgement) without writing it
anywhere; once the movement finishes the former pending replica is a read replica, and a later
QUORUM read served by it (and others that lack the write) goes back in time until a hint or a
repair brings the write there. The read-repair docs promise the opposite ("in 2 successive
quorum reads, it's guaranteed the 2nd one won't get something older than the 1st one").

A read counts when its coordinator resolved a value without starting a read repair, and, in the
coordinator's own metadata at that moment (the plan Cassandra's coordinator would repair over),
the token had a pending replica (in the write group, not in the read group) whose newest stored
cell of that key was older than the value returned (or absent).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict

from checkers.protocol.placements import Placements
from observed.cells import Cell
from observed.protocol import ProtocolTrace


def reads_past_pending(trace: ProtocolTrace, placements: Placements) -> frozenset[tuple[str, int]]:
    """(coordinator, request id) of the reads described in the module doc."""
    plans = {(p.coord, p.rid): p for p in trace.read_plans}
    repaired = {(r.coord, r.rid) for r in trace.read_repairs}
    held = _stored(trace)
    out = set()
    for r in trace.read_resolves:
        plan = plans.get((r.coord, r.rid))
        if r.value is None or plan is None or (r.coord, r.rid) in repaired:
            continue
        groups = placements.groups(r.epoch, plan.keyspace, plan.token)
        if groups is None:
            continue
        reads, writes = groups
        cell: Cell = (r.timestamp, r.value)
        if any(_newest(held.get((p, plan.keyspace, plan.key)), r.t) < cell for p in writes - reads):
            out.add((r.coord, r.rid))
    return frozenset(out)


_NOTHING: Cell = (-(2**63), -(2**63))


def _stored(trace: ProtocolTrace) -> dict[tuple[str, str, str], tuple[list[int], list[Cell]]]:
    """(node, keyspace, key) -> (times, the newest cell held from that time on)."""
    out: dict[tuple[str, str, str], tuple[list[int], list[Cell]]] = defaultdict(lambda: ([], []))
    for s in sorted(trace.stores, key=lambda s: s.t):
        times, cells = out[(s.node, s.keyspace, s.key)]
        best = max(cells[-1], (s.timestamp, s.value)) if cells else (s.timestamp, s.value)
        times.append(s.t)
        cells.append(best)
    return dict(out)


def _newest(history: tuple[list[int], list[Cell]] | None, t: int) -> Cell:
    """The newest cell stored at or before `t` (`_NOTHING` when none)."""
    if history is None:
        return _NOTHING
    times, cells = history
    i = bisect_right(times, t)
    return cells[i - 1] if i else _NOTHING


__all__ = ["reads_past_pending"]
