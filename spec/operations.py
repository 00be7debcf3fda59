"""Operator-level operations (OPS.json) expanded into their sequences of transformations.

`join` registers the node (if needed) and runs PREPARE..FINISH; `leave`, `remove`, `move` and
`replace` likewise. An operation may stop early (`until`), to be continued by `Resume` or undone
by `Cancel` later, so interleaved and cancelled operations can be written down.

Each operation first passes the operator layer (`spec.operator_checks`: what nodetool,
StorageService and Startup refuse, with Cassandra's messages) unless it says
`operator_checks=False`; `leave`, `remove`, `replace` and `assassinate` of a CMS member then
reconfigure the CMS without it first (ReconfigureCMS.maybeReconfigureCMS), as Cassandra's
operator paths do.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from attrs import field, frozen

from spec import fixes as spec_fixes
from spec import operator_checks
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId
from spec.sequences import OperationKind, Step
from spec.tokens import token_tuple
from spec.topology import NodeSpec, Topology
from spec.transformations import (
    AdvanceCMSReconfiguration,
    CancelSequence,
    PrepareJoin,
    PrepareLeave,
    PrepareMove,
    PrepareReplace,
    Register,
    Rejected,
    Result,
    Transformation,
    Unregister,
    step_of,
)
from spec.transformations import Assassinate as AssassinateNode
from spec.transformations.register import ABORT_BOOTSTRAP


@frozen(kw_only=True)
class Join:
    node: NodeSpec
    until: Step = Step.FINISH
    operator_checks: bool = True
    """False: submit PREPARE_JOIN without the operator layer's token checks (spec.operator_checks)."""


@frozen(kw_only=True)
class Leave:
    """`nodetool decommission` on `node` (SingleNodeSequences.decommission)."""

    node: NodeId
    until: Step = Step.FINISH
    force: bool = False
    """`nodetool decommission --force`: PREPARE_LEAVE skips the replication-factor check."""
    operator_checks: bool = True


@frozen(kw_only=True)
class Remove:
    """`nodetool removenode` of `node` (SingleNodeSequences.removeNode), a node the submitting
    node sees dead."""

    node: NodeId
    until: Step = Step.FINISH
    force: bool = False
    operator_checks: bool = True


@frozen(kw_only=True)
class Move:
    node: NodeId
    tokens: tuple[int, ...] = field(converter=token_tuple)
    until: Step = Step.FINISH
    operator_checks: bool = True


@frozen(kw_only=True)
class Replace:
    """A node started with `-Dcassandra.replace_address` (StorageService.initServer, then
    Startup.startup): the replaced node must be JOINED and, for Cassandra, dead."""

    node: NodeId
    """The node being replaced."""
    by: NodeSpec
    until: Step = Step.FINISH
    operator_checks: bool = True


@frozen(kw_only=True)
class Assassinate:
    """`nodetool assassinate` (Assassinate.assassinateEndpoint): no liveness check; a node not
    in the directory is a no-op; a CMS member leaves the CMS first (CASSANDRA-19768)."""

    node: NodeId
    operator_checks: bool = True


@frozen(kw_only=True)
class AbortBootstrap:
    """`nodetool abortbootstrap --node` (StorageService.abortBootstrap): for a node the
    submitting node sees dead, cancel its join or replace and unregister it."""

    node: NodeId
    operator_checks: bool = True


@frozen(kw_only=True)
class Resume:
    node: NodeId
    until: Step = Step.FINISH


@frozen(kw_only=True)
class Cancel:
    """JMX `CMSOperations.cancelInProgressSequences(node, kind)` (and `nodetool removenode
    abort`, kind REMOVE): no liveness or state check."""

    node: NodeId
    kind: OperationKind | None = None
    """The sequence kind the caller expects (Cassandra requires one; None: any)."""


@frozen(kw_only=True)
class Apply:
    """A single transformation, as is (schema changes, CMS reconfiguration, snapshots...)."""

    transformation: Transformation


Operation = Join | Leave | Remove | Move | Replace | Assassinate | AbortBootstrap | Resume | Cancel | Apply

@frozen(kw_only=True)
class OperatorRefusal(Transformation):
    """What the operator layer refuses before anything is submitted: always rejected, commits
    nothing (not a transformation kind of Cassandra's; never in a log)."""

    kind = "OPERATOR_CHECK"
    reason: str

    def execute(self, metadata: ClusterMetadata) -> Result:
        return Rejected(f"operator check: {self.reason}")


def _remaining(kind: OperationKind, node: NodeId, after: Step, until: Step) -> Iterator[Transformation]:
    """Steps START..FINISH that come after `after`, up to and including `until`."""
    for step in (Step.START, Step.MID, Step.FINISH):
        if after < step <= until:
            yield step_of(kind, step, node)


@frozen
class OperationRun:
    """The states an operation list went through: `states[0]` is the starting metadata."""

    states: tuple[ClusterMetadata, ...]
    kinds: tuple[str, ...]
    transformations: tuple[Transformation | None, ...]
    rejection: str | None = None
    rejected: Transformation | None = None

    @property
    def final(self) -> ClusterMetadata:
        return self.states[-1]


def _refused(reason: str | None) -> Iterator[Transformation]:
    if reason:
        yield OperatorRefusal(reason=reason)


def _without_in_cms(m: ClusterMetadata, node: NodeId) -> Iterator[Transformation]:
    """ReconfigureCMS.maybeReconfigureCMS: a CMS member leaves the CMS (driven to the end) before
    the operation that removes it from the ring; a refusal when too few candidates are left."""
    plan = operator_checks.reconfigure_cms_without(m, node)
    if isinstance(plan, str):
        yield OperatorRefusal(reason=plan)
    elif plan is not None:
        yield plan
        for _ in range(2 * len(plan.add) + len(plan.remove) + 1):  # each step, then FINISH
            yield AdvanceCMSReconfiguration()


