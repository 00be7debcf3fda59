"""Trace invariant `quorum`: every request a coordinator answered `ok` met its consistency level
over the placement of the epoch it planned at and of the epoch it answered at (Cassandra's
`blockFor` / `blockForWrite` with `ReplicaPlan.stillAppliesTo`; the counts are
`checkers/quorum/levels.py`'s, written apart from impl's).

- A write: the replicas that acknowledged it meet `write_rule` (the level over the write group,
  one more per pending replica — per DC for EACH_QUORUM, the local ones for LOCAL_*) at the plan
  epoch and at the answer epoch. At ANY one answer suffices, a stored hint included.
- A read: the responses it resolved meet `read_rule` at the plan epoch and at the epoch it
  resolved at; it returns their newest cell; and when they disagreed (blocking read repair), the
  replicas holding the returned cell when it answered — responders that had it and replicas that
  acknowledged the repair — meet the write level (`write_rule`, pending replicas included) at
  the repair's epoch and at the answer epoch: the value is on a write quorum, which every later
  read quorum meets.
In gossip mode only the plan epoch is judged (the baseline never re-validates).
"""

from __future__ import annotations

from collections.abc import Iterable

from checkers.protocol.placements import Placements
from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from checkers.quorum.levels import QuorumRule, read_rule, write_rule
from observed.protocol import ProtocolTrace, ReadPlan, WritePlan
from spec.consistency import ConsistencyLevel


def _rule(placements: Placements, epoch: int, plan: WritePlan | ReadPlan, *, write: bool) -> QuorumRule | None:
    g = placements.groups(epoch, plan.keyspace, plan.token)
    params = placements.params(epoch, plan.keyspace)
    if g is None or params is None:
        return None
    cl = ConsistencyLevel[plan.cl]
    dc = plan.coord_dc or None
    if dc is None and cl.is_local:
        return None  # a coordinator its own metadata does not place yet (before it registers)
    if write:
        return write_rule(cl, params, g[0], g[1], placements.dc_of, dc)
    return read_rule(cl, params, g[0], placements.dc_of, dc)


def _meets(rule: QuorumRule | None, replicas: Iterable[str]) -> bool:
    return rule is None or rule.accepts(frozenset(replicas) & rule.group)


def check_quorum(trace: ProtocolTrace, placements: Placements, *, gossip: bool = False) -> ProtocolVerdict:
    out = _writes(trace, placements, gossip)
    if len(out) < MAX_VIOLATIONS:
        out += _reads(trace, placements, gossip)
    checked = sum(1 for d in trace.write_dones if d.outcome == "ok") + sum(
        1 for d in trace.read_dones if d.outcome == "ok")
    return ProtocolVerdict(violations=tuple(out[:MAX_VIOLATIONS]), checked=checked)


def _writes(trace: ProtocolTrace, placements: Placements, gossip: bool) -> list[Violation]:
    plans = {(p.coord, p.rid): p for p in trace.write_plans}
    acks: dict[tuple[str, int], set[str]] = {}
    for a in trace.write_acks:
        acks.setdefault((a.coord, a.rid), set()).add(a.replica)
    out: list[Violation] = []
    for d in trace.write_dones:
        plan = plans.get((d.coord, d.rid))
        if d.outcome != "ok" or plan is None:
            continue
        got = acks.get((d.coord, d.rid), set())
        if plan.cl == "ANY":
            if not got:
                out.append(Violation(invariant="quorum", time=d.t,
                                     detail=f"{d.coord} acknowledged a write at ANY with no answer or hint"))
            continue
        for epoch in (plan.epoch,) if gossip or d.epoch == plan.epoch else (plan.epoch, d.epoch):
            rule = _rule(placements, epoch, plan, write=True)
            if not _meets(rule, got):
                assert rule is not None
                out.append(Violation(
                    invariant="quorum", time=d.t,
                    detail=f"{d.coord} acknowledged a write at {plan.cl} of {plan.keyspace}/{plan.key} "
                           f"(planned at e{plan.epoch}, answered at e{d.epoch}) with acks from "
                           f"{','.join(sorted(got)) or 'nobody'}, short of the level over the write "
                           f"group at e{epoch} ({','.join(sorted(rule.group))})",
                    evidence=(("coordinator", d.coord), ("key", plan.key), ("level", plan.cl),
                              ("epoch", str(epoch)), ("acks", ",".join(sorted(got))))))
                break
        if len(out) >= MAX_VIOLATIONS:
            break
    return out


def _reads(trace: ProtocolTrace, placements: Placements, gossip: bool) -> list[Violation]:
    plans = {(p.coord, p.rid): p for p in trace.read_plans}
    resolves = {(r.coord, r.rid): r for r in trace.read_resolves}
    repairs = {(r.coord, r.rid): r for r in trace.read_repairs}
    cells: dict[tuple[str, int], dict[str, tuple[int, int | None]]] = {}
    for r in trace.read_resps:
        cells.setdefault((r.coord, r.rid), {})[r.replica] = (r.timestamp, r.value)
    repaired: dict[tuple[str, int], set[str]] = {}
    for a in trace.read_repair_acks:
        repaired.setdefault((a.coord, a.rid), set()).add(a.replica)
    out: list[Violation] = []
    for d in trace.read_dones:
        key = (d.coord, d.rid)
        plan, resolve = plans.get(key), resolves.get(key)
        if d.outcome != "ok" or plan is None or resolve is None:
            continue
        what = f"{d.coord}'s read at {plan.cl} of {plan.keyspace}/{plan.key}"
        responders = set(resolve.responders)
        for epoch in (plan.epoch,) if gossip or resolve.epoch == plan.epoch else (plan.epoch, resolve.epoch):
            rule = _rule(placements, epoch, plan, write=False)
            if not _meets(rule, responders):
                out.append(Violation(invariant="quorum", time=d.t,
                                     detail=f"{what} resolved responses from {','.join(sorted(responders))}, "
                                            f"short of the level over the read group at e{epoch}"))
                break
        got = cells.get(key, {})
        newest = max((got[r] for r in responders if r in got),
                     key=lambda c: (c[0], -1 if c[1] is None else c[1]), default=None)
        if newest is not None and (d.timestamp, d.value) != newest:
            out.append(Violation(invariant="quorum", time=d.t,
                                 detail=f"{what} returned {d.value} but the newest response was {newest[1]}"))
        agree = all(got.get(r) == (d.timestamp, d.value) for r in responders)
        if not agree and d.value is not None:
            holders = {r for r in responders if got.get(r) == (d.timestamp, d.value)} | repaired.get(key, set())
            repair = repairs.get(key)
            first = repair.epoch if repair is not None else resolve.epoch
            for epoch in (first,) if gossip or d.epoch == first else (first, d.epoch):
                rule = _rule(placements, epoch, plan, write=True)
                if not _meets(rule, holders):
                    out.append(Violation(
                        invariant="quorum", time=d.t,
                        detail=f"{what} answered {d.value} after its responses disagreed, with the "
                               f"value on {','.join(sorted(holders))} only: short of the write level "
                               f"over the write group at e{epoch} (blocking read repair)",
                        evidence=(("coordinator", d.coord), ("key", plan.key), ("holders", ",".join(sorted(holders))))))
                    break
        if len(out) >= MAX_VIOLATIONS:
            break
    return out


__all__ = ["check_quorum"]
