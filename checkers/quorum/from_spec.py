"""Adapter: the spec's `ClusterMetadata` states (an `OperationRun`) to the prover's `History`.

Each state becomes an `EpochPlacements`: for every keyspace, its replication parameters from the
schema and its read and write groups cut at the union of both directions' range boundaries (the
spec keeps them aligned; this does not rely on it). Datacenters are gathered from every state's
directory, because a node that has left may no longer be in the last one.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from checkers.quorum.model import EpochPlacements, History, KeyspacePlacement, RangeGroups
from spec.metadata import ClusterMetadata
from spec.placement import DataPlacement, ReplicaGroups
from spec.tokens import ring_ranges


def _lookup(groups: ReplicaGroups, token: int) -> frozenset[str]:
    rights = [r.right for r, _ in groups.entries]
    i = bisect_left(rights, token)
    return frozenset(groups.entries[i if i < len(rights) else 0][1])


def keyspace_placement(name: str, m: ClusterMetadata, placement: DataPlacement) -> KeyspacePlacement:
    reads, writes = placement.reads, placement.writes
    params = m.schema.replication(name)
    if reads.ranges == writes.ranges:
        ranges = tuple(RangeGroups(range=r, reads=frozenset(rd), writes=frozenset(wr))
                       for (r, rd), (_, wr) in zip(reads.entries, writes.entries, strict=True))
        return KeyspacePlacement(keyspace=name, replication=params, ranges=ranges)
    cuts = {r.right for r in reads.ranges} | {r.right for r in writes.ranges}
    ranges = tuple(RangeGroups(range=p, reads=_lookup(reads, p.right), writes=_lookup(writes, p.right))
                   for p in ring_ranges(tuple(cuts)))
    return KeyspacePlacement(keyspace=name, replication=params, ranges=ranges)


def epoch_placements(m: ClusterMetadata) -> EpochPlacements:
    keyspaces = tuple(keyspace_placement(name, m, p) for name, p in m.placements.items() if p.reads.entries)
    return EpochPlacements(epoch=m.epoch, keyspaces=keyspaces,
                           cms_reads=frozenset(m.cms.reads), cms_writes=frozenset(m.cms.writes))


def history_from_states(states: Iterable[ClusterMetadata]) -> History:
    """A `History` of the given metadata states (in epoch order)."""
    states = tuple(states)
    dcs: dict[str, str] = {}
    for m in states:
        for node in m.directory:
            dcs.setdefault(node.id, node.location.dc)
    return History.of((epoch_placements(m) for m in states), dcs)
