"""The four steps every multi-step operation shares; each operation module adds its own guards.

PREPARE computes the deltas, locks the affected ranges and cuts the placements at the new tokens.
START, MID and FINISH apply their part of the deltas, each in its own epoch, strictly in order.
FINISH also applies the operation's token map and directory changes, unlocks, and merges ranges
no token separates any more.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import evolve

from spec import ownership
from spec.directory import Directory
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.sequences import InProgressSequence, OperationKind, Step
from spec.token_map import TokenMap
from spec.transformations.base import Rejected, Result, Success


def step_name(step: Step, op: OperationKind) -> str:
    return f"{step.name}_{op.step_suffix}"


def sequence_at(m: ClusterMetadata, node: NodeId, op: OperationKind, step: Step) -> InProgressSequence | Rejected:
    """The node's sequence, if `step` of `op` is what it expects next."""
    seq = m.in_progress.get(node)
    if seq is None or seq.kind is not op:
        return Rejected(f"{node}: {step_name(step, op)} without a prepared {op.value.lower()}")
    if seq.next_step is not step:
        return Rejected(f"{node}: {step_name(step, op)} out of order (next is {step_name(seq.next_step, op)})")
    return seq


def busy(m: ClusterMetadata, node: NodeId) -> Rejected | None:
    """At most one sequence per node, whether it performs it or is being replaced by it."""
    seq = m.in_progress.involving(node)
    if seq is not None:
        return Rejected(f"{node}: already in a {seq.kind.value} sequence (of {seq.node})")
    return None


def prepare(m: ClusterMetadata, *, node: NodeId, op: OperationKind, after: TokenMap,
            new_tokens: tuple[int, ...] = (), removed_tokens: tuple[int, ...] = (),
            replaced: NodeId | None = None) -> Result:
    """PREPARE_*: lock the affected ranges and cut the placements at the new tokens.

    As in Cassandra (PrepareJoin, PrepareLeave, PrepareReplace) the node's state does not change
    here (START sets it) — except a move: Cassandra's PrepareMove.execute itself sets MOVING
    (trunk 6bbe85ef, `withNodeState(nodeId, NodeState.MOVING)`), so PREPARE_MOVE does too. No check that the deltas compose with those of other
    sequences in flight: Cassandra has none (UniformRangePlacement.planFor*), so the at-rest
    invariant reports the NTS composition finding; `spec.fixes` keeps the guard as a fix.
    """
    deltas, affected = ownership.plan(m, after, new_tokens, removed_tokens)
    holder = m.locked_ranges.conflicting(affected)
    if holder is not None:
        return Rejected(f"{node}: {step_name(Step.PREPARE, op)} conflicts with ranges locked by {holder}")
    seq = InProgressSequence(
        kind=op, node=node, next_step=Step.START, tokens=new_tokens, replaced=replaced,
        deltas=deltas, affected=affected, prior_state=m.directory.node(node).state,
    )
    directory = (m.directory.with_state(node, NodeState.MOVING) if op is OperationKind.MOVE
                 else m.directory)
    return Success(m.next_epoch(
        placements=ownership.split(m.placements, new_tokens),
        locked_ranges=m.locked_ranges.lock(node, affected),
        in_progress=m.in_progress.with_sequence(seq),
        directory=directory,
    ))


START_STATE = {
    OperationKind.JOIN: NodeState.BOOTSTRAPPING,
    OperationKind.LEAVE: NodeState.LEAVING,
    OperationKind.REMOVE: NodeState.LEAVING,
    OperationKind.MOVE: NodeState.MOVING,
    OperationKind.REPLACE: NodeState.BOOT_REPLACING,
}
"""The state START_* gives the node (Cassandra's StartJoin/StartLeave/StartReplace; a move's
MOVING is already set at PREPARE_MOVE, so START_MOVE's assignment changes nothing)."""


def start(m: ClusterMetadata, node: NodeId, op: OperationKind) -> Result:
    seq = sequence_at(m, node, op, Step.START)
    if isinstance(seq, Rejected):
        return seq
    if node not in m.directory:
        # Cassandra's Directory.withNodeState fails on an unknown id (an UNREGISTER of the node
        # committed after its PREPARE): the commit fails, which the spec models as a refusal.
        return Rejected(f"{node}: {step_name(Step.START, op)} of a node no longer in the directory")
    return Success(m.next_epoch(
        placements=ownership.start(m.placements, seq.deltas),
        in_progress=m.in_progress.with_sequence(seq.advanced()),
        directory=m.directory.with_state(node, START_STATE[op]),
    ))


def mid(m: ClusterMetadata, node: NodeId, op: OperationKind) -> Result:
    seq = sequence_at(m, node, op, Step.MID)
    if isinstance(seq, Rejected):
        return seq
    return Success(m.next_epoch(
        placements=ownership.mid(m.placements, seq.deltas),
        in_progress=m.in_progress.with_sequence(seq.advanced()),
    ))


Outcome = Callable[[ClusterMetadata, InProgressSequence], tuple[TokenMap, Directory]]
"""What FINISH leaves behind besides placements: the operation's token map and directory."""


def finish(m: ClusterMetadata, node: NodeId, op: OperationKind, outcome: Outcome) -> Result:
    seq = sequence_at(m, node, op, Step.FINISH)
    if isinstance(seq, Rejected):
        return seq
    if node not in m.directory:
        return Rejected(f"{node}: {step_name(Step.FINISH, op)} of a node no longer in the directory")
    token_map, directory = outcome(m, seq)
    in_progress = m.in_progress.without(node)
    keep = frozenset(token_map.tokens) | in_progress.pending_tokens()
    return Success(m.next_epoch(
        placements=ownership.merge(ownership.finish(m.placements, seq.deltas), keep),
        token_map=token_map,
        directory=directory,
        locked_ranges=m.locked_ranges.unlock(node),
        in_progress=in_progress,
    ))


def cancel(m: ClusterMetadata, node: NodeId) -> Result:
    """Revert every applied step in one epoch, unlock, and restore the node's prior state."""
    seq = m.in_progress.get(node)
    if seq is None:
        return Rejected(f"{node}: CANCEL_SEQUENCE with no sequence in progress")
    in_progress = m.in_progress.without(node)
    keep = frozenset(m.token_map.tokens) | in_progress.pending_tokens()
    placements = ownership.revert(m.placements, seq.deltas, seq.next_step)
    return Success(m.next_epoch(
        placements=ownership.merge(placements, keep),
        directory=(m.directory.with_state(node, seq.prior_state) if node in m.directory else m.directory),
        locked_ranges=m.locked_ranges.unlock(node),
        in_progress=in_progress,
    ))


def all_at_once(m: ClusterMetadata, prepared: Result, node: NodeId, op: OperationKind,
                outcome: Outcome) -> Result:
    """PREPARE's result driven through START, MID and FINISH, collapsed into one epoch
    (UNSAFE_JOIN, ASSASSINATE: no streaming, no progress barrier)."""
    result = prepared
    for step in (start, mid):
        if isinstance(result, Rejected):
            return result
        result = step(result.metadata, node, op)
    if isinstance(result, Rejected):
        return result
    result = finish(result.metadata, node, op, outcome)
    if isinstance(result, Rejected):
        return result
    return Success(evolve(result.metadata, epoch=m.epoch + 1))
