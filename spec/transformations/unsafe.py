"""UNSAFE_JOIN and ASSASSINATE: a whole join or removal in one epoch, without streaming.

Both still respect range locks (they would otherwise corrupt an operation in flight), but skip
the progress barrier and, for ASSASSINATE, the replication-factor check: that is what makes them
unsafe, and why operators use them only when nothing else works.
"""

from __future__ import annotations

from attrs import field, frozen

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.sequences import OperationKind
from spec.tokens import token_tuple
from spec.transformations import sequence_steps as steps
from spec.transformations.base import Rejected, Result, Transformation
from spec.transformations.guards import node_in_state
from spec.transformations.join import PrepareJoin, joined
from spec.transformations.leave import left
from spec.transformations.sequence_steps import busy


@frozen(kw_only=True)
class UnsafeJoin(Transformation):
    kind = "UNSAFE_JOIN"
    node: NodeId
    tokens: tuple[int, ...] = field(converter=token_tuple)

    def execute(self, m: ClusterMetadata) -> Result:
        prepared = PrepareJoin(node=self.node, tokens=self.tokens).execute(m)
        if isinstance(prepared, Rejected):
            return Rejected(prepared.reason.replace(PrepareJoin.kind, self.kind))
        return steps.all_at_once(m, prepared, self.node, OperationKind.JOIN, joined)


@frozen(kw_only=True)
class Assassinate(Transformation):
    kind = "ASSASSINATE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        found = node_in_state(m, self.node, self.kind, NodeState.JOINED)
        if isinstance(found, Rejected):
            return found
        if (refused := busy(m, self.node)):
            return refused
        if self.node in m.cms.members:
            return Rejected(f"{self.node}: {self.kind} of a CMS member; reconfigure the CMS first")
        prepared = steps.prepare(m, node=self.node, op=OperationKind.REMOVE, after=m.token_map.without_node(self.node),
                                 removed_tokens=m.token_map.tokens_of(self.node), state=NodeState.LEAVING)
        return steps.all_at_once(m, prepared, self.node, OperationKind.REMOVE, left)
