"""The directory: every node the cluster has registered, with its location, state and version."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator

from attrs import evolve, frozen

from spec.nodes import Location, Node, NodeId, NodeState


def _id(node: Node) -> NodeId:
    return node.id


@frozen
class Directory:
    """Nodes sorted by id (so lookups bisect and output is deterministic)."""

    nodes: tuple[Node, ...] = ()

    @classmethod
    def of(cls, nodes: Iterable[Node]) -> Directory:
        return cls(tuple(sorted(nodes, key=lambda n: n.id)))

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __contains__(self, node_id: object) -> bool:
        return isinstance(node_id, str) and self.get(NodeId(node_id)) is not None

    def _index(self, node_id: NodeId) -> int:
        return bisect_left(self.nodes, node_id, key=_id)

    def get(self, node_id: NodeId) -> Node | None:
        i = self._index(node_id)
        if i < len(self.nodes) and self.nodes[i].id == node_id:
            return self.nodes[i]
        return None

    def node(self, node_id: NodeId) -> Node:
        found = self.get(node_id)
        if found is None:
            raise KeyError(node_id)
        return found

    def location(self, node_id: NodeId) -> Location:
        return self.node(node_id).location

    def locations(self) -> dict[NodeId, Location]:
        return {n.id: n.location for n in self.nodes}

    def state(self, node_id: NodeId) -> NodeState | None:
        found = self.get(node_id)
        return None if found is None else found.state

    def with_node(self, node: Node) -> Directory:
        others = [n for n in self.nodes if n.id != node.id]
        return Directory.of([*others, node])

    def without(self, node_id: NodeId) -> Directory:
        return Directory(tuple(n for n in self.nodes if n.id != node_id))

    def with_state(self, node_id: NodeId, state: NodeState) -> Directory:
        return self.with_node(evolve(self.node(node_id), state=state))

    def with_location(self, node_id: NodeId, location: Location) -> Directory:
        return self.with_node(evolve(self.node(node_id), location=location))

    def in_state(self, *states: NodeState) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.state in states)
