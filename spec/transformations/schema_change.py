"""SCHEMA_CHANGE (Cassandra's AlterSchema): one DDL statement validated at its epoch."""

from __future__ import annotations

from attrs import evolve, frozen

from spec.locks import AffectedRanges, LockedRanges
from spec.metadata import ClusterMetadata
from spec.placement import DataPlacement, DataPlacements
from spec.replication import ReplicationParams
from spec.schema import AlterKeyspace, CreateKeyspace, DropKeyspace, SchemaChange
from spec.sequences import InProgressSequences, PlacementDeltas
from spec.transformations.base import Rejected, Result, Success, Transformation


def _twin(m: ClusterMetadata, params: ReplicationParams, but: str | None = None) -> str | None:
    """A keyspace other than `but` with these replication params: Cassandra keys placements by
    params, so such keyspaces share one placement (and every transition in flight)."""
    return next((n for n in m.schema.names() if n != but and m.schema.replication(n) == params), None)


def _affects_placements(m: ClusterMetadata, change: SchemaChange) -> bool:
    """Cassandra's AlterSchema: new params, altered replication, or the last keyspace of some
    params dropped."""
    name = change.keyspace
    if isinstance(change, CreateKeyspace):
        return name not in m.schema.names() and _twin(m, change.replication) is None
    if isinstance(change, AlterKeyspace):
        return name in m.schema.names() and m.schema.replication(name) != change.replication
    if isinstance(change, DropKeyspace):
        return name in m.schema.names() and _twin(m, m.schema.replication(name), but=name) is None
    return False


def _share(m: ClusterMetadata, name: str, twin: str) -> tuple[DataPlacements, InProgressSequences, LockedRanges]:
    """`name` joins `twin`'s placement: the same groups, deltas and locks in every sequence."""
    placements = m.placements.with_keyspace(name, m.placements.get(twin))

    def affected(a: AffectedRanges) -> AffectedRanges:
        by = dict(a.by_keyspace)
        if twin in by:
            by[name] = by[twin]
        return AffectedRanges.of(by)

    in_progress = m.in_progress
    for seq in m.in_progress.sequences():
        deltas = dict(seq.deltas.by_keyspace)
        if twin in deltas:
            deltas[name] = deltas[twin]
        in_progress = in_progress.with_sequence(evolve(
            seq, deltas=PlacementDeltas(tuple(sorted(deltas.items()))), affected=affected(seq.affected)))
    locks = LockedRanges(tuple((holder, affected(held)) for holder, held in m.locked_ranges.locks))
    return placements, in_progress, locks


@frozen(kw_only=True)
class AlterSchema(Transformation):
    """Cassandra's AlterSchema: a change that affects placements (see `_affects_placements`) is
    rejected while any range is locked (a topology sequence, or a CMS reconfiguration, which
    locks the metadata keyspace). Other changes go through; a keyspace created with params in
    use shares their placement, transitions in flight included."""

    kind = "SCHEMA_CHANGE"
    change: SchemaChange

    def execute(self, m: ClusterMetadata) -> Result:
        if m.locked_ranges and _affects_placements(m, self.change):
            holders = ", ".join(sorted(h for h, _ in m.locked_ranges.locks))
            return Rejected(f"{self.change.op} {self.change.keyspace} affects placements and conflicts "
                            f"with the ranges locked by {holders}")
        schema = self.change.apply(m.schema)
        if isinstance(schema, str):
            return Rejected(schema)
        name = self.change.keyspace
        placements, in_progress, locks = m.placements, m.in_progress, m.locked_ranges
        if isinstance(self.change, DropKeyspace):
            placements = placements.with_keyspace(name, None)
        elif isinstance(self.change, CreateKeyspace) and (twin := _twin(m, self.change.replication)):
            placements, in_progress, locks = _share(m, name, twin)
        elif isinstance(self.change, CreateKeyspace | AlterKeyspace) and not (
                isinstance(self.change, AlterKeyspace) and m.schema.replication(name) == self.change.replication):
            groups = m.natural_placement(self.change.replication)
            placements = placements.with_keyspace(name, DataPlacement.same(groups))
        return Success(m.next_epoch(schema=schema, placements=placements, in_progress=in_progress,
                                    locked_ranges=locks))
