"""Stale versus lost: what became of each acknowledged client write a read missed, and of every
acknowledged write at the end of a run.

- **Lost**: an acknowledged write of which, at the end, no write replica of its key (up or down:
  a disk outlives a crash) holds it or a newer cell, and no stored hint for a node still in the
  directory carries it — so neither hint replay nor an anti-entropy repair (which syncs the
  key's replicas) can bring it back.
- **Stale**: an acknowledged write a read that began after it missed (the read returned an older
  cell, or nothing), which some replica still held: how it healed afterwards on the key's read
  replicas (the `via` of the stores that brought it there after the read: hint, read_repair,
  repair, stream, mutation), or that it was still stale at the end (some read replica lacks it,
  which hints or a repair would heal).
Pure: from the client writes and reads, the protocol trace, and the end state.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from attrs import frozen

from checkers.protocol.events import Cell, ProtocolTrace, WritePlan

NOTHING: Cell = (-1, -1)


@frozen(kw_only=True)
class LostWrite:
    keyspace: str
    key: str
    value: int
    level: str


@frozen(kw_only=True)
class StaleRead:
    keyspace: str
    key: str
    read_value: int | None
    missed_value: int
    read_at: int
    healed_by: tuple[str, ...]
    """How the missed write (or a newer cell) reached the key's read replicas after the read:
    hint, read_repair, repair or stream, in order (a later client write is no healing)."""
    still_stale: bool
    """Some read replica of the key still lacked it at the end."""


@frozen(kw_only=True)
class DurabilityReport:
    stale: tuple[StaleRead, ...] = ()
    lost: tuple[LostWrite, ...] = ()


def check_durability(trace: ProtocolTrace, acked: Sequence[tuple[str, int, int]],
                     reads: Sequence[tuple[str, int | None, int, int]],
                     final_cells: Iterable[tuple[str, str, tuple[tuple[str, int, int, bool, bool], ...]]],
                     hints_left: Iterable[tuple[str, str, str, str, int, int]],
                     directory: frozenset[str]) -> DurabilityReport:
    """`acked`: (key, value, acknowledged at) of every `ok` client write; `reads`: (key, value
    or None, invoked at, completed at) of every `ok` read; `final_cells`: per key what each write
    replica holds at the end ((replica, ts, value, up, read replica), ts -1: nothing);
    `hints_left`: (holder, target, keyspace, key, ts, value); `directory`: the final directory."""
    plans: dict[int, WritePlan] = {}
    for p in trace.write_plans:
        plans.setdefault(p.value, p)
    finals = {(ks, key): cells for ks, key, cells in final_cells}
    hinted: dict[tuple[str, str], list[Cell]] = {}
    for _, target, ks, key, ts, value in hints_left:
        if target in directory:
            hinted.setdefault((ks, key), []).append((ts, value))
    lost: list[LostWrite] = []
    lost_values: set[int] = set()
    by_key: dict[tuple[str, str], list[tuple[int, Cell]]] = {}
    for key, value, at in acked:
        plan = plans.get(value)
        if plan is None:
            continue
        cell = (plan.timestamp, value)
        by_key.setdefault((plan.keyspace, key), []).append((at, cell))
        cells = finals.get((plan.keyspace, key))
        if cells is None:
            continue
        if any((ts, v) >= cell for _, ts, v, _, _ in cells) or any(
                c >= cell for c in hinted.get((plan.keyspace, key), [])):
            continue
        lost.append(LostWrite(keyspace=plan.keyspace, key=key, value=value, level=plan.cl))
        lost_values.add(value)
    return DurabilityReport(stale=_stale(trace, plans, by_key, reads, finals, lost_values),
                            lost=tuple(lost))


def _stale(trace: ProtocolTrace, plans: dict[int, WritePlan],
           by_key: dict[tuple[str, str], list[tuple[int, Cell]]],
           reads: Sequence[tuple[str, int | None, int, int]],
           finals: dict[tuple[str, str], tuple[tuple[str, int, int, bool, bool], ...]],
           lost_values: set[int]) -> tuple[StaleRead, ...]:
    newest: dict[str, list[tuple[str, list[int], list[Cell]]]] = {}  # key -> (keyspace, times, best)
    for (ks, k), writes in by_key.items():
        writes.sort()
        times: list[int] = []
        best: list[Cell] = []
        for at, cell in writes:
            times.append(at)
            best.append(max(cell, best[-1]) if best else cell)
        newest.setdefault(k, []).append((ks, times, best))
    stores: dict[tuple[str, str], list[tuple[int, str, Cell, str]]] = {}
    for s in trace.stores:
        stores.setdefault((s.keyspace, s.key), []).append((s.t, s.node, (s.timestamp, s.value), s.via))
    out: list[StaleRead] = []
    for key, value, invoked, done in reads:
        for ks, times, best in newest.get(key, []):
            i = bisect_left(times, invoked)
            if not i:
                continue
            missed = best[i - 1]
            got = NOTHING if value is None else (plans[value].timestamp, value) if value in plans else NOTHING
            if got >= missed or missed[1] in lost_values:
                continue
            cells = finals.get((ks, key), ())
            replicas = {r for r, _, _, _, is_read in cells if is_read}
            # a later client write overwrites the missed one; it does not heal it
            healed = tuple(via for t, node, c, via in stores.get((ks, key), [])
                           if t > done and node in replicas and c >= missed and via != "mutation")
            still = any((ts, v) < missed for r, ts, v, _, is_read in cells if is_read)
            out.append(StaleRead(keyspace=ks, key=key, read_value=value, missed_value=missed[1],
                                 read_at=invoked, healed_by=healed, still_stale=still))
    return tuple(out)


__all__ = ["DurabilityReport", "LostWrite", "StaleRead", "check_durability"]
