"""STARTUP (Cassandra's Startup): a node restarts with a new address or a new release.

An address change is refused while any sequence is in flight, or when the address is another
node's; a version change is always recorded. Placements name node ids, which do not change, so
(unlike Cassandra, whose placements name endpoints) no placement is recomputed here.
"""

from __future__ import annotations

from attrs import evolve, frozen

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeVersion
from spec.transformations.base import Rejected, Result, Success, Transformation


@frozen(kw_only=True)
class Startup(Transformation):
    kind = "STARTUP"
    node: NodeId
    address: str | None = None
    """The new broadcast address (None: unchanged)."""
    version: NodeVersion | None = None
    """The release the node now runs (None: unchanged)."""

    def execute(self, m: ClusterMetadata) -> Result:
        found = m.directory.get(self.node)
        if found is None:
            return Rejected(f"{self.node}: {self.kind} of unknown node")
        node = found
        if self.address is not None and self.address != found.broadcast:
            if m.in_progress:
                return Rejected(f"{self.node}: cannot update the address of a node while there are "
                                f"in-progress sequences")
            for other in m.directory:
                if other.id != self.node and other.broadcast == self.address:
                    return Rejected(f"{self.node}: new address {self.address} conflicts with {other.id}")
            node = evolve(node, address=None if self.address == self.node else self.address)
        if self.version is not None and self.version != found.version:
            node = evolve(node, version=self.version)
        return Success(m.next_epoch(directory=m.directory.with_node(node)))
