"""`MetadataMachine`: the spec driven by Hypothesis's stateful testing, checked by its invariants.

Rules carry the CEP's operation names; each invariant is its own `@invariant`, so a failure
names the one that broke, and the printed program replays with `state = MetadataMachine()` after
`from strategies.metadata_machine import *` (which brings the names the printed values use:
`Topology`, `NodeSpec`, `Location`, ...). tests/stateful/test_metadata_machine.py runs it under
the active Hypothesis profile; `tcmcheck fuzz --kinds stateful` runs it from a seed.
"""

from __future__ import annotations

from hypothesis.stateful import initialize, invariant

from spec import fixes as spec_fixes
from spec import invariants as inv
from spec import schema as S
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeVersion
from spec.replication import NetworkTopologyStrategy, SimpleStrategy
from spec.topology import NodeSpec, Topology
from spec.transformations import (
    Rejected,
    Transformation,
)
from strategies.operation_rules import OperationRules
from strategies.topologies import topologies


class MetadataMachine(OperationRules):
    def __init__(self) -> None:
        super().__init__()
        self.m: ClusterMetadata | None = None
        self.rejections = 0
        self._looked_at: dict[str, ClusterMetadata] = {}

    def fresh(self, invariant: str) -> bool:
        """Whether `invariant` has not yet looked at this metadata: a rejected step leaves the
        same (immutable) object, and an invariant is a function of it, so once is enough."""
        if self._looked_at.get(invariant) is self.metadata:
            return False
        self._looked_at[invariant] = self.metadata
        return True

    @property
    def metadata(self) -> ClusterMetadata:
        assert self.m is not None
        return self.m

    def commit(self, t: Transformation) -> None:
        # With every proposed fix: Cassandra's own rules break these invariants exactly where the
        # known findings say (docs/findings.md; tests/spec/test_properties.py checks that part).
        result = spec_fixes.execute(t, self.metadata, spec_fixes.METADATA_FIXES)
        if isinstance(result, Rejected):
            self.rejections += 1
            return
        assert result.metadata.epoch == self.metadata.epoch + 1
        self.m = result.metadata

    @initialize(topology=topologies(max_nodes=6, max_tokens=3))
    def start_from(self, topology: Topology) -> None:
        self.m = ClusterMetadata.initial(topology)

    @invariant()
    def ranges_tile_the_ring(self) -> None:
        if self.fresh("ranges_tile_the_ring"):
            assert inv.ranges_tile_the_ring(self.metadata) == ()

    @invariant()
    def reads_are_write_replicas(self) -> None:
        if self.fresh("reads_are_write_replicas"):
            assert inv.reads_are_write_replicas(self.metadata) == ()

    @invariant()
    def reads_have_replication_factor(self) -> None:
        if self.fresh("reads_have_replication_factor"):
            assert inv.reads_have_replication_factor(self.metadata) == ()

    @invariant()
    def over_replication_only_in_flight(self) -> None:
        if self.fresh("over_replication_only_in_flight"):
            assert inv.over_replication_only_in_flight(self.metadata) == ()

    @invariant()
    def at_rest_matches_from_scratch(self) -> None:
        if self.fresh("at_rest_matches_from_scratch"):
            assert inv.at_rest_matches_from_scratch(self.metadata) == ()

    @invariant()
    def locks_belong_to_sequences(self) -> None:
        if self.fresh("locks_belong_to_sequences"):
            assert inv.locks_belong_to_sequences(self.metadata) == ()

    @invariant()
    def no_table_uses_a_missing_type(self) -> None:
        if not self.fresh("no_table_uses_a_missing_type"):
            return
        for ks in self.metadata.schema.keyspaces:
            types = {t.name for t in ks.types}
            for table in ks.tables:
                for _, cql_type in table.columns:
                    assert S.referenced_types(cql_type) <= types


# what `from strategies.metadata_machine import *` gives a printed counterexample: the machine
# and the classes whose reprs its arguments print as
__all__ = ["Location", "MetadataMachine", "NetworkTopologyStrategy", "NodeSpec", "NodeVersion",
           "SimpleStrategy", "Topology"]
