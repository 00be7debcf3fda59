"""SCHEMA_CHANGE (Cassandra's AlterSchema): one DDL statement validated at its epoch."""

from __future__ import annotations

from attrs import frozen

from spec.metadata import ClusterMetadata
from spec.placement import DataPlacement
from spec.schema import AlterKeyspace, CreateKeyspace, DropKeyspace, SchemaChange
from spec.transformations.base import Rejected, Result, Success, Transformation


@frozen(kw_only=True)
class AlterSchema(Transformation):
    """Keyspace changes also (re)compute that keyspace's placements from the token map.

    They are refused while a topology operation is in flight: its deltas were computed for the
    keyspaces that existed at PREPARE, and would not cover a new or re-replicated keyspace.
    """

    kind = "SCHEMA_CHANGE"
    change: SchemaChange

    def execute(self, m: ClusterMetadata) -> Result:
        replicating = isinstance(self.change, CreateKeyspace | AlterKeyspace | DropKeyspace)
        if replicating and m.in_progress:
            return Rejected(f"{self.change.op} {self.change.keyspace} while topology operations are in progress")
        schema = self.change.apply(m.schema)
        if isinstance(schema, str):
            return Rejected(schema)
        placements = m.placements
        if isinstance(self.change, DropKeyspace):
            placements = placements.with_keyspace(self.change.keyspace, None)
        elif isinstance(self.change, CreateKeyspace | AlterKeyspace):
            groups = m.natural_placement(self.change.replication)
            placements = placements.with_keyspace(self.change.keyspace, DataPlacement.same(groups))
        return Success(m.next_epoch(schema=schema, placements=placements))
