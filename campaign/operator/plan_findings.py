"""Which known findings (campaign/run/findings.py, docs/findings.md) a planned operation meets.

Each finding has one rule here: given the operation, the cluster it starts from and what the spec
and impl's streaming made of it, the rule says whether the finding's conditions hold (and what
that means for this operator, with what to do), or why they cannot hold for a single operation
on a cluster at rest. A finding added to findings.py without a rule here fails
tests/operator/test_plan_findings.py, so a plan never silently ignores a known finding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attrs import frozen

from campaign.run.findings import ALL_FINDINGS, KnownFinding
from spec import operations as O
from spec.consistency import ConsistencyLevel
from spec.metadata import ClusterMetadata

BARRIER_LEVELS = (ConsistencyLevel.EACH_QUORUM, ConsistencyLevel.QUORUM, ConsistencyLevel.LOCAL_QUORUM,
                  ConsistencyLevel.ONE, ConsistencyLevel.NODE_LOCAL)
"""ProgressBarrier's relaxation chain, strictest first (DESIGN: the barrier starts at EACH_QUORUM)."""


@frozen(kw_only=True)
class AppliedFinding:
    id: str
    klass: str
    why: str
    """Why its conditions hold for this plan."""
    advice: str
    fix: str
    report: str | None


@frozen(kw_only=True)
class FindingContext:
    command: str
    node: str
    operation: O.Operation | None
    start: ClusterMetadata
    run: O.OperationRun
    refused: bool
    transfers: int
    """Streaming tasks of impl's plan (each from one source, tried in turn)."""
    no_source: int
    """Ranges a new replica gains with no replica left to stream them from (RF 1)."""
    halts: str | None
    barrier_min_cl: ConsistencyLevel
    read_cl: ConsistencyLevel


Rule = Callable[[FindingContext], tuple[str, str] | str]
"""(why, advice) when the finding's conditions hold; else the reason they cannot."""


def _cancel_after_mid(c: FindingContext) -> tuple[str, str] | str:
    kind = "bug" if c.command in ("bootstrap", "decommission", "move") else "hardening"
    return (f"this {c.command} has a MID step, and a cancel after it (JMX cancelInProgressSequences, nodetool "
            f"abortbootstrap / removenode abort) reverts reads and writes in one epoch with no progress barrier "
            f"({kind} for a {c.command})",
            "let the operation finish (resume it after a failure); cancel only before its MID step")


def _cross_dc_replace(c: FindingContext) -> tuple[str, str] | str:
    if not isinstance(c.operation, O.Replace):
        return "only a replace can take a node's tokens to another DC or rack"
    old = c.start.directory.location(c.operation.node)
    new = c.operation.by.location
    if old == new:
        return f"the replacement is in the replaced node's DC and rack ({old.dc}/{old.rack})"
    effect = (f"Cassandra's bootstrap halts before MID with START applied: {c.halts}" if c.halts is not None
              else f"it completes, leaving {old.dc} with one read replica fewer than its replication factor")
    return (f"the replacement is in {new.dc}/{new.rack}, the replaced node in {old.dc}/{old.rack}: {effect}",
            f"start the replacement with the replaced node's cassandra-rackdc.properties (dc={old.dc}, rack={old.rack})")


def _single_source(c: FindingContext) -> tuple[str, str] | str:
    if c.command not in ("replace", "removenode"):
        return "only replace and removenode stream from one remaining replica (joins, leaves and moves stream strictly)"
    lost = (f"; {c.no_source} range(s) have no replica left to stream from: their data on {c.node} is lost"
            if c.no_source else "")
    return (f"{c.transfers} transfer(s) stream each range from ONE remaining replica{lost}",
            "run a full repair of the ranges the new replicas gain once it finishes (nodetool repair -full), as "
            "Cassandra's documentation says you must")


def _barrier_gap(c: FindingContext) -> tuple[str, str] | str:
    if c.command not in ("replace", "removenode"):
        return "only replace and removenode leave a node out of the progress barrier"
    return (f"every progress barrier of this {c.command} leaves {c.node} out, assuming it is dead",
            f"make sure {c.node} is stopped, not only unreachable: a zombie {c.node} still serving as a coordinator "
            "at its old epoch can complete requests whose quorums miss the new ones")


def _unregister_prepared_join(c: FindingContext) -> tuple[str, str] | str:
    if c.command != "bootstrap":
        return "only a bootstrap leaves a node REGISTERED with a prepared join"
    return (f"if {c.node} stops after its PREPARE_JOIN, nodetool abortbootstrap run on a node that has not seen that "
            "epoch unregisters it with its sequence and range lock left in place",
            "abort a failed bootstrap from a node that has caught up with the PREPARE_JOIN (or cancel the sequence "
            "with the JMX cancelInProgressSequences first)")


