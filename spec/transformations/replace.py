"""Replace: a new node takes over a dead node's tokens (the sequence is keyed by the new node).

START adds the replacement wherever the replaced node is a replica (writes); MID swaps it into
the read groups; FINISH drops the replaced node from the write groups and hands it the tokens.
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
from spec.transformations.guards import node_in_state
from spec.transformations.sequence_steps import busy

REPLACE = OperationKind.REPLACE


@frozen(kw_only=True)
class PrepareReplace(Transformation):
    kind = "PREPARE_REPLACE"
    node: NodeId
    replaced: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        new = node_in_state(m, self.node, self.kind, NodeState.REGISTERED)
        if isinstance(new, Rejected):
            return new
        old = node_in_state(m, self.replaced, self.kind, NodeState.JOINED)
        if isinstance(old, Rejected):
            return old
        if (refused := busy(m, self.node) or busy(m, self.replaced)):
            return refused
        # Cassandra's PrepareReplace checks the two states and the locks only: a replacement in
        # another DC, or of a CMS member, is accepted (the invariants judge what follows).
        return steps.prepare(m, node=self.node, op=REPLACE, after=m.token_map.reassigned(self.replaced, self.node),
                             replaced=self.replaced)


@frozen(kw_only=True)
class StartReplace(Transformation):
    kind = "START_REPLACE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.start(m, self.node, REPLACE)


@frozen(kw_only=True)
class MidReplace(Transformation):
    kind = "MID_REPLACE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.mid(m, self.node, REPLACE)


@frozen(kw_only=True)
class FinishReplace(Transformation):
    kind = "FINISH_REPLACE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.finish(m, self.node, REPLACE, replaced)


def replaced(m: ClusterMetadata, seq: InProgressSequence) -> tuple[TokenMap, Directory]:
    """The tokens pass to the replacement (JOINED); the replaced node leaves the directory
    (Cassandra's FinishReplace -> ClusterMetadata.Transformer.replaced)."""
    assert seq.replaced is not None
    directory = m.directory.with_state(seq.node, NodeState.JOINED).without(seq.replaced)
    return (m.token_map.reassigned(seq.replaced, seq.node), directory)
