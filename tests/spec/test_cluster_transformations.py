"""CMS reconfiguration, INITIALIZE_CMS gates, unsafe joins, assassination and ALTER_TOPOLOGY."""

from __future__ import annotations

import pytest

from spec.cms import cms_target_size
from spec.cms_placement import Placement
from spec.invariants import check_invariants
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId, NodeVersion
from spec.topology import NodeSpec, Topology
from spec.transformations import (
    AdvanceCMSReconfiguration,
    AlterTopology,
    Assassinate,
    CancelCMSReconfiguration,
    InitializeCMS,
    PrepareCMSReconfiguration,
    PrepareLeave,
    Register,
    Rejected,
    Success,
    Transformation,
    TriggerSnapshot,
    UnsafeJoin,
)
from tests.spec.helpers import node, ring, table

RING = ring(node("A", 100), node("B", 200), node("C", 300), node("D", 400))


def ok(m: ClusterMetadata, t: Transformation) -> ClusterMetadata:
    r = t.execute(m)
    assert isinstance(r, Success), r
    assert check_invariants(r.metadata) == ()
    return r.metadata


def reason(m: ClusterMetadata, t: Transformation) -> str:
    r = t.execute(m)
    assert isinstance(r, Rejected), r
    return r.reason


def test_cms_starts_with_one_member_and_grows_one_set_at_a_time() -> None:
    """CEP: add to the write set, stream the log, then add to the read set."""
    m = ClusterMetadata.initial(RING)
    assert (m.cms.reads, m.cms.writes) == ({"A"}, {"A"})
    m = ok(m, PrepareCMSReconfiguration(add={"B", "C"}))
    seen = []
    while m.cms.reconfiguration is not None:
        m = ok(m, AdvanceCMSReconfiguration())
        seen.append((sorted(m.cms.reads), sorted(m.cms.writes)))
    assert seen == [(["A"], ["A", "B"]), (["A", "B"], ["A", "B"]), (["A", "B"], ["A", "B", "C"]),
                    (["A", "B", "C"], ["A", "B", "C"]),
                    (["A", "B", "C"], ["A", "B", "C"])]  # the separate last step unlocks
    assert not m.locked_ranges


def test_cms_removal_takes_one_epoch_and_cancel_drops_write_only_members() -> None:
    m = ClusterMetadata.initial(RING)
    m = ok(m, PrepareCMSReconfiguration(add={"B"}, remove={"A"}))
    m = ok(m, AdvanceCMSReconfiguration())  # B in writes only
    m = ok(m, CancelCMSReconfiguration())
    assert (m.cms.reads, m.cms.writes, m.cms.reconfiguration) == ({"A"}, {"A"}, None)
    m = ok(m, PrepareCMSReconfiguration(add={"B"}, remove={"A"}))
    for _ in range(3):
        m = ok(m, AdvanceCMSReconfiguration())
    assert (m.cms.reads, m.cms.writes) == ({"B"}, {"B"})


def test_cms_reconfiguration_rejections() -> None:
    m = ClusterMetadata.initial(RING)
    assert "empty" in reason(m, PrepareCMSReconfiguration(remove={"A"}))
    assert "not in the CMS" in reason(m, PrepareCMSReconfiguration(remove={"B"}))
    assert "no CMS reconfiguration" in reason(m, AdvanceCMSReconfiguration())
    m = ok(m, Register(node=NodeId("X"), location=Location(dc="dc1", rack="r1")))
    assert "JOINED" in reason(m, PrepareCMSReconfiguration(add={"X"}))


def test_a_placed_reconfiguration_is_computed_from_the_metadata_it_executes_on() -> None:
    """PrepareCMSReconfiguration.Simple/Complex place the CMS in execute(prev): nodes in a
    sequence, down or replaced are left out; members keep their seats; Simple refuses a node
    that is not a member; nothing to change commits as a no-op."""
    m = ClusterMetadata.initial(RING)
    complex5 = PrepareCMSReconfiguration(placement=Placement(size=3))
    placed = ok(m, complex5)
    assert placed.cms.reconfiguration is not None and placed.cms.members == {"A"}
    while placed.cms.reconfiguration is not None:
        placed = ok(placed, AdvanceCMSReconfiguration())
    assert placed.cms.members == {"A", "B", "C"}
    # B leaving (a sequence) and C down: the same submission places D instead
    leaving = ok(m, PrepareLeave(node=NodeId("B")))
    past = ok(leaving, PrepareCMSReconfiguration(placement=Placement(size=3, down={"C"})))
    while past.cms.reconfiguration is not None:
        past = ok(past, AdvanceCMSReconfiguration())
    assert past.cms.members == {"A", "D"}
    assert ok(placed, complex5).epoch == placed.epoch + 1 and ok(placed, complex5).cms == placed.cms  # no-op
    simple = PrepareCMSReconfiguration(placement=Placement(size=3, without=NodeId("B")))
    assert "not a member of CMS" in reason(m, simple)
    swapped = ok(placed, simple)
    while swapped.cms.reconfiguration is not None:
        swapped = ok(swapped, AdvanceCMSReconfiguration())
    assert swapped.cms.members == {"A", "C", "D"}


