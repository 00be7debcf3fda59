"""Trace invariant `streaming`: a range movement never leaves an acknowledged write below its
level in the group that serves reads after it (what Cassandra's consistent range movement
guarantees: `BootstrapAndJoin.executeNext` streams before committing MID, from the strict
movement map — the replica giving each range up; trunk 6bbe85ef).

At the submission of a MID step (time T, committed at epoch e), for every key whose read group
changes at e and every client write of it acknowledged before T at level W by a coordinator in DC
d: the nodes holding that write or a newer cell at T, among the read group of e, satisfy
`write_rule(W, ...)` over that read group — the write would still be acknowledged by the group
that answers reads after MID.

Not "every new replica holds every write acknowledged before START": that would fire on correct
Cassandra (a QUORUM write acknowledged by A and B but not by C, the strict source, does not reach
the joining node, and A and B still form a quorum of the new read group).

Replace and removenode stream each range from one remaining replica, not the one giving it up
(it is gone), so they can break this (finding `remove-replace-single-source`): they are judged
only with the fix `stream-from-all-replicas` (`all_sources`). Writes at ANY promise nothing here.
"""

from __future__ import annotations

from collections.abc import Mapping

from checkers.protocol.placements import Placements
from checkers.protocol.steps import committed_steps
from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from checkers.quorum.levels import write_rule
from observed.cells import Cell
from observed.protocol import ProtocolTrace, Store, WritePlan
from spec.consistency import ConsistencyLevel

STRICT = ("join", "leave", "move")


def check_streaming(trace: ProtocolTrace, placements: Placements, log: Mapping[int, tuple[str, str, str]],
                    *, all_sources: bool = False) -> ProtocolVerdict:
    plans = {(p.coord, p.rid): p for p in trace.write_plans}
    acked: dict[tuple[str, str], list[tuple[int, WritePlan]]] = {}  # (ks, key) -> (acked at, plan)
    for d in trace.write_dones:
        plan = plans.get((d.coord, d.rid))
        if d.outcome == "ok" and plan is not None and plan.cl != "ANY":
            acked.setdefault((plan.keyspace, plan.key), []).append((d.t, plan))
    stores: dict[tuple[str, str], list[Store]] = {}
    for s in trace.stores:
        stores.setdefault((s.keyspace, s.key), []).append(s)
    ops = STRICT + (("replace", "remove") if all_sources else ())
    out: list[Violation] = []
    checked = 0
    for step, e in committed_steps(trace, log):
        if not step.kind.startswith("MID_") or step.op not in ops:
            continue
        for (ks, key), writes in sorted(acked.items()):
            token = writes[0][1].token
            before, after = placements.groups(e - 1, ks, token), placements.groups(e, ks, token)
            params = placements.params(e, ks)
            if before is None or after is None or params is None or before[0] == after[0]:
                continue
            reads = after[0]
            held = _newest_by(stores.get((ks, key), []), step.t)
            for at, plan in writes:
                if at >= step.t:
                    continue
                checked += 1
                cell: Cell = (plan.timestamp, plan.value)
                holders = frozenset(n for n, c in held.items() if c >= cell and n in reads)
                level = ConsistencyLevel[plan.cl]
                if level.is_local and not plan.coord_dc:
                    continue  # a coordinator its own metadata did not place (before registering)
                rule = write_rule(level, params, reads, reads, placements.dc_of, plan.coord_dc)
                if not rule.accepts(reads):
                    continue  # the new group cannot meet the level at all: nothing to preserve
                if not rule.accepts(holders):
                    out.append(Violation(
                        invariant="streaming", time=step.t,
                        detail=f"{step.driver} submitted {step.kind} of {step.seq_node} (e{e}) when "
                               f"{ks}/{key}={plan.value}, acknowledged at {plan.cl}, was held by "
                               f"{','.join(sorted(holders)) or 'none'} of the new read group "
                               f"{','.join(sorted(reads))}: below its level",
                        evidence=(("step", step.kind), ("key", key), ("value", str(plan.value)),
                                  ("level", plan.cl), ("holders", ",".join(sorted(holders))),
                                  ("reads", ",".join(sorted(reads))))))
                    break
            if len(out) >= MAX_VIOLATIONS:
                return ProtocolVerdict(violations=tuple(out), checked=checked)
    return ProtocolVerdict(violations=tuple(out), checked=checked)


def _newest_by(stores: list[Store], t: int) -> dict[str, Cell]:
    """Each node's newest cell of one key stored at or before `t`."""
    out: dict[str, Cell] = {}
    for s in stores:
        if s.t > t:
            break
        cell = (s.timestamp, s.value)
        if s.node not in out or cell > out[s.node]:
            out[s.node] = cell
    return out


__all__ = ["check_streaming"]
