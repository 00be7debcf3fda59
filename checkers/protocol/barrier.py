"""Trace invariant `barrier`: a sequence's next step is submitted only after the replicas
Cassandra's `ProgressBarrier` waits for had applied the epoch of the sequence's previous step
(`tcm/sequences/ProgressBarrier.await`, trunk 6bbe85ef), computed from the apply times in the
trace — an upper bound on what any watermark answer could have said, so a violation is a step
that really went early.

For every step a node's operation driver submitted and the log committed (at epoch e): the
barrier waits for the epoch W of the sequence's previous step in the log (PREPARE, START or
MID), over, per range the sequence locked, the replicas of the read and write groups of the
range containing it at e - 1, minus the replaced or removed node (`locked_barriers`; Cassandra's
`matchRange` and the filters of BootstrapAndReplace and removenode's UnbootstrapAndLeave). The
replicas that had applied W when the step was submitted must satisfy `barrier_rule` at the level
the barrier may have relaxed to by then: the configured first level, relaxed once per elapsed
`barrier_timeout` since W was first applied (ALL -> EACH_QUORUM -> QUORUM -> LOCAL_QUORUM -> ONE ->
NODE_LOCAL, `relaxConsistency`), never below the configured minimum; LOCAL_QUORUM in the DC of
the node the sequence is about. No barrier precedes START of a join, move or replace
(`ProgressBarrier.immediate`) or a cancel; steps submitted as scripted transformations have none.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping

from attrs import frozen

from checkers.protocol.steps import committed_steps
from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from checkers.quorum.from_spec import locked_barriers
from checkers.quorum.levels import barrier_rule
from checkers.quorum.model import LockedBarrier
from observed.protocol import ProtocolTrace
from spec.consistency import ConsistencyLevel
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId

CHAIN = ("EACH_QUORUM", "QUORUM", "LOCAL_QUORUM", "ONE", "NODE_LOCAL")
"""ProgressBarrier.relaxConsistency from the default level down."""
IMMEDIATE = ("START_JOIN", "START_MOVE", "START_REPLACE")


@frozen(kw_only=True)
class BarrierSettings:
    level: str = "EACH_QUORUM"
    minimum: str = "EACH_QUORUM"
    timeout: int = 10_000_000_000
    """ns a level is tried before relaxing."""
    waits_for_replaced: bool = False
    """The fix `barrier-waits-for-replaced`."""


def allowed_level(s: BarrierSettings, waited: int) -> str:
    """The lowest level a barrier that started `waited` ns ago may have relaxed to."""
    first, floor = CHAIN.index(s.level), CHAIN.index(s.minimum)
    steps = waited // s.timeout if s.timeout > 0 else len(CHAIN)
    return CHAIN[min(first + steps, max(floor, first))]


def check_barrier(trace: ProtocolTrace, states: Mapping[int, ClusterMetadata],
                  log: Mapping[int, tuple[str, str, str]], settings: BarrierSettings) -> ProtocolVerdict:
    """`log`: epoch -> (entry kind, the node it names, entry id) of the committed log."""
    applied, first_applied = _apply_times(trace)
    dc_of: dict[str, str] = {}
    for m in states.values():
        for n in m.directory:
            dc_of.setdefault(n.id, n.location.dc)
    out: list[Violation] = []
    checked = 0
    memo: dict[tuple[int, str], tuple[LockedBarrier, ...] | None] = {}
    for step, e in committed_steps(trace, log):
        if step.kind in IMMEDIATE or not step.kind.startswith(("START_", "MID_", "FINISH_")):
            continue
        prev = states.get(e - 1)
        w = _previous_step(log, e, step.seq_node)
        if prev is None or w is None:
            continue
        key = (e - 1, step.seq_node)
        if key not in memo:
            memo[key] = locked_barriers(prev, NodeId(step.seq_node),
                                        waits_for_replaced=settings.waits_for_replaced)
        ranges = memo[key]
        if not ranges:
            continue
        checked += 1
        level = allowed_level(settings, step.t - first_applied.get(w, step.t))
        seq_dc = dc_of.get(step.seq_node)
        for lb in ranges:
            ready = frozenset(n for n in lb.participants if applied(n, w, step.t))
            rule = barrier_rule(ConsistencyLevel[level], lb.participants, dc_of, seq_dc)
            if not rule.accepts(ready):
                out.append(Violation(
                    invariant="barrier", time=step.t,
                    detail=f"{step.driver} submitted {step.kind} of {step.seq_node} (committed at e{e}) "
                           f"when only {','.join(sorted(ready)) or 'nobody'} of "
                           f"{','.join(sorted(lb.participants))} had applied e{w} for "
                           f"{lb.keyspace} {lb.range}: short of {level}",
                    evidence=(("step", step.kind), ("wait_for", str(w)), ("level", level),
                              ("participants", ",".join(sorted(lb.participants))),
                              ("applied", ",".join(sorted(ready))))))
                break
        if len(out) >= MAX_VIOLATIONS:
            break
    return ProtocolVerdict(violations=tuple(out), checked=checked)


def _apply_times(trace: ProtocolTrace) -> tuple[Callable[[str, int, int], bool], dict[int, int]]:
    """`applied(node, epoch, by)`: the node had applied `epoch` or later at time `by`; and the
    first time each epoch was applied anywhere."""
    reached: dict[str, tuple[list[int], list[int]]] = {}  # node -> (times, best epoch by then)
    first_applied: dict[int, int] = {}
    for a in trace.applies:
        times, best = reached.setdefault(a.node, ([], []))
        times.append(a.t)
        best.append(max(a.epoch, best[-1] if best else 0))
        if a.epoch not in first_applied or a.t < first_applied[a.epoch]:
            first_applied[a.epoch] = a.t

    def applied(node: str, epoch: int, by: int) -> bool:
        times, best = reached.get(node, ([], []))
        i = bisect_right(times, by)
        return bool(i) and best[i - 1] >= epoch

    return applied, first_applied


def _previous_step(log: Mapping[int, tuple[str, str, str]], epoch: int, node: str) -> int | None:
    """The epoch of the sequence's previous step (`latestModification`) before `epoch`."""
    for e in range(epoch - 1, 0, -1):
        entry = log.get(e)
        if entry is None:
            return None
        kind, named, _ = entry
        if named == node and kind.startswith(("PREPARE_", "START_", "MID_")):
            return e
    return None


__all__ = ["BarrierSettings", "CHAIN", "allowed_level", "check_barrier"]
