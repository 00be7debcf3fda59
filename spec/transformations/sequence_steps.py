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
        deltas=deltas, affected=affected,
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


def orphan_commit_error(m: ClusterMetadata, node: NodeId, step: Step, op: OperationKind,
                        placements_change: bool) -> Rejected | None:
    """Why a step of a sequence whose node has no directory entry (an UNREGISTER committed
    after its PREPARE) cannot commit, or None. Cassandra's `Directory.withNodeState` is
    `states.withForce(id, state)`: the state write itself does not fail. But when the step
    changes placements, `ClusterMetadata.Transformer.build()` sorts every replica group
    (`cassandra.sorted_replica_groups_enabled`, default true) with `PrimaryRangeComparator`,
    whose `directory.peerId(o1.endpoint())` is null for the unregistered node's endpoint, a
    replica of some group since PREPARE's deltas name it: a NullPointerException that
    `AbstractLocalProcessor.commit` does not turn into a rejection (a commit error; modelled as
    a refusal). FINISH calls `Directory.withRackAndDC`, whose `locations.get(id)` is null."""
    if node in m.directory:
        return None
    name = step_name(step, op)
    if step is Step.FINISH:
        return Rejected(f"{node}: {name}: commit failed: Directory.withRackAndDC of a node with no "
                        f"directory entry (NullPointerException)")
    if placements_change:
        return Rejected(f"{node}: {name}: commit failed: Transformer.build() sorts the replica groups "
                        f"(sorted_replica_groups_enabled=true) and PrimaryRangeComparator finds no peer id "
                        f"for {node}, which has no directory entry (NullPointerException)")
    return None


CANCEL_STATE = {
    OperationKind.JOIN: NodeState.REGISTERED,
    OperationKind.REPLACE: NodeState.REGISTERED,
    OperationKind.LEAVE: NodeState.JOINED,
    OperationKind.REMOVE: NodeState.JOINED,
    OperationKind.MOVE: NodeState.JOINED,
}
"""The state a cancel leaves the node in: BootstrapAndJoin.cancel and BootstrapAndReplace.cancel
set REGISTERED (a join prepared from LEFT too), Move.cancel and UnbootstrapAndLeave.cancel set
JOINED."""


def start(m: ClusterMetadata, node: NodeId, op: OperationKind) -> Result:
    seq = sequence_at(m, node, op, Step.START)
    if isinstance(seq, Rejected):
        return seq
    placements = ownership.start(m.placements, seq.deltas)
    refused = orphan_commit_error(m, node, Step.START, op, placements != m.placements)
    if refused is not None:
        return refused
    return Success(m.next_epoch(
        placements=placements,
        in_progress=m.in_progress.with_sequence(seq.advanced()),
        # withForce: a node with no directory entry gets no visible state (Cassandra writes a
        # `states` entry with no peer, which peerIds() does not list)
        directory=m.directory.with_state(node, START_STATE[op]) if node in m.directory else m.directory,
    ))


def mid(m: ClusterMetadata, node: NodeId, op: OperationKind) -> Result:
    seq = sequence_at(m, node, op, Step.MID)
    if isinstance(seq, Rejected):
        return seq
    placements = ownership.mid(m.placements, seq.deltas)
    refused = orphan_commit_error(m, node, Step.MID, op, placements != m.placements)
    if refused is not None:
        return refused
    return Success(m.next_epoch(
        placements=placements,
        in_progress=m.in_progress.with_sequence(seq.advanced()),
    ))


Outcome = Callable[[ClusterMetadata, InProgressSequence], tuple[TokenMap, Directory]]
"""What FINISH leaves behind besides placements: the operation's token map and directory."""


def finish(m: ClusterMetadata, node: NodeId, op: OperationKind, outcome: Outcome) -> Result:
    seq = sequence_at(m, node, op, Step.FINISH)
    if isinstance(seq, Rejected):
        return seq
    refused = orphan_commit_error(m, node, Step.FINISH, op, True)
    if refused is not None:
        return refused
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
    """Revert every applied step in one epoch, unlock, and set the state Cassandra's cancel sets."""
    seq = m.in_progress.get(node)
    if seq is None:
        return Rejected(f"{node}: CANCEL_SEQUENCE with no sequence in progress")
    in_progress = m.in_progress.without(node)
    keep = frozenset(m.token_map.tokens) | in_progress.pending_tokens()
    placements = ownership.revert(m.placements, seq.deltas, seq.next_step)
    return Success(m.next_epoch(
        placements=ownership.merge(placements, keep),
        # withForce: no visible state for an id with no peer entry (Cassandra writes one)
        directory=(m.directory.with_state(node, CANCEL_STATE[seq.kind]) if node in m.directory else m.directory),
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
