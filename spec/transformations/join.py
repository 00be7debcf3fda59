"""Join: PREPARE_JOIN, START_JOIN, MID_JOIN, FINISH_JOIN (the CEP's "Adding a new node").

1. split the ranges containing the new node's tokens; 2. the new node becomes a write replica;
3. it becomes a read replica while the replicas giving ranges up stop serving reads;
4. those replicas stop being write replicas, and the tokens enter the token map.
"""

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

JOIN = OperationKind.JOIN


@frozen(kw_only=True)
class PrepareJoin(Transformation):
    kind = "PREPARE_JOIN"
    node: NodeId
    tokens: tuple[int, ...] = field(converter=token_tuple)

    def execute(self, m: ClusterMetadata) -> Result:
        """Cassandra's PrepareJoin: the node's state, then the range locks; no token checks
        (StorageService/BootStrapper make them before submitting: `spec.operator_checks`).

        Deviation: a token another node owns is still refused, because a token map (ours and
        Cassandra's) holds one owner per token; Cassandra reaches no such state either.
        """
        found = node_in_state(m, self.node, self.kind, NodeState.REGISTERED, NodeState.LEFT)
        if isinstance(found, Rejected):
            return found
        if (refused := busy(m, self.node) or tokens_representable(m, self.node, self.kind, self.tokens)):
            return refused
        return steps.prepare(m, node=self.node, op=JOIN, after=m.token_map.with_tokens(self.node, self.tokens),
                             new_tokens=tuple(sorted(self.tokens)))


@frozen(kw_only=True)
class StartJoin(Transformation):
    kind = "START_JOIN"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.start(m, self.node, JOIN)


@frozen(kw_only=True)
class MidJoin(Transformation):
    kind = "MID_JOIN"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.mid(m, self.node, JOIN)


@frozen(kw_only=True)
class FinishJoin(Transformation):
    kind = "FINISH_JOIN"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.finish(m, self.node, JOIN, joined)


def joined(m: ClusterMetadata, seq: InProgressSequence) -> tuple[TokenMap, Directory]:
    """The joining node's tokens enter the token map and it becomes JOINED."""
    return (m.token_map.with_tokens(seq.node, seq.tokens), m.directory.with_state(seq.node, NodeState.JOINED))
