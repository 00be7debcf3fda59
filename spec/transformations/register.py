"""REGISTER and UNREGISTER: a node enters the directory before it joins, and may be forgotten."""

from __future__ import annotations

from attrs import frozen

from spec.metadata import ClusterMetadata
from spec.nodes import Location, Node, NodeId, NodeState, NodeVersion
from spec.transformations.base import Rejected, Result, Success, Transformation
from spec.transformations.guards import node_in_state


@frozen(kw_only=True)
class Register(Transformation):
    kind = "REGISTER"
    node: NodeId
    location: Location
    version: NodeVersion = NodeVersion()

    def execute(self, m: ClusterMetadata) -> Result:
        if self.node in m.directory:
            return Rejected(f"{self.node}: already registered")
        node = Node(id=self.node, location=self.location, state=NodeState.REGISTERED, version=self.version)
        return Success(m.next_epoch(directory=m.directory.with_node(node)))


@frozen(kw_only=True)
class Unregister(Transformation):
    kind = "UNREGISTER"
    node: NodeId

    def execute(self, m: ClusterMetadata) -> Result:
        # Cassandra's Unregister: the node must be present and in its allowed start states; it
        # does not look at sequences or the CMS (a REGISTERED node may have a prepared join).
        found = node_in_state(m, self.node, self.kind, NodeState.REGISTERED, NodeState.LEFT)
        if isinstance(found, Rejected):
            return found
        return Success(m.next_epoch(directory=m.directory.without(self.node)))
