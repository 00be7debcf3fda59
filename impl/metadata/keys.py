"""Which parts of the metadata a change modified, by Cassandra's MetadataKeys (trunk 6bbe85ef):
SCHEMA, NODE_DIRECTORY, TOKEN_MAP, DATA_PLACEMENTS, LOCKED_RANGES, IN_PROGRESS_SEQUENCES (its
`CORE_METADATA`). The CMS membership is the metadata keyspace's placement (DATA_PLACEMENTS); a
CMS reconfiguration is an in-progress sequence holding a lock.

Cassandra's `MetadataKeys.diffKeys(before, after)` compares each key's value with `equals`, and
every core value's `equals` includes its `lastModified` epoch (InProgressSequences, TokenMap,
LockedRanges, Directory, DataPlacements; DistributedSchema by its version), which
`ClusterMetadata.Transformer.build` moves to the new epoch for each component a transformation
replaced. So a key is reported modified when any transformation between the two epochs modified
it, even if the content ends equal (a CMS reconfiguration's sequence added, then removed).
`stamp` is that `build` step for impl (called by `execute` on every accepted transformation):
a key's epoch moves when its content differs from the previous epoch's. `diff_keys` is what
ForceSnapshot reports since CASSANDRA-19128 (before it, always all six)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CORE_METADATA = ("SCHEMA", "NODE_DIRECTORY", "TOKEN_MAP", "DATA_PLACEMENTS", "LOCKED_RANGES",
                 "IN_PROGRESS_SEQUENCES")


def _placements(m: Any) -> Any:
    """DATA_PLACEMENTS' content as JSON: what `_placements_differ` decides on, stated plainly."""
    return ({k: p.to_json() for k, p in sorted(m.placements.items())}, sorted(m.cms.reads), sorted(m.cms.writes))


def _placements_differ(before: Any, after: Any) -> bool:
    """`_placements(before) != _placements(after)`, without building either: a placement's
    JSON lists its bounds and sorted groups, so two placements' JSON are equal exactly when their
    bounds and their groups (frozensets) are; a placement a change did not replace is the same
    object (why: every accepted transformation asks this, and most leave the placements alone)."""
    a, b = before.placements, after.placements
    if a.keys() != b.keys():
        return True
    for k, p in a.items():
        q = b[k]
        if p is not q and (p.bounds != q.bounds or p.reads != q.reads or p.writes != q.writes):
            return True
    return bool(before.cms.reads != after.cms.reads or before.cms.writes != after.cms.writes)


def _locks(m: Any) -> Any:
    return (sorted((n, sorted(s.locked.items())) for n, s in m.sequences.items()), m.cms.reconfiguring)


def _sequences(m: Any) -> Any:
    # why not the whole CMSState: its read and write sets are the metadata keyspace's placement
    # (DATA_PLACEMENTS); only the reconfiguration (ReconfigureCMS) is an in-progress sequence
    cms = m.cms
    reconfiguration = (cms.pending_add, cms.pending_remove, cms.next_index) if cms.reconfiguring else None
    return (sorted((n, s.to_json()) for n, s in m.sequences.items()), reconfiguration)


def _records_differ(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """`sorted((n, r.to_json()) for n, r in a.items()) != ...(b)`, looking only at the records a
    change replaced (a record it kept is the same object)."""
    if a.keys() != b.keys():
        return True
    return any(r is not b[n] and r.to_json() != b[n].to_json() for n, r in a.items())


def _by_content(content: Callable[[Any], Any]) -> Callable[[Any, Any], bool]:
    """A key's test stated plainly: its content, built for both values, differs."""
    return lambda before, after: bool(content(before) != content(after))


_PARTS: dict[str, tuple[tuple[str, ...], Callable[[Any, Any], bool]]] = {
    # key: (the Metadata fields it is built from, whether its content differs); the first
    # two and DATA_PLACEMENTS look only at what a change replaced (`_records_differ`,
    # `_placements_differ`, named at call time so that a test can hold them to the plain test)
    "SCHEMA": (("keyspaces",), lambda b, a: _records_differ(b.keyspaces, a.keyspaces)),
    "NODE_DIRECTORY": (("directory",), lambda b, a: _records_differ(b.directory, a.directory)),
    "TOKEN_MAP": (("token_map",), _by_content(lambda m: sorted(m.token_map.items()))),
    "DATA_PLACEMENTS": (("placements", "cms"), lambda b, a: _placements_differ(b, a)),
    "LOCKED_RANGES": (("sequences", "cms"), _by_content(_locks)),
    "IN_PROGRESS_SEQUENCES": (("sequences", "cms"), _by_content(_sequences)),
}


def content_keys(before: Any, after: Any) -> tuple[str, ...]:
    """The core keys whose content differs between two impl metadata values (a field shared
    by both is unchanged without looking at it)."""
    out = []
    for key in CORE_METADATA:
        fields, differs = _PARTS[key]
        if all(getattr(before, f) is getattr(after, f) for f in fields):
            continue
        if differs(before, after):
            out.append(key)
    return tuple(out)


def stamp(before: Any, after: Any) -> dict[str, int]:
    """`after`'s per-key last-modified epochs when it follows `before` by one transformation."""
    changed = content_keys(before, after)
    if not changed:
        return dict(before.last_modified)
    return {**before.last_modified, **{k: after.epoch for k in changed}}


def diff_keys(before: Any, after: Any) -> tuple[str, ...]:
    """MetadataKeys.diffKeys: the core keys whose last-modified epoch differs."""
    a, b = before.last_modified, after.last_modified
    return tuple(k for k in CORE_METADATA if a.get(k, 0) != b.get(k, 0))


__all__ = ["CORE_METADATA", "content_keys", "diff_keys", "stamp"]