def _rack_composition(c: FindingContext) -> tuple[str, str] | str:
    return ("needs two sequences in flight at once (the cluster read is at rest: no node Joining, Leaving or "
            "Moving); run one operation at a time")


def _leave_while_joining_cms(c: FindingContext) -> tuple[str, str] | str:
    if c.command not in ("decommission", "removenode", "replace"):
        return "only a decommission, removenode or replace removes a node the CMS may be adding"
    return (f"if a CMS reconfiguration is adding {c.node} when this {c.command} starts, it completes with {c.node} "
            "gone (the operator path checks full CMS members only)",
            "check `nodetool cms describe` first; finish an interrupted reconfiguration (nodetool cms reconfigure "
            "--resume) before this operation")


def _replace_cms_member(c: FindingContext) -> tuple[str, str] | str:
    return ("reached only by submitting PrepareReplace directly; Cassandra's Startup reconfigures the CMS first "
            "(the plan shows any such reconfiguration)")


def _stale_coordinator_read(c: FindingContext) -> tuple[str, str] | str:
    if c.refused:
        return "the operation is refused: no range moves"
    return (f"reads (at {c.read_cl.name} too) are not fenced by epoch: a coordinator cut off for the whole operation can "
            "complete a read from replicas that moved on and ones that lag with it",
            "watch for partitioned nodes while the operation runs; repair or restart a node cut off throughout")


def _monotonic_read(c: FindingContext) -> tuple[str, str] | str:
    if c.refused:
        return "the operation is refused: no range moves"
    return ("ranges have pending replicas from START to FINISH: a read can return a write that failed on its "
            "pending replica, and a read after FINISH may not see it until the hint replays",
            "keep hinted handoff on; repair the moved ranges after the operation if writes failed during it")


def _relaxed_barrier(c: FindingContext) -> tuple[str, str] | str:
    if BARRIER_LEVELS.index(c.barrier_min_cl) == 0:
        return ("needs progress_barrier_min_consistency_level below its default EACH_QUORUM "
                "(plan with --progress-barrier-min-cl to see)")
    return (f"with progress_barrier_min_consistency_level {c.barrier_min_cl.name}, a step may pass its barrier with "
            "a quorum of the old placement still lagging together",
            "keep progress_barrier_min_consistency_level at EACH_QUORUM: the operation waits instead")


RULES: dict[str, Rule] = {
    "cancel-after-mid": _cancel_after_mid,
    "nts-rack-composition": _rack_composition,
    "unregister-prepared-join": _unregister_prepared_join,
    "cross-dc-replace": _cross_dc_replace,
    "leave-while-joining-cms": _leave_while_joining_cms,
    "replace-cms-member": _replace_cms_member,
    "remove-replace-single-source": _single_source,
    "relaxed-progress-barrier": _relaxed_barrier,
    "stale-coordinator-read": _stale_coordinator_read,
    "monotonic-read-across-movement": _monotonic_read,
    "replaced-node-barrier-gap": _barrier_gap,
}


def applied_findings(*, command: str, node: str, operation: O.Operation | None, start: ClusterMetadata,
                     run: O.OperationRun, refused: bool, transfers: int, no_source: int, halts: str | None,
                     barrier_min_cl: ConsistencyLevel, read_cl: ConsistencyLevel,
                     findings: Sequence[KnownFinding] = ALL_FINDINGS
                     ) -> tuple[tuple[AppliedFinding, ...], tuple[tuple[str, str], ...]]:
    """(the findings whose conditions hold, (id, why not) for the others)."""
    ctx = FindingContext(command=command, node=node, operation=operation, start=start, run=run, refused=refused,
                  transfers=transfers, no_source=no_source, halts=halts, barrier_min_cl=barrier_min_cl,
                  read_cl=read_cl)
    holding: list[AppliedFinding] = []
    others: list[tuple[str, str]] = []
    for f in findings:
        if refused and f.id != "relaxed-progress-barrier":
            others.append((f.id, "the operation is refused before it changes the ring"))
            continue
        verdict = RULES[f.id](ctx)
        if isinstance(verdict, str):
            others.append((f.id, verdict))
        else:
            holding.append(AppliedFinding(id=f.id, klass=f.klass, why=verdict[0], advice=verdict[1], fix=f.fix,
                                          report=f.report))
    return tuple(holding), tuple(others)


__all__ = ["BARRIER_LEVELS", "RULES", "AppliedFinding", "applied_findings"]
