"""A topology to start from: the nodes with their tokens, and the keyspaces (TOPOLOGY.json)."""

from __future__ import annotations

from attrs import field, frozen

from spec.nodes import Location, NodeId, NodeVersion
from spec.replication import ReplicationParams


@frozen(kw_only=True)
class NodeSpec:
    """A node as an operator describes it: identity, location, and (for joins) its tokens."""

    id: NodeId
    location: Location
    tokens: tuple[int, ...] = ()
    version: NodeVersion = NodeVersion()


def _non_empty(instance: object, attribute: object, value: tuple[NodeSpec, ...]) -> None:
    if not value:
        raise ValueError("a topology needs at least one node")


@frozen(kw_only=True)
class Topology:
    nodes: tuple[NodeSpec, ...] = field(validator=_non_empty)
    keyspaces: tuple[tuple[str, ReplicationParams], ...] = ()
