"""Check `trace`: the trace invariants (checkers/protocol/) over the run's protocol trace, judged
against the spec's placements of every epoch — barrier, fencing, quorum and streaming, each a
cause class of its own (its first violation).

They need the spec's state at every epoch, so they run only when the replay covered the whole
log and refused nothing (otherwise the refinement failure is the run's cause). In gossip mode
only the quorum invariant's plan-epoch clause applies: the baseline has no fencing, no barrier
and no re-validation by design.
"""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from checkers.logs import LogEntry
from checkers.protocol import (
    BarrierSettings,
    Violation,
    check_barrier,
    check_fencing,
    check_quorum,
    check_streaming,
)
from spec import fixes


def violations(ctx: Context) -> tuple[Violation, ...]:
    """Every broken trace invariant, first ones first."""
    placements = ctx.placements
    if not ctx.observed.protocol or placements is None:
        return ()
    trace = ctx.trace
    gossip = ctx.scenario.settings.mode == "gossip"
    entries = {e.epoch: (e.kind, _named(e), str(e.entry_id)) for e in ctx.log}
    found = list(check_quorum(trace, placements, gossip=gossip).violations)
    if not gossip:
        s = ctx.scenario.settings
        found += check_fencing(trace, placements).violations
        found += check_barrier(trace, ctx.replay.states, entries, BarrierSettings(
            level=s.barrier_consistency, minimum=s.barrier_min_consistency, timeout=s.barrier_timeout_ns,
            waits_for_replaced=fixes.on(ctx.fixes, fixes.BARRIER_WAITS_FOR_REPLACED))).violations
        found += check_streaming(trace, placements, entries,
                                 all_sources=fixes.on(ctx.fixes, fixes.STREAM_FROM_ALL_REPLICAS)).violations
    return tuple(sorted(found, key=lambda v: v.time))


def _named(entry: LogEntry) -> str:
    t = entry.transformation
    node = t.get("node") if hasattr(t, "get") else None
    return node if isinstance(node, str) else ""


def check(ctx: Context) -> CheckResult:
    found = violations(ctx)
    causes: list[C.Cause] = []
    seen: set[str] = set()
    for v in found:
        if v.invariant not in seen:
            seen.add(v.invariant)
            causes.append(C.trace(v.invariant, v.detail))
    return CheckResult(causes=tuple(causes), summary={"protocol": [f"{v.invariant}: {v.detail}" for v in found]})


CHECK = Check(name="trace", family="trace", incremental=True, check=check,
              doc="barrier, fencing, quorum and streaming: the rules that keep client histories safe, "
                  "where the protocol applies them")

__all__ = ["CHECK", "violations"]
