"""Nodes as the directory knows them: identity, location, state and version."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import NewType

from attrs import field, frozen

NodeId = NewType("NodeId", str)


class NodeState(enum.Enum):
    """Cassandra's `NodeState`: where a node stands in its life in the cluster."""

    REGISTERED = "REGISTERED"
    BOOTSTRAPPING = "BOOTSTRAPPING"
    BOOT_REPLACING = "BOOT_REPLACING"
    JOINED = "JOINED"
    LEAVING = "LEAVING"
    LEFT = "LEFT"
    MOVING = "MOVING"

    def __repr__(self) -> str:
        return f"NodeState.{self.name}"


def _nonempty(instance: object, attribute: object, value: str) -> None:
    if not value:
        raise ValueError("dc and rack must be non-empty")


def node_set(nodes: Iterable[str]) -> frozenset[NodeId]:
    """attrs converter: any iterable of node ids becomes a frozenset (idempotent)."""
    return frozenset(NodeId(n) for n in nodes)


@frozen(kw_only=True)
class Location:
    dc: str = field(validator=_nonempty)
    rack: str = field(validator=_nonempty)


TCM_MIN_MAJOR = 6
"""Nodes older than 6.0 are not 'upgraded' (NodeVersion.isUpgraded): they block CMS initialization."""


@frozen(kw_only=True)
class NodeVersion:
    """The Cassandra release a node runs, e.g. "6.0" or "5.0.2"."""

    release: str = "6.0"

    @property
    def major(self) -> int:
        head = self.release.split(".", 1)[0]
        return int(head) if head.isdigit() else 0

    @property
    def is_upgraded(self) -> bool:
        return self.major >= TCM_MIN_MAJOR


@frozen(kw_only=True)
class NodeAddresses:
    """Stable identity of a node's endpoint; the node id doubles as its address in the model."""

    broadcast: str


@frozen(kw_only=True)
class Node:
    id: NodeId
    location: Location
    state: NodeState = NodeState.REGISTERED
    version: NodeVersion = NodeVersion()
    address: str | None = None
    """The broadcast address when it differs from the id (which doubles as the address)."""

    @property
    def broadcast(self) -> str:
        return self.address if self.address is not None else self.id

    @property
    def dc(self) -> str:
        return self.location.dc

    @property
    def rack(self) -> str:
        return self.location.rack
