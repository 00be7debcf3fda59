"""Promise `read repair`: a blocking read repair writes the resolved cell, to the replicas its plan
names, before the read answers (Cassandra's `ReadRepairHandler` / `BlockingReadRepair`,
`BlockingPartitionRepair`, `ReplicaPlans.forReadRepair`; impl/node/coordinator.py).

Over the protocol trace in the order the simulation took it:
- **When.** A read whose counted responses disagree (some responder's cell is not the resolved
  one, the resolved cell not empty) repairs before it answers: `DataResolver` hands the
  mismatch to `BlockingReadRepair.repairPartition`, and `awaitWrites` holds the read's answer.
- **What.** Every repair write carries the resolved cell (timestamp and value) of its read —
  the cell the read returns (`BlockingPartitionRepair` sends the merged partition's diff).
- **To whom.** The repair plan is made of write replicas of the token in the spec's placement
  at the plan's epoch (`forReadRepair` selects from `liveAndDown` of the write placement); its
  targets are plan members, and every plan member is either a responder that returned the
  resolved cell or a target (each member lacking the cell is sent it); each target is sent it
  once, and only targets are.
- **Before the answer.** All of a read's repair writes are sent before it answers; only targets
  acknowledge; and every cell a read repair changed on a disk is the cell of a repair write sent
  to that node. (That the acknowledging replicas meet the write level before an `ok` answer is
  the `quorum` trace invariant's.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from checkers.protocol.placements import Placements
from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from observed.protocol import (
    Event,
    ReadDone,
    ReadPlan,
    ReadRepair,
    ReadRepairAck,
    ReadRepairWrite,
    ReadResolve,
    ReadResp,
    Store,
)

Cell = tuple[int, int | None]

PATHS = ("reads resolved", "reads with disagreeing responses", "read repairs", "read repair writes")
"""What this check judges in a run (the report's paths)."""


class _Read:
    __slots__ = ("plan", "cells", "resolved", "repair", "writes", "done")

    def __init__(self, plan: ReadPlan) -> None:
        self.plan = plan
        self.cells: dict[str, Cell] = {}
        self.resolved: ReadResolve | None = None
        self.repair: ReadRepair | None = None
        self.writes: dict[str, ReadRepairWrite] = {}
        self.done = False


_Fail = Callable[[Event, _Read, str], None]


_READS: frozenset[type[Event]] = frozenset({ReadPlan, Store, ReadResp, ReadResolve, ReadRepair, ReadRepairWrite, ReadRepairAck, ReadDone})
"""The event kinds the check reads (each an exact class: observed/protocol.py has no subclasses)."""


def check_read_repair(events: Iterable[Event], placements: Placements | None = None) -> ProtocolVerdict:
    """Every blocking read repair's promise (`placements`: the spec's, to check the plan; None
    skips that)."""
    reads: dict[tuple[str, int], _Read] = {}
    sent: set[tuple[str, str, str, int, int]] = set()  # (replica, keyspace, key, ts, value) repaired
    judged = dict.fromkeys(PATHS, 0)
    out: list[Violation] = []

    def fail(e: Event, r: _Read, detail: str) -> None:
        p = r.plan
        evidence = [("read", f"{p.coord} read {p.keyspace}/{p.key} at {p.cl}, e{p.epoch}, contacts "
                             f"{','.join(p.contacts)}"),
                    ("responses", ", ".join(f"{x}:{_cell(c)}" for x, c in sorted(r.cells.items())) or "none")]
        if r.resolved is not None:
            evidence.append(("resolved", f"{_cell((r.resolved.timestamp, r.resolved.value))} from "
                                         f"{','.join(r.resolved.responders)} at e{r.resolved.epoch}"))
        if r.repair is not None:
            evidence.append(("repair", f"plan {','.join(r.repair.plan)} at e{r.repair.epoch}, targets "
                                       f"{','.join(r.repair.targets) or 'none'}"))
        if r.writes:
            evidence.append(("repair writes", ", ".join(f"{x}:{_cell((w.timestamp, w.value))}"
                                                        for x, w in sorted(r.writes.items()))))
        out.append(Violation(invariant="read repair", time=e.t, detail=detail, evidence=tuple(evidence)))

    # why the filter first: these kinds are a small part of a trace, read once per run
    for e in [e for e in events if type(e) in _READS]:
        if isinstance(e, ReadPlan):
            reads[(e.coord, e.rid)] = _Read(e)
            continue
        if isinstance(e, Store):
            if e.via == "read_repair" and (e.node, e.keyspace, e.key, e.timestamp, e.value) not in sent:
                out.append(Violation(invariant="read repair", time=e.t, detail=(
                    f"{e.node} stored {e.keyspace}/{e.key}={e.value}@{e.timestamp} by a read repair no "
                    "coordinator sent it")))
            continue
        if not isinstance(e, ReadResp | ReadResolve | ReadRepair | ReadRepairWrite | ReadRepairAck | ReadDone):
            continue
        r = reads.get((e.coord, e.rid))
        if r is None:
            continue
        if isinstance(e, ReadResp):
            r.cells[e.replica] = (e.timestamp, e.value)
        elif isinstance(e, ReadResolve):
            judged["reads resolved"] += 1
            r.resolved = e
        elif isinstance(e, ReadRepair):
            judged["read repairs"] += 1
            r.repair = e
            _plan(e, r, placements, fail)
        elif isinstance(e, ReadRepairWrite):
            judged["read repair writes"] += 1
            _write(e, r, fail)
            r.writes[e.replica] = e
            sent.add((e.replica, r.plan.keyspace, r.plan.key, e.timestamp, e.value))
        elif isinstance(e, ReadRepairAck):
            if r.repair is None or e.replica not in r.repair.targets:
                fail(e, r, f"{e.replica} acknowledged a read repair of {e.coord}'s read of "
                           f"{r.plan.keyspace}/{r.plan.key} it was not a target of")
        else:
            _answer(e, r, judged, fail)
        if len(out) >= MAX_VIOLATIONS:
            break
    return ProtocolVerdict(violations=tuple(out[:MAX_VIOLATIONS]), checked=judged["read repairs"],
                           judged=tuple(judged.items()))


def _plan(e: ReadRepair, r: _Read, placements: Placements | None, fail: _Fail) -> None:
    key = f"{r.plan.keyspace}/{r.plan.key}"
    if r.resolved is None:
        fail(e, r, f"{e.coord} read-repaired {key} before resolving the read")
        return
    stray = [t for t in e.targets if t not in e.plan]
    if stray:
        fail(e, r, f"{e.coord}'s read repair of {key} targets {','.join(stray)}, outside its plan "
                   f"{','.join(e.plan)}")
        return
    resolved = (r.resolved.timestamp, r.resolved.value)
    skipped = [m for m in e.plan if m not in e.targets and r.cells.get(m) != resolved]
    if skipped:
        fail(e, r, f"{e.coord}'s read repair of {key} sends {_cell(resolved)} to "
                   f"{','.join(e.targets) or 'nobody'}, not to plan member {skipped[0]}, which "
                   + ("returned " + _cell(r.cells[skipped[0]]) if skipped[0] in r.cells else "was not read"))
        return
    groups = placements.groups(e.epoch, r.plan.keyspace, r.plan.token) if placements is not None else None
    if groups is not None and not set(e.plan) <= groups[1]:
        fail(e, r, f"{e.coord}'s read repair plan {','.join(e.plan)} of {key} at e{e.epoch} names "
                   f"{','.join(sorted(set(e.plan) - groups[1]))}, not a write replica then "
                   f"(write replicas {','.join(sorted(groups[1]))})")


def _write(e: ReadRepairWrite, r: _Read, fail: _Fail) -> None:
    key = f"{r.plan.keyspace}/{r.plan.key}"
    if r.repair is None or e.replica not in r.repair.targets:
        fail(e, r, f"{e.coord} sent a read repair write of {key} to {e.replica}, not a target of its repair")
    elif e.replica in r.writes:
        fail(e, r, f"{e.coord} sent {e.replica} a read repair write of {key} twice")
    elif r.resolved is not None and (e.timestamp, e.value) != (r.resolved.timestamp, r.resolved.value):
        fail(e, r, f"{e.coord}'s read repair wrote {_cell((e.timestamp, e.value))} to {e.replica} for {key}; the "
                   f"read resolved {_cell((r.resolved.timestamp, r.resolved.value))}")
    elif r.done:
        fail(e, r, f"{e.coord} sent {e.replica} a read repair write of {key} after the read answered")


def _answer(e: ReadDone, r: _Read, judged: dict[str, int], fail: _Fail) -> None:
    r.done = True
    key = f"{r.plan.keyspace}/{r.plan.key}"
    if e.outcome != "ok" or r.resolved is None:
        return
    resolved = (r.resolved.timestamp, r.resolved.value)
    counted = {x: c for x, c in r.cells.items() if x in r.resolved.responders}
    if resolved[1] is None or all(c == resolved for c in counted.values()):
        return
    judged["reads with disagreeing responses"] += 1
    if r.repair is None:
        fail(e, r, f"{e.coord} answered its read of {key} with {_cell(resolved)} though its responses disagreed "
                   f"({', '.join(f'{x}:{_cell(c)}' for x, c in sorted(counted.items()))}), repairing nothing")
    elif set(r.writes) != set(r.repair.targets):
        fail(e, r, f"{e.coord} answered its read of {key} before sending its repair to "
                   f"{','.join(sorted(set(r.repair.targets) - set(r.writes)))}")


def _cell(c: Cell | None) -> str:
    return "nothing" if c is None or c[1] is None else f"{c[1]}@{c[0]}"


__all__ = ["PATHS", "check_read_repair"]
