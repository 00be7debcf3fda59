"""REGISTER and UNREGISTER: a node enters the directory before it joins, and may be forgotten."""

from __future__ import annotations

from collections.abc import Iterable

from attrs import field, frozen

from spec.metadata import ClusterMetadata
from spec.nodes import Location, Node, NodeId, NodeState, NodeVersion
from spec.transformations.base import Rejected, Result, Success, Transformation


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


ALL_STATES: frozenset[NodeState] = frozenset(NodeState)
"""What an Unregister without allowed states allows: Cassandra deserializes an entry written
before `Version.V2` as `EnumSet.allOf(NodeState.class)` (and the test helper
`Unregister.unregister(NodeId)` commits that set)."""

ABORT_BOOTSTRAP: frozenset[NodeState] = frozenset(
    {NodeState.REGISTERED, NodeState.BOOTSTRAPPING, NodeState.BOOT_REPLACING})
"""`StorageService.abortBootstrap` (`nodetool abortbootstrap`): after cancelling a JOIN or
REPLACE sequence it commits `new Unregister(nodeId, EnumSet.of(REGISTERED, BOOTSTRAPPING,
BOOT_REPLACING))`."""

LEFT_ONLY: frozenset[NodeState] = frozenset({NodeState.LEFT})
"""`CMSOperations.unregisterLeftNodes` (`nodetool cms unregister`) and `Register.register` (a
fresh node at a LEFT node's address): `new Unregister(nodeId, EnumSet.of(NodeState.LEFT))`."""


def state_set(states: frozenset[NodeState]) -> str:
    """An EnumSet as Java prints it: `[A, B]`, in the enum's declaration order."""
    return "[" + ", ".join(s.name for s in NodeState if s in states) + "]"


def _states(raw: Iterable[NodeState | str]) -> frozenset[NodeState]:
    return frozenset(s if isinstance(s, NodeState) else NodeState(s) for s in raw)


@frozen(kw_only=True)
class Unregister(Transformation):
    """Cassandra's Unregister: the node must be in the directory and in one of the start states
    its caller allows (`allowed`, carried by the transformation as `allowedNodeStartStates`);
    it looks at neither sequences nor the CMS (finding `unregister-prepared-join`)."""

    kind = "UNREGISTER"
    node: NodeId
    allowed: frozenset[NodeState] = field(default=ALL_STATES, converter=_states)

    def execute(self, m: ClusterMetadata) -> Result:
        found = m.directory.get(self.node)
        if found is None:
            return Rejected(f"Can not unregister {self.node} since it is not present in the directory.")
        if found.state not in self.allowed:
            return Rejected(f"Can't unregister {self.node} - node state is {found.state.name} "
                            f"not {state_set(self.allowed)}")
        return Success(m.next_epoch(directory=m.directory.without(self.node)))
