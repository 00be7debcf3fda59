"""Which parts of the metadata a change modified, by Cassandra's MetadataKeys (trunk 6bbe85ef):
`MetadataKeys.diffKeys(before, after)` over the six core keys. The judge compares what impl's
snapshot installs report (ForceSnapshot's affected keys, CASSANDRA-19128) with this."""

from __future__ import annotations

from collections.abc import Callable

from spec.metadata import ClusterMetadata

CORE_METADATA = ("SCHEMA", "NODE_DIRECTORY", "TOKEN_MAP", "DATA_PLACEMENTS", "LOCKED_RANGES",
                 "IN_PROGRESS_SEQUENCES")
"""MetadataKeys.CORE_METADATA."""

_PARTS: dict[str, Callable[[ClusterMetadata], object]] = {
    "SCHEMA": lambda m: m.schema,
    "NODE_DIRECTORY": lambda m: m.directory,
    "TOKEN_MAP": lambda m: m.token_map,
    # the CMS membership is the metadata keyspace's placement in Cassandra
    "DATA_PLACEMENTS": lambda m: (m.placements, m.cms.reads, m.cms.writes),
    "LOCKED_RANGES": lambda m: m.locked_ranges,
    # a CMS reconfiguration is an in-progress sequence (ReconfigureCMS)
    "IN_PROGRESS_SEQUENCES": lambda m: (m.in_progress, m.cms.reconfiguration),
}


def diff_keys(before: ClusterMetadata, after: ClusterMetadata) -> tuple[str, ...]:
    """The core keys whose value differs (MetadataKeys.diffKeys)."""
    return tuple(k for k in CORE_METADATA if _PARTS[k](before) != _PARTS[k](after))


__all__ = ["CORE_METADATA", "diff_keys"]