@pytest.mark.parametrize(("size", "members"), [(1, 1), (2, 1), (3, 3), (5, 3), (6, 5), (100, 5), (101, 10)])
def test_cms_sizing_policy_follows_the_cep(size: int, members: int) -> None:
    assert cms_target_size(size) == members


def gossip_era(*versions: str) -> ClusterMetadata:
    nodes = tuple(NodeSpec(id=NodeId(n), location=Location(dc="dc1", rack="r1"), tokens=(100 * (i + 1),),
                           version=NodeVersion(release=v)) for i, (n, v) in enumerate(zip("ABC", versions, strict=False)))
    return ClusterMetadata.initial(Topology(nodes=nodes, keyspaces=()), cms_initialized=False)


def test_initialize_cms_runs_the_five_gates_with_their_messages() -> None:
    """The pre-upgrade seed's error reference, gate by gate."""
    m = gossip_era("6.0", "6.0", "5.0")
    assert reason(m, InitializeCMS(node="A", ignore={"A"})) == "Can't ignore local host A when doing CMS migration"
    assert reason(m, InitializeCMS(node="A", ignore={"Z"})) == "Ignored host(s) Z don't exist in the cluster"
    assert reason(m, InitializeCMS(node="A")) == "All nodes are not yet upgraded - C is running 5.0"
    m = ok(m, InitializeCMS(node="A", ignore={"C"}))
    assert m.cms.initialized and m.cms.reads == {"A"}
    assert reason(m, InitializeCMS(node="A", ignore={"C"})) == "Can't upgrade from gossip since CMS is already initialized"


def test_initialize_cms_needs_a_joined_initiator_and_no_other_migration() -> None:
    m = gossip_era("6.0", "6.0", "6.0")
    m2 = ok(m, Register(node=NodeId("X"), location=Location(dc="dc1", rack="r1")))
    assert reason(m2, InitializeCMS(node="X")) == "Initial CMS node needs to be fully joined, not: REGISTERED"
    from attrs import evolve

    other = evolve(m, cms=evolve(m.cms, migration_initiator=NodeId("B")))
    assert reason(other, InitializeCMS(node="A")) == "Migration already initiated by B"


def test_unsafe_join_does_all_four_steps_in_one_epoch() -> None:
    m = ClusterMetadata.initial(ring(node("A", 100), node("B", 200), node("C", 300)))
    m = ok(m, Register(node=NodeId("X"), location=Location(dc="dc1", rack="r1")))
    m = ok(m, UnsafeJoin(node="X", tokens=(150,)))
    assert m.epoch == 2
    assert table(m) == {(300, 100): "AX", (100, 150): "BX", (150, 200): "BC", (200, 300): "AC"}


def test_assassinate_removes_a_node_in_one_epoch() -> None:
    m = ok(ClusterMetadata.initial(RING), Assassinate(node="D"))
    assert m.epoch == 1 and "D" not in m.token_map.owners()
    assert table(m) == {(300, 100): "AB", (100, 200): "BC", (200, 300): "AC"}


def test_alter_topology_is_rejected_when_it_would_move_replicas() -> None:
    from spec.replication import NetworkTopologyStrategy

    nts = ring(node("A", 100), node("B", 200, rack="r2"), node("C", 300, rack="r3"),
               replication=NetworkTopologyStrategy.of({"dc1": 1}))
    m = ClusterMetadata.initial(nts)
    assert "would change data placements" in reason(m, AlterTopology(changes=((NodeId("A"), Location(dc="dc2", rack="r1")),)))
    m2 = ok(m, AlterTopology(changes=((NodeId("A"), Location(dc="dc1", rack="r9")),)))
    assert m2.directory.location("A").rack == "r9"


def test_trigger_snapshot_only_advances_the_epoch() -> None:
    m = ClusterMetadata.initial(RING)
    m2 = ok(m, TriggerSnapshot())
    assert m2.epoch == m.epoch + 1 and m2.placements == m.placements and m2.directory == m.directory
