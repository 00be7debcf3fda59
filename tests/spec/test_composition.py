"""The finding `nts-rack-composition`: concurrent sequences whose deltas do not compose.

Found by a random search: with NetworkTopologyStrategy the rack rule makes a walk depend on nodes
far along it, so a join and a move on disjoint locked ranges can together change a range that
neither changes alone. Cassandra has no check for it (UniformRangePlacement.planFor* computes each
plan against the ring of its PREPARE; ApplyPlacementDeltas applies the deltas as they are), so
both complete and the cluster rests off its natural placement. The fix `composition-guard`
refuses the second PREPARE.
"""

from __future__ import annotations

from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from impl.metadata import Accepted, Metadata
from impl.metadata.fixes import execute as impl_execute
from spec import fixes as F
from spec.invariants import check_invariants
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId
from spec.operations import Resume, run_operations
from spec.replication import NetworkTopologyStrategy
from spec.transformations import PrepareJoin, PrepareMove, Register, Rejected, Success
from tests.spec.helpers import node, ring

TOPOLOGY = ring(node("n0", 41), node("n1", 105, 192), node("n2", 133), node("n3", 129, rack="r3"),
                node("n4", 53, 79, rack="r3"), node("n5", 18, 33), node("n6", 17, rack="r3"),
                replication=NetworkTopologyStrategy.of({"dc1": 3}))


def join_prepared() -> ClusterMetadata:
    m = ClusterMetadata.initial(TOPOLOGY)
    r = Register(node=NodeId("X"), location=Location(dc="dc1", rack="r3")).execute(m)
    assert isinstance(r, Success)
    r = PrepareJoin(node="X", tokens=(161,)).execute(r.metadata)
    assert isinstance(r, Success)
    return r.metadata


def test_cassandras_rules_let_both_operations_end_off_the_natural_placement() -> None:
    prepared = PrepareMove(node="n5", tokens=(5,)).execute(join_prepared())
    assert isinstance(prepared, Success)
    final = run_operations(prepared.metadata, [Resume(node="X"), Resume(node="n5")]).final
    assert not final.in_progress
    assert final.placements != final.placements_from_scratch()
    assert any(v.startswith("at_rest_matches_from_scratch") for v in check_invariants(final))


def test_the_composition_guard_refuses_the_second_prepare() -> None:
    verdict = F.execute(PrepareMove(node="n5", tokens=(5,)), join_prepared(), frozenset({F.COMPOSITION_GUARD}))
    assert isinstance(verdict, Rejected)
    assert verdict.reason == "n5: PREPARE_MOVE does not compose with the sequence of X (fix composition-guard)"


# Cassandra's UnsafeJoin.execute runs PrepareJoin.execute first (its state and range-lock
# checks), then applies the whole BootstrapAndJoin plan in the same epoch; so it composes with
# the sequences in flight exactly as a PREPARE_JOIN would (the same class of finding).
# Found by tests/impl/metadata/test_properties.py: x1 (rack r2) replaces n3 (rack r1), and an
# UNSAFE_JOIN at 92 while the replace is only prepared ends off the natural placement.
UNSAFE_TOPOLOGY = {"nodes": [{"id": "n0", "dc": "dc1", "rack": "r1", "tokens": [404]},
                             {"id": "n1", "dc": "dc1", "rack": "r2", "tokens": [666]},
                             {"id": "n2", "dc": "dc1", "rack": "r1", "tokens": [49]},
                             {"id": "n3", "dc": "dc1", "rack": "r1", "tokens": [74]},
                             {"id": "n4", "dc": "dc1", "rack": "r1", "tokens": [840]}],
                   "keyspaces": [{"name": "nts", "replication": {"class": "NetworkTopologyStrategy", "dc1": 2}}]}
UNSAFE_STEPS = [{"kind": "REGISTER", "node": {"id": "x1", "dc": "dc1", "rack": "r2"}},
                {"kind": "PREPARE_REPLACE", "node": "x1", "replaced": "n3"},
                {"kind": "REGISTER", "node": {"id": "x2", "dc": "dc1", "rack": "r1"}},
                {"kind": "UNSAFE_JOIN", "node": "x2", "tokens": [92]},
                {"kind": "START_REPLACE", "node": "x1"}, {"kind": "MID_REPLACE", "node": "x1"},
                {"kind": "FINISH_REPLACE", "node": "x1"}]


def test_an_unsafe_join_beside_a_prepared_replace_ends_off_the_natural_placement() -> None:
    spec_m = ClusterMetadata.initial(parse_topology(UNSAFE_TOPOLOGY))
    impl_m = Metadata.from_topology(UNSAFE_TOPOLOGY)
    for t in UNSAFE_STEPS:
        r = F.execute(parse_transformation(t), spec_m, frozenset())
        i = impl_execute(impl_m, t, ())
        assert isinstance(r, Success) and isinstance(i, Accepted), t
        spec_m, impl_m = r.metadata, i.metadata
    assert spec_m.placements != spec_m.placements_from_scratch()
    # the composition guard refuses the UNSAFE_JOIN, on both sides (it is a PREPARE_JOIN too)
    fixes = frozenset({F.COMPOSITION_GUARD})
    spec_m = ClusterMetadata.initial(parse_topology(UNSAFE_TOPOLOGY))
    impl_m = Metadata.from_topology(UNSAFE_TOPOLOGY)
    for t in UNSAFE_STEPS[:3]:
        spec_m = F.execute(parse_transformation(t), spec_m, fixes).metadata  # type: ignore[union-attr]
        impl_m = impl_execute(impl_m, t, fixes).metadata  # type: ignore[union-attr]
    spec_r = F.execute(parse_transformation(UNSAFE_STEPS[3]), spec_m, fixes)
    impl_r = impl_execute(impl_m, UNSAFE_STEPS[3], fixes)
    assert isinstance(spec_r, Rejected) and not isinstance(impl_r, Accepted)
    assert spec_r.reason == "x2: UNSAFE_JOIN does not compose with the sequence of x1 (fix composition-guard)"
