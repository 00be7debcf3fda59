"""The metadata engine the distributed part runs on: impl.metadata behind a small seam.

The simulator never decides what a transformation does; it asks the engine:
`from_topology(doc)`, `execute(metadata, transformation) -> Accepted | Rejected`,
`from_json(metadata.to_json())`, plus `metadata.epoch`, `metadata.digest()` and
`metadata.cms_members()`. Tests may pass another engine with the same shape.

`Executor` memoizes `execute` by the log's chain hash: every node applies the same entries
from the same start, so the metadata after a given log prefix is one value, computed once per
run and shared (metadata values are immutable). It is owned by one run, never global.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from impl import metadata as m
from impl.entry import Entry


class Engine(Protocol):
    def from_topology(self, doc: dict[str, Any]) -> Any: ...
    def execute(self, metadata: Any, transformation: dict[str, Any]) -> Any: ...
    def from_json(self, data: Any) -> Any: ...


class MetadataEngine:
    """The real engine: impl.metadata."""

    def __init__(self) -> None:
        self._m = m

    def from_topology(self, doc: dict[str, Any]) -> Any:
        return self._m.Metadata.from_topology(doc)

    def from_gossip(self, *args: Any, **kwargs: Any) -> Any:
        return self._m.Metadata.from_gossip(*args, **kwargs)

    def execute(self, metadata: Any, transformation: dict[str, Any]) -> Any:
        return self._m.execute(metadata, transformation)

    def from_json(self, data: Any) -> Any:
        return self._m.Metadata.from_json(data)


def rejection_reason(result: Any) -> str | None:
    """The reason if `result` is a Rejected, else None (an Accepted)."""
    if hasattr(result, "reason") and not hasattr(result, "metadata"):
        return str(result.reason)
    return None


def cms_members(metadata: Any) -> tuple[str, ...]:
    """The full (read) CMS members, sorted."""
    return tuple(sorted(str(n) for n in metadata.cms_members()))


def cms_write_members(metadata: Any) -> tuple[str, ...]:
    """Members that accept Paxos proposals: the read members plus any joining the write set."""
    fn = getattr(metadata, "cms_write_members", None)
    if fn is None:
        return cms_members(metadata)
    return tuple(sorted(str(n) for n in fn()))


class Executor:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._after_chain: dict[str, Any] = {}
        self.executions = 0
        self._members_of: Any = None
        self._members_cached: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    def members(self, metadata: Any) -> tuple[str, ...]:
        """`cms_members`, remembered for the last metadata asked about."""
        return self._members(metadata)[0]

    def write_members(self, metadata: Any) -> tuple[str, ...]:
        return self._members(metadata)[1]

    def _members(self, metadata: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
        # why a one-entry cache: all nodes ask about the same metadata value in a row; keyed by
        # identity, and metadata values are immutable, so it is never stale
        if self._members_of is not metadata:
            self._members_of = metadata
            self._members_cached = (cms_members(metadata), cms_write_members(metadata))
        return self._members_cached

    def validate(self, metadata: Any, transformation: str) -> Any:
        """Run the engine on `metadata` (no caching: the CMS validates fresh each time)."""
        self.executions += 1
        return self.engine.execute(metadata, json.loads(transformation))

    def apply(self, metadata: Any, entry: Entry, chain_after: str) -> tuple[Any, str | None]:
        """The metadata after a committed entry, and the engine's complaint if it refused it
        (a committed entry that no longer applies is a bug the run reports)."""
        hit = self._after_chain.get(chain_after)
        if hit is not None:
            return hit, None
        result = self.validate(metadata, entry.transformation)
        reason = rejection_reason(result)
        if reason is not None:
            return metadata, reason
        self._after_chain[chain_after] = result.metadata
        return result.metadata, None

    def remember(self, chain_after: str, metadata: Any) -> None:
        self._after_chain.setdefault(chain_after, metadata)


def in_sequences(metadata: Any) -> frozenset[str]:
    """The nodes an in-progress sequence involves: the node performing it (its key) and, for a
    replace, the replaced node (empty when the metadata has no sequences). The engine refuses
    either as a new CMS member (impl.metadata.cms_changes)."""
    sequences = getattr(metadata, "sequences", None)
    if not isinstance(sequences, dict):
        return frozenset()
    replaced = (getattr(s, "replaced", None) for s in sequences.values())
    return frozenset(str(n) for n in sequences) | frozenset(str(n) for n in replaced if n is not None)


def cms_reconfiguring(metadata: Any) -> bool | None:
    """Whether a CMS reconfiguration is in progress, when the metadata says (None: unknown)."""
    cms = getattr(metadata, "cms", None)
    value = getattr(cms, "reconfiguring", None)
    if value is None:
        value = getattr(metadata, "reconfiguring", None)
    return None if value is None else bool(value)
