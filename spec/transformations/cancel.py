"""CANCEL_SEQUENCE: the CEP's compensating change, reverting an operation's applied steps."""

from __future__ import annotations

from attrs import frozen

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId
from spec.transformations import sequence_steps as steps
from spec.transformations.base import Result, Transformation


@frozen(kw_only=True)
class CancelSequence(Transformation):
    """Placements return to what they were before PREPARE, in one epoch; the lock is released."""

    kind = "CANCEL_SEQUENCE"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        return steps.cancel(m, self.node)
