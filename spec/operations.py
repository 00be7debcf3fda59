"""Operator-level operations (OPS.json) expanded into their sequences of transformations.

`join` registers the node (if needed) and runs PREPARE..FINISH; `leave`, `remove`, `move` and
`replace` likewise. An operation may stop early (`until`), to be continued by `Resume` or undone
by `Cancel` later, so interleaved and cancelled operations can be written down.
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
    CancelSequence,
    PrepareJoin,
    PrepareLeave,
    PrepareMove,
    PrepareReplace,
    Register,
    Rejected,
    Result,
    Transformation,
    step_of,
)


@frozen(kw_only=True)
class Join:
    node: NodeSpec
    until: Step = Step.FINISH
    operator_checks: bool = True
    """False: submit PREPARE_JOIN without the operator layer's token checks (spec.operator_checks)."""


@frozen(kw_only=True)
class Leave:
    node: NodeId
    until: Step = Step.FINISH
    force: bool = False
    """`nodetool decommission --force`: PREPARE_LEAVE skips the replication-factor check."""


@frozen(kw_only=True)
class Remove:
    node: NodeId
    until: Step = Step.FINISH
    force: bool = False


@frozen(kw_only=True)
class Move:
    node: NodeId
    tokens: tuple[int, ...] = field(converter=token_tuple)
    until: Step = Step.FINISH
    operator_checks: bool = True


@frozen(kw_only=True)
class Replace:
    node: NodeId
    """The node being replaced."""
    by: NodeSpec
    until: Step = Step.FINISH


@frozen(kw_only=True)
class Resume:
    node: NodeId
    until: Step = Step.FINISH


@frozen(kw_only=True)
class Cancel:
    node: NodeId


@frozen(kw_only=True)
class Apply:
    """A single transformation, as is (schema changes, CMS reconfiguration, snapshots...)."""

    transformation: Transformation


Operation = Join | Leave | Remove | Move | Replace | Resume | Cancel | Apply

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


def expand(op: Operation, m: ClusterMetadata) -> Iterator[Transformation]:
    """The transformations `op` stands for, given the metadata when it starts.

    Later steps are generated lazily, so a step can depend on what earlier ones committed.
    """
    if isinstance(op, Join):
        refusal = op.operator_checks and operator_checks.tokens_free(m, op.node.id, "join", op.node.tokens)
        if refusal:
            yield OperatorRefusal(reason=refusal)
            return
        if op.node.id not in m.directory:
            yield Register(node=op.node.id, location=op.node.location, version=op.node.version)
        yield PrepareJoin(node=op.node.id, tokens=op.node.tokens)
        yield from _remaining(OperationKind.JOIN, op.node.id, Step.PREPARE, op.until)
    elif isinstance(op, Leave | Remove):
        yield PrepareLeave(node=op.node, remove=isinstance(op, Remove), force=op.force)
        yield from _remaining(OperationKind.LEAVE, op.node, Step.PREPARE, op.until)
    elif isinstance(op, Move):
        refusal = op.operator_checks and operator_checks.tokens_free(m, op.node, "move", op.tokens)
        if refusal:
            yield OperatorRefusal(reason=refusal)
            return
        yield PrepareMove(node=op.node, tokens=op.tokens)
        yield from _remaining(OperationKind.MOVE, op.node, Step.PREPARE, op.until)
    elif isinstance(op, Replace):
        if op.by.id not in m.directory:
            yield Register(node=op.by.id, location=op.by.location, version=op.by.version)
        yield PrepareReplace(node=op.by.id, replaced=op.node)
        yield from _remaining(OperationKind.REPLACE, op.by.id, Step.PREPARE, op.until)
    elif isinstance(op, Resume):
        seq = m.in_progress.get(op.node)
        if seq is None:
            yield CancelSequence(node=op.node)  # rejected: names the missing sequence
            return
        yield from _remaining(seq.kind, op.node, Step(seq.next_step - 1), op.until)
    elif isinstance(op, Cancel):
        yield CancelSequence(node=op.node)
    else:
        yield op.transformation


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
