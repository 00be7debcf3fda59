"""UNSAFE_JOIN and ASSASSINATE: a whole join or removal in one epoch, without streaming.

Both still respect range locks (they would otherwise corrupt an operation in flight), but skip
the progress barrier and, for ASSASSINATE, the replication-factor check: that is what makes them
unsafe, and why operators use them only when nothing else works.
"""

from __future__ import annotations

from attrs import field, frozen

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId
from spec.sequences import OperationKind
from spec.tokens import token_tuple
from spec.transformations import sequence_steps as steps
from spec.transformations.base import Rejected, Result, Transformation
from spec.transformations.join import PrepareJoin, joined
from spec.transformations.leave import PrepareLeave, left


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
        """Cassandra's Assassinate: a PrepareLeave with force, its three steps folded into one
        epoch (same checks: CMS, JOINED, locks; no replication-factor check)."""
        prepared = PrepareLeave(node=self.node, remove=True, force=True).execute(m)
        if isinstance(prepared, Rejected):
            return Rejected(prepared.reason.replace(PrepareLeave.kind, self.kind))
        return steps.all_at_once(m, prepared, self.node, OperationKind.REMOVE, left)
