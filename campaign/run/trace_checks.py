"""The trace invariants and the stale-versus-lost report of one simulated run (checkers/protocol/
on the run's protocol trace, judged against the spec's replay of the committed log).

The judge calls `judge_protocol` on every sim run. The placement-based invariants need the
spec's state at every epoch, so they run only when the replay covered the whole log and refused
nothing (otherwise the refinement failure is the run's cause). In gossip mode only the quorum
invariant's plan-epoch clause applies: the baseline has no fencing, no barrier and no
re-validation by design.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import frozen

from campaign.run import cause as C
from campaign.run.cause import Cause
from campaign.run.clients import stream_losses
from checkers.logs import LogEntry
from checkers.protocol import (
    BarrierSettings,
    DurabilityReport,
    Placements,
    Violation,
    check_barrier,
    check_durability,
    check_fencing,
    check_quorum,
    check_streaming,
    parse,
)
from checkers.protocol.fencing import reads_behind
from checkers.protocol.pending import reads_past_pending
from impl.cluster import RunResult
from impl.scenario import Scenario
from spec.metadata import ClusterMetadata


@frozen(kw_only=True)
class ProtocolJudgement:
    violations: tuple[Violation, ...] = ()
    """Every broken trace invariant (barrier, fencing, quorum, streaming), first ones first."""
    durability: DurabilityReport = DurabilityReport()
    lost_by_single_source: bool = False
    """Every lost write is explained by a faithful single-source remove/replace stream."""
    reads_behind: frozenset[tuple[str, str, int]] = frozenset()
    """(coordinator, key, completion time) of the client reads some replica served to a
    coordinator behind the read group's last change (finding `stale-coordinator-read`)."""
    reads_past_pending: frozenset[tuple[str, str, int]] = frozenset()
    """(coordinator, key, completion time) of the client reads that returned a value a pending
    replica of their token lacked, repairing nothing (finding `monotonic-read-across-movement`)."""

    def causes(self) -> tuple[Cause, ...]:
        """One cause per broken invariant (its first violation)."""
        seen: list[str] = []
        out = []
        for v in self.violations:
            if v.invariant not in seen:
                seen.append(v.invariant)
                out.append(C.trace(v.invariant, v.detail))
        return tuple(out)

    def durability_causes(self) -> tuple[Cause, ...]:
        """The first lost write at a level that promises durability (not ANY)."""
        lost = [w for w in self.durability.lost if w.level != "ANY"]
        if not lost:
            return ()
        w = lost[0]
        more = f" (and {len(lost) - 1} more)" if len(lost) > 1 else ""
        return (C.lost_write(f"lost write {w.keyspace}/{w.key}={w.value} at {w.level}: no replica holds it "
                             f"or a newer cell at the end, and no hint carries it{more}",
                             single_source=self.lost_by_single_source),)

    def summary(self) -> dict[str, Any]:
        d = self.durability
        return {
            "protocol": [f"{v.invariant}: {v.detail}" for v in self.violations],
            "durability": {
                "lost": [f"{w.keyspace}/{w.key}={w.value} at {w.level}" for w in d.lost],
                "stale": [f"{s.keyspace}/{s.key}: a read returned {s.read_value} after {s.missed_value} "
                          f"was acknowledged; " + (f"healed by {', '.join(dict.fromkeys(s.healed_by))}"
                                                   if s.healed_by else "not healed")
                          + ("; still stale at the end" if s.still_stale else "")
                          for s in d.stale[:20]],
            },
        }


def judge_protocol(scenario: Scenario, result: RunResult, states: Mapping[int, ClusterMetadata] | None,
                   log: Sequence[LogEntry], final: ClusterMetadata | None,
                   fixes: frozenset[str] = frozenset()) -> ProtocolJudgement:
    """`states`: the spec's metadata per epoch (None when the replay did not cover the log)."""
    if not result.protocol:
        return ProtocolJudgement()
    trace = parse(result.protocol)
    gossip = scenario.settings.mode == "gossip"
    violations: list[Violation] = []
    behind: frozenset[tuple[str, str, int]] = frozenset()
    past_pending: frozenset[tuple[str, str, int]] = frozenset()
    if states is not None:
        placements = Placements(states)
        behind = _client_reads(trace, reads_behind(trace, placements))
        past_pending = _client_reads(trace, reads_past_pending(trace, placements))
        entries = {e.epoch: (e.kind, _named(e), str(e.entry_id)) for e in log}
        violations += check_quorum(trace, placements, gossip=gossip).violations
        if not gossip:
            s = scenario.settings
            violations += check_fencing(trace, placements).violations
            violations += check_barrier(trace, states, entries, BarrierSettings(
                level=s.barrier_consistency, minimum=s.barrier_min_consistency,
                timeout=s.barrier_timeout_ns,
                waits_for_replaced="barrier-waits-for-replaced" in fixes)).violations
            violations += check_streaming(trace, placements, entries,
                                          all_sources="stream-from-all-replicas" in fixes).violations
    report = _durability(trace, result, final)
    single = False
    if report.lost:
        lost, _ = stream_losses(scenario, result)
        # (writes at ANY promise nothing: a hint for a node that then left is Cassandra's
        # documented loss, left out of the cause as `durability_causes` leaves them out)
        single = all((w.key, w.value) in lost for w in report.lost if w.level != "ANY")
    return ProtocolJudgement(violations=tuple(sorted(violations, key=lambda v: v.time)),
                             durability=report, lost_by_single_source=single, reads_behind=behind,
                             reads_past_pending=past_pending)


def _client_reads(trace: Any, requests: frozenset[tuple[str, int]]) -> frozenset[tuple[str, str, int]]:
    """The client reads (coordinator, key, completion time) of these coordinator requests."""
    if not requests:
        return frozenset()
    keys = {(p.coord, p.rid): p.key for p in trace.read_plans}
    return frozenset((d.coord, keys[(d.coord, d.rid)], d.t) for d in trace.read_dones
                     if (d.coord, d.rid) in requests and (d.coord, d.rid) in keys)


def _named(entry: LogEntry) -> str:
    t = entry.transformation
    node = t.get("node") if hasattr(t, "get") else None
    return node if isinstance(node, str) else ""


def _durability(trace: Any, result: RunResult, final: ClusterMetadata | None) -> DurabilityReport:
    if not result.final_cells or not result.quiescent:
        return DurabilityReport()
    invoked: dict[int, Any] = {}
    acked: list[tuple[str, int, int]] = []
    reads: list[tuple[str, int | None, int, int]] = []
    for op in result.client_history:
        if op.type == "invoke":
            invoked[op.process] = op
            continue
        start = invoked.pop(op.process, None)
        if start is None or op.key is None or op.type != "ok":
            continue
        if op.f == "write":
            acked.append((op.key, int(json.loads(start.value)), op.time))
        else:
            value = json.loads(op.value)
            reads.append((op.key, None if value is None else int(value), start.time, op.time))
    directory = frozenset(n.id for n in final.directory) if final is not None else frozenset(
        n.id for n in result.nodes)
    return check_durability(trace, acked, reads, result.final_cells, result.hints_left, directory)


__all__ = ["ProtocolJudgement", "judge_protocol"]
