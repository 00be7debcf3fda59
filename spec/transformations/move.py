"""Move: a JOINED node takes new tokens and gives up its old ones, in the same four steps."""

from __future__ import annotations

from attrs import field, frozen

from spec.directory import Directory
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.sequences import InProgressSequence, OperationKind
from spec.token_map import TokenMap
from spec.tokens import token_tuple
from spec.transformations import sequence_steps as steps
from spec.transformations.base import Rejected, Result, Transformation
from spec.transformations.guards import node_in_state, tokens_representable
from spec.transformations.sequence_steps import busy

MOVE = OperationKind.MOVE


@frozen(kw_only=True)
class PrepareMove(Transformation):
    kind = "PREPARE_MOVE"
    node: NodeId
    tokens: tuple[int, ...] = field(converter=token_tuple)

    def execute(self, m: ClusterMetadata) -> Result:
        found = node_in_state(m, self.node, self.kind, NodeState.JOINED)
        if isinstance(found, Rejected):
            return found
        # Cassandra's PrepareMove checks JOINED and the locks, and sets MOVING (steps.prepare);
        # token availability is the operator layer's (StorageService.move). Deviation: tokens
        # owned by another node, which a token map cannot represent.
        if (refused := busy(m, self.node) or tokens_representable(m, self.node, self.kind, self.tokens)):
            return refused
        return steps.prepare(m, node=self.node, op=MOVE, after=m.token_map.with_node_tokens(self.node, self.tokens),
                             new_tokens=tuple(sorted(self.tokens)),
                             removed_tokens=m.token_map.tokens_of(self.node))


@frozen(kw_only=True)
class StartMove(Transformation):
    kind = "START_MOVE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.start(m, self.node, MOVE)


@frozen(kw_only=True)
class MidMove(Transformation):
    kind = "MID_MOVE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.mid(m, self.node, MOVE)


@frozen(kw_only=True)
class FinishMove(Transformation):
    kind = "FINISH_MOVE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.finish(m, self.node, MOVE, moved)


def moved(m: ClusterMetadata, seq: InProgressSequence) -> tuple[TokenMap, Directory]:
    """The node's old tokens are swapped for the new ones; it is JOINED again."""
    return (m.token_map.with_node_tokens(seq.node, seq.tokens), m.directory.with_state(seq.node, NodeState.JOINED))