def expand(op: Operation, m: ClusterMetadata) -> Iterator[Transformation]:
    """The transformations `op` stands for, given the metadata when it starts.

    Later steps are generated lazily, so a step can depend on what earlier ones committed. An
    OperatorRefusal (always rejected) stands for what the operator layer refuses."""
    checks = getattr(op, "operator_checks", False)
    if isinstance(op, Join):
        if checks and (refusal := operator_checks.join(m, op.node.id, op.node.tokens)):
            yield from _refused(refusal)
            return
        if op.node.id not in m.directory:
            yield Register(node=op.node.id, location=op.node.location, version=op.node.version)
        yield PrepareJoin(node=op.node.id, tokens=op.node.tokens)
        yield from _remaining(OperationKind.JOIN, op.node.id, Step.PREPARE, op.until)
    elif isinstance(op, Leave | Remove):
        yield from _leave(op, m, checks)
    elif isinstance(op, Move):
        if checks and (refusal := operator_checks.move(m, op.node, op.tokens)):
            yield from _refused(refusal)
            return
        yield PrepareMove(node=op.node, tokens=op.tokens)
        yield from _remaining(OperationKind.MOVE, op.node, Step.PREPARE, op.until)
    elif isinstance(op, Replace):
        if checks and (refusal := operator_checks.replace(m, op.node)):
            yield from _refused(refusal)
            return
        if op.by.id not in m.directory:
            yield Register(node=op.by.id, location=op.by.location, version=op.by.version)
        if checks:  # Startup.startup: the CMS first, then PrepareReplace
            yield from _without_in_cms(m, op.node)
        yield PrepareReplace(node=op.by.id, replaced=op.node)
        yield from _remaining(OperationKind.REPLACE, op.by.id, Step.PREPARE, op.until)
    elif isinstance(op, Assassinate):
        if op.node not in m.directory:
            return  # "Gossip implementation of assassinate was a no-op. Preserving this behaviour."
        if checks:
            yield from _without_in_cms(m, op.node)
        yield AssassinateNode(node=op.node)
    elif isinstance(op, AbortBootstrap):
        if checks and (refusal := operator_checks.abort_bootstrap(m, op.node)):
            yield from _refused(refusal)
            return
        if m.in_progress.get(op.node) is not None:
            yield CancelSequence(node=op.node)
        yield Unregister(node=op.node, allowed=ABORT_BOOTSTRAP)
    elif isinstance(op, Resume):
        seq = m.in_progress.get(op.node)
        if seq is None:
            yield CancelSequence(node=op.node)  # rejected: names the missing sequence
            return
        yield from _remaining(seq.kind, op.node, Step(seq.next_step - 1), op.until)
    elif isinstance(op, Cancel):
        if (refusal := operator_checks.cancel(m, op.node, op.kind)):
            yield from _refused(refusal)
            return
        yield CancelSequence(node=op.node)
    else:
        yield op.transformation


def _leave(op: Leave | Remove, m: ClusterMetadata, checks: bool) -> Iterator[Transformation]:
    """decommission (SingleNodeSequences.decommission: a leave in progress is resumed) and
    removenode (SingleNodeSequences.removeNode); each reconfigures the CMS first."""
    kind = OperationKind.REMOVE if isinstance(op, Remove) else OperationKind.LEAVE
    if checks:
        refusal = (operator_checks.remove(m, op.node) if kind is OperationKind.REMOVE
                   else operator_checks.decommission(m, op.node))
        if refusal:
            yield from _refused(refusal)
            return
        seq = m.in_progress.get(op.node)
        if seq is not None:  # only a decommission gets here with a sequence: its own leave
            yield from _remaining(seq.kind, op.node, Step(seq.next_step - 1), op.until)
            return
        yield from _without_in_cms(m, op.node)
    yield PrepareLeave(node=op.node, remove=kind is OperationKind.REMOVE, force=op.force)
    yield from _remaining(kind, op.node, Step.PREPARE, op.until)


def run_transformations(start: ClusterMetadata, transformations: Iterable[Transformation],
                        fixes: frozenset[str] = frozenset()) -> OperationRun:
    """Commit transformations in order; stop at the first rejected one."""
    return _run([start], transformations, fixes)


def run_operations(start: ClusterMetadata | Topology, operations: Iterable[Operation],
                   fixes: frozenset[str] = frozenset()) -> OperationRun:
    """Run operations one after another; stop at the first rejected step. `fixes` names
    proposed fixes (spec.fixes) to run with; none by default (Cassandra's rules)."""
    states = [ClusterMetadata.initial(start) if isinstance(start, Topology) else start]

    def steps() -> Iterator[Transformation]:
        for op in operations:  # each operation expands against the metadata when it starts
            yield from expand(op, states[-1])

    return _run(states, steps(), fixes)


def _run(states: list[ClusterMetadata], transformations: Iterable[Transformation],
         fixes: frozenset[str] = frozenset()) -> OperationRun:
    """Execute each transformation against the last of `states`, appending what commits."""
    kinds: list[str] = ["INITIAL"]
    done: list[Transformation | None] = [None]
    for t in transformations:
        for _ in range(2):  # a second epoch only for the fix `two-epoch-cancel`
            before = states[-1]
            result = spec_fixes.execute(t, before, fixes)
            if isinstance(result, Rejected):
                return OperationRun(tuple(states), tuple(kinds), tuple(done), result.reason, t)
            states.append(result.metadata)
            kinds.append(t.kind)
            done.append(t)
            if not spec_fixes.cancel_needs_another_epoch(t, before, result.metadata, fixes):
                break
    return OperationRun(tuple(states), tuple(kinds), tuple(done))
