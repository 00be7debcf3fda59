"""The finding `nts-rack-composition`: concurrent sequences whose deltas do not compose.

Found by a random search: with NetworkTopologyStrategy the rack rule makes a walk depend on nodes
far along it, so a join and a move on disjoint locked ranges can together change a range that
neither changes alone. Cassandra has no check for it (UniformRangePlacement.planFor* computes each
plan against the ring of its PREPARE; ApplyPlacementDeltas applies the deltas as they are), so
both complete and the cluster rests off its natural placement. The fix `composition-guard`
refuses the second PREPARE.
"""

from __future__ import annotations

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
