"""Which parts of the metadata a change modified, by Cassandra's MetadataKeys (trunk 6bbe85ef):
SCHEMA, NODE_DIRECTORY, TOKEN_MAP, DATA_PLACEMENTS, LOCKED_RANGES, IN_PROGRESS_SEQUENCES (its
`CORE_METADATA`). `diff_keys` is `MetadataKeys.diffKeys(before, after)`, what ForceSnapshot
reports since CASSANDRA-19128 (before it, always all six). The CMS membership is the metadata
keyspace's placement (DATA_PLACEMENTS); a CMS reconfiguration is an in-progress sequence holding
a lock."""

from __future__ import annotations

from typing import Any

CORE_METADATA = ("SCHEMA", "NODE_DIRECTORY", "TOKEN_MAP", "DATA_PLACEMENTS", "LOCKED_RANGES",
                 "IN_PROGRESS_SEQUENCES")


def _placements(m: Any) -> Any:
    return ({k: p.to_json() for k, p in sorted(m.placements.items())}, sorted(m.cms.reads), sorted(m.cms.writes))


def _locks(m: Any) -> Any:
    return (sorted((n, sorted(s.locked.items())) for n, s in m.sequences.items()), m.cms.reconfiguring)


def _sequences(m: Any) -> Any:
    return (sorted((n, s.to_json()) for n, s in m.sequences.items()), m.cms.to_json())


def diff_keys(before: Any, after: Any) -> tuple[str, ...]:
    """The core keys whose value differs between two impl metadata values."""
    parts = {
        "SCHEMA": lambda m: sorted((n, ks.to_json()) for n, ks in m.keyspaces.items()),
        "NODE_DIRECTORY": lambda m: sorted((n, r.to_json()) for n, r in m.directory.items()),
        "TOKEN_MAP": lambda m: sorted(m.token_map.items()),
        "DATA_PLACEMENTS": _placements,
        "LOCKED_RANGES": _locks,
        "IN_PROGRESS_SEQUENCES": _sequences,
    }
    return tuple(k for k in CORE_METADATA if parts[k](before) != parts[k](after))


__all__ = ["CORE_METADATA", "diff_keys"]
