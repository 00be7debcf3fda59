"""ALTER_TOPOLOGY: correct nodes' DC or rack, only when no placement would change."""

from __future__ import annotations

from attrs import frozen

from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId
from spec.transformations.base import Rejected, Result, Success, Transformation


@frozen(kw_only=True)
class AlterTopology(Transformation):
    kind = "ALTER_TOPOLOGY"
    changes: tuple[tuple[NodeId, Location], ...]

    def execute(self, m: ClusterMetadata) -> Result:
        if not self.changes:
            return Rejected("ALTER_TOPOLOGY with no changes")
        if m.locked_ranges:  # Cassandra's AlterTopology: no ongoing range movements (any lock)
            return Rejected("ALTER_TOPOLOGY while topology operations are in progress")
        directory = m.directory
        for node, location in self.changes:
            if node not in directory:
                return Rejected(f"{node}: ALTER_TOPOLOGY of unknown node")
            directory = directory.with_location(node, location)
        proposed = m.next_epoch(directory=directory)
        if proposed.placements_from_scratch() != m.placements:
            return Rejected("ALTER_TOPOLOGY would change data placements")
        return Success(proposed)
