"""Leave (decommission) and remove (removenode of a dead node): the CEP's "Decommission".

1. the nodes taking over the leaving node's ranges become write replicas; 2. they become read
replicas and the leaving node stops serving reads; 3. the leaving node stops being a write
replica and its tokens leave the token map; 4. ranges no token separates any more merge.
Removal of a dead node runs the same steps (Cassandra's kinds are the LEAVE ones).
"""

from __future__ import annotations

from attrs import frozen

from spec.directory import Directory
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.sequences import InProgressSequence, OperationKind
from spec.token_map import TokenMap
from spec.transformations import sequence_steps as steps
from spec.transformations.base import Rejected, Result, Transformation
from spec.transformations.guards import joined_count_allows_leave, node_in_state
from spec.transformations.sequence_steps import busy


@frozen(kw_only=True)
class PrepareLeave(Transformation):
    kind = "PREPARE_LEAVE"
    node: NodeId
    remove: bool = False
    """True for removenode: the node is dead and others stream its data."""
    force: bool = False
    """Skip the replication-factor check (`nodetool decommission --force`, removenode --force)."""

    def execute(self, m: ClusterMetadata) -> Result:
        """Cassandra's PrepareLeave.execute, in its order: CMS membership, JOINED, then (unless
        forced) the JOINED-count replication check, then the range locks."""
        # ClusterMetadata.isCMSMember: `fullCMSMembers().contains(endpoint)`, the read members
        # (a node only joining the CMS's write set may leave)
        if self.node in m.cms.reads:
            return Rejected(f"{self.node}: {self.kind} of a CMS member; reconfigure the CMS first")
        found = node_in_state(m, self.node, self.kind, NodeState.JOINED)
        if isinstance(found, Rejected):
            return found
        if (refused := busy(m, self.node)):
            return refused
        if not self.force and (refused := joined_count_allows_leave(m, self.node, self.kind)):
            return refused
        op = OperationKind.REMOVE if self.remove else OperationKind.LEAVE
        return steps.prepare(m, node=self.node, op=op, after=m.token_map.without_node(self.node),
                             removed_tokens=m.token_map.tokens_of(self.node))


def _op(m: ClusterMetadata, node: NodeId) -> OperationKind:
    seq = m.in_progress.get(node)
    return seq.kind if seq is not None and seq.kind is OperationKind.REMOVE else OperationKind.LEAVE


@frozen(kw_only=True)
class StartLeave(Transformation):
    kind = "START_LEAVE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.start(m, self.node, _op(m, self.node))


@frozen(kw_only=True)
class MidLeave(Transformation):
    kind = "MID_LEAVE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.mid(m, self.node, _op(m, self.node))


@frozen(kw_only=True)
class FinishLeave(Transformation):
    kind = "FINISH_LEAVE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.finish(m, self.node, _op(m, self.node), left)


def left(m: ClusterMetadata, seq: InProgressSequence) -> tuple[TokenMap, Directory]:
    """The node's tokens leave the token map and it becomes LEFT."""
    return (m.token_map.without_node(seq.node), m.directory.with_state(seq.node, NodeState.LEFT))
