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

from observed.calls import ClientCall, completed
from observed.cells import NOTHING, Cell, KeyCells, StoredHint
from observed.protocol import ProtocolTrace, WritePlan


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


def check_durability(trace: ProtocolTrace, clients: Sequence[ClientCall], cells: Iterable[KeyCells],
                     hints: Iterable[StoredHint], directory: frozenset[str]) -> DurabilityReport:
    """`clients`: the run's client calls; `cells`: per key what each write replica holds at the
    end; `hints`: the hints still stored; `directory`: the final directory (a hint for a node
    that left carries nothing any more)."""
    plans: dict[int, WritePlan] = {}
    for p in trace.write_plans:
        plans.setdefault(p.value, p)
    finals = {(k.keyspace, k.key): k for k in cells}
    hinted: dict[tuple[str, str], list[Cell]] = {}
    for h in hints:
        if h.target in directory:
            hinted.setdefault((h.keyspace, h.key), []).append(h.cell)
    done = [c for c in completed(clients) if c.outcome == "ok"]
    lost: list[LostWrite] = []
    lost_values: set[int] = set()
    by_key: dict[tuple[str, str], list[tuple[int, Cell]]] = {}
    for call in done:
        if call.f != "write":
            continue
        plan = plans.get(call.value)
        if plan is None:
            continue
        cell = (plan.timestamp, call.value)
        assert call.completed is not None
        by_key.setdefault((plan.keyspace, call.key), []).append((call.completed, cell))
        held = finals.get((plan.keyspace, call.key))
        if held is None:
            continue
        if any(c.cell >= cell for c in held.cells) or any(
                c >= cell for c in hinted.get((plan.keyspace, call.key), [])):
            continue
        lost.append(LostWrite(keyspace=plan.keyspace, key=call.key, value=call.value, level=plan.cl))
        lost_values.add(call.value)
    reads = [c for c in done if c.f == "read"]
    return DurabilityReport(stale=_stale(trace, plans, by_key, reads, finals, lost_values),
                            lost=tuple(lost))


def _stale(trace: ProtocolTrace, plans: dict[int, WritePlan],
           by_key: dict[tuple[str, str], list[tuple[int, Cell]]], reads: Sequence[ClientCall],
           finals: dict[tuple[str, str], KeyCells], lost_values: set[int]) -> tuple[StaleRead, ...]:
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
    for read in reads:
        key, value = read.key, read.read
        assert read.completed is not None
        for ks, times, best in newest.get(key, []):
            i = bisect_left(times, read.invoked)
            if not i:
                continue
            missed = best[i - 1]
            got = NOTHING if value is None else (plans[value].timestamp, value) if value in plans else NOTHING
            if got >= missed or missed[1] in lost_values:
                continue
            held = finals.get((ks, key))
            replicas = {c.replica for c in held.cells if c.read_replica} if held is not None else set()
            # a later client write overwrites the missed one; it does not heal it
            healed = tuple(via for t, node, c, via in stores.get((ks, key), [])
                           if t > read.completed and node in replicas and c >= missed and via != "mutation")
            still = held is not None and any(c.cell < missed for c in held.cells if c.read_replica)
            out.append(StaleRead(keyspace=ks, key=key, read_value=value, missed_value=missed[1],
                                 read_at=read.invoked, healed_by=healed, still_stale=still))
    return tuple(out)


__all__ = ["DurabilityReport", "LostWrite", "StaleRead", "check_durability"]
