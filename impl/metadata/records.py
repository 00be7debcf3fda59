"""Small frozen records held by `Metadata`: directory entries, in-progress sequences, CMS state."""

from __future__ import annotations

from typing import Any

from attrs import frozen

from impl.metadata.placement import TransitionEntry
from spec.nodes import NodeState

DEFAULT_VERSION = "6.0"


@frozen(kw_only=True)
class NodeRecord:
    """A directory entry: identity, location, state and release."""

    id: str
    dc: str
    rack: str
    state: NodeState
    version: str = DEFAULT_VERSION
    address: str | None = None
    """The broadcast address when it is not the id (the id doubles as the address)."""

    @property
    def location(self) -> tuple[str, str]:
        return (self.dc, self.rack)

    @property
    def broadcast(self) -> str:
        return self.id if self.address is None else self.address

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "dc": self.dc,
            "rack": self.rack,
            "state": self.state.value,
            "version": self.version,
        }
        if self.address is not None:
            out["address"] = self.address
        return out

    @classmethod
    def from_json(cls, doc: Any) -> NodeRecord:
        return cls(
            id=str(doc["id"]),
            dc=str(doc["dc"]),
            rack=str(doc["rack"]),
            state=NodeState(doc["state"]),
            version=str(doc.get("version", DEFAULT_VERSION)),
            address=None if doc.get("address") is None else str(doc["address"]),
        )


# Sequence kinds (Cassandra's MultiStepOperation kinds) and their step order.
JOIN, LEAVE, REMOVE, MOVE, REPLACE = "JOIN", "LEAVE", "REMOVE", "MOVE", "REPLACE"
STEPS = ("START", "MID", "FINISH")


@frozen(kw_only=True, eq=False)
class Sequence:
    """An in-progress multi-step operation, keyed by `node` (for REPLACE: the replacement).

    `transitions` maps a placement key to the entries computed at PREPARE; `split` are the tokens
    PREPARE cut the placements at (undone by a cancel), `merge` the tokens FINISH merges at.
    `locked` maps a placement key to the `(left, right]` ranges locked from PREPARE to FINISH.
    """

    kind: str
    node: str
    next_step: str
    tokens: tuple[int, ...]
    """JOIN/MOVE: the new tokens; LEAVE/REMOVE: the leaving tokens; REPLACE: the replaced tokens."""
    replaced: str | None
    transitions: dict[str, tuple[TransitionEntry, ...]]
    split: tuple[int, ...]
    merge: tuple[int, ...]
    locked: dict[str, tuple[tuple[int, int], ...]]

    def steps_done(self) -> tuple[str, ...]:
        return STEPS[: STEPS.index(self.next_step)]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "node": self.node,
            "next_step": self.next_step,
            "tokens": list(self.tokens),
            "replaced": self.replaced,
            "transitions": {
                k: [e.to_json() for e in v] for k, v in sorted(self.transitions.items())
            },
            "split": list(self.split),
            "merge": list(self.merge),
            "locked": {k: [list(r) for r in v] for k, v in sorted(self.locked.items())},
        }

    @classmethod
    def from_json(cls, doc: Any) -> Sequence:
        return cls(
            kind=doc["kind"],
            node=doc["node"],
            next_step=doc["next_step"],
            tokens=tuple(int(t) for t in doc["tokens"]),
            replaced=doc["replaced"],
            transitions={
                k: tuple(TransitionEntry.from_json(e) for e in v)
                for k, v in doc["transitions"].items()
            },
            split=tuple(int(t) for t in doc["split"]),
            merge=tuple(int(t) for t in doc["merge"]),
            locked={
                k: tuple((int(r[0]), int(r[1])) for r in v) for k, v in doc["locked"].items()
            },
        )


@frozen(kw_only=True)
class CMSState:
    """CMS membership. `reads ⊆ writes`; they differ by at most one node at any epoch.

    `pending_add` / `pending_remove` are the parts of a reconfiguration not yet applied;
    `reconfiguring` is True from PREPARE_CMS_RECONFIGURATION until it completes or is cancelled.
    """

    reads: frozenset[str]
    writes: frozenset[str]
    reconfiguring: bool = False
    pending_add: tuple[str, ...] = ()
    pending_remove: tuple[str, ...] = ()
    next_index: int = 0
    """The sequence index the next ADVANCE_CMS_RECONFIGURATION must carry."""

    def to_json(self) -> dict[str, Any]:
        out = {
            "reads": sorted(self.reads),
            "writes": sorted(self.writes),
            "reconfiguring": self.reconfiguring,
            "pending_add": list(self.pending_add),
            "pending_remove": list(self.pending_remove),
        }
        if self.reconfiguring:
            out["next_index"] = self.next_index
        return out

    @classmethod
    def from_json(cls, doc: Any) -> CMSState:
        return cls(
            reads=frozenset(doc["reads"]),
            writes=frozenset(doc["writes"]),
            reconfiguring=bool(doc["reconfiguring"]),
            pending_add=tuple(doc["pending_add"]),
            pending_remove=tuple(doc["pending_remove"]),
            next_index=int(doc.get("next_index", 0)),
        )


def cms_target_size(node_count: int) -> int:
    """The CEP's CMS sizing: 1 up to 2 nodes, 3 up to 5, 5 up to 100, 10 beyond."""
    if node_count <= 2:
        return 1
    if node_count <= 5:
        return 3
    if node_count <= 100:
        return 5
    return 10
