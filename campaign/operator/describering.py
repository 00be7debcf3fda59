"""Cassandra's own ranges and endpoints for a keyspace (`nodetool describering`) against the
placement the spec computes for the same keyspace on the topology read from the ring.

A plan is only as good as the model of the live cluster it starts from: any range whose natural
replicas differ (or whose bounds do not match the ring's) is one line. Cassandra's describering
lists `StorageService.getRangeToAddressMap` — under TCM the read placement of each range between
two consecutive ring tokens, before TCM the strategy's natural replicas — which is the spec's
read group at rest.
"""

from __future__ import annotations

from campaign.errors import BadInput
from campaign.formats.describering import DescribedRange
from spec.metadata import ClusterMetadata
from spec.tokens import Range
from spec.topology import Topology


def compare(topology: Topology, keyspace: str, described: tuple[DescribedRange, ...], where: str) -> tuple[str, ...]:
    """One line per range where Cassandra's describering and the spec's placement differ."""
    names = [n for n, _ in topology.keyspaces]
    if keyspace not in names:
        raise BadInput(f"--describering {keyspace}={where}: keyspace {keyspace!r} is not in the schema read "
                       f"({', '.join(names) or 'no keyspace: give --schema'})")
    known = {n.id for n in topology.nodes}
    for d in described:
        unknown = [e for e in d.endpoints if e not in known]
        if unknown:
            raise BadInput(f"{where}: line {d.line}: endpoint {unknown[0]} is not a node of the ring read (print "
                           "nodetool ring and describering with the same -pp option, ring without -r, at the same time)")
    groups = ClusterMetadata.initial(topology).placements.get(keyspace).reads
    mine: dict[Range, frozenset[str]] = {r: frozenset(replicas) for r, replicas in groups}
    theirs = {d.range: d for d in described}
    out: list[str] = []
    for d in described:
        computed = mine.get(d.range)
        if computed is None:
            out.append(f"{keyspace} ({d.range.left}, {d.range.right}] ({where} line {d.line}): Cassandra lists this "
                       f"range with {_names(d.endpoints)}; the ring read has no range with these bounds")
        elif computed != frozenset(d.endpoints):
            out.append(f"{keyspace} ({d.range.left}, {d.range.right}] ({where} line {d.line}): Cassandra lists "
                       f"{_names(d.endpoints)}, tcmcheck computes {_names(computed)}")
    for r in sorted(mine, key=lambda r: r.right):
        if r not in theirs:
            out.append(f"{keyspace} ({r.left}, {r.right}]: tcmcheck computes {_names(mine[r])} for a range "
                       f"{where} does not list (its bounds differ)")
    return tuple(out)


def _names(endpoints: object) -> str:
    assert isinstance(endpoints, tuple | frozenset)
    return "{" + ", ".join(sorted(str(e) for e in endpoints)) + "}"


__all__ = ["compare"]
