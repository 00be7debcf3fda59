"""States the old rules made unreachable, reached by spec and impl alike (Cassandra's rules).

Each case runs the same wire-format transformations through the spec and impl/metadata and
checks that both accept or reject every step, then looks at the state Cassandra reaches.
"""

from __future__ import annotations

from typing import Any

from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from impl.metadata import Accepted, Metadata, execute
from spec.invariants import check_invariants
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.tokens import MIN_TOKEN
from spec.transformations import Rejected


def topology(nodes: list[tuple[str, list[int], str, str]], keyspaces: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"nodes": [{"id": n, "dc": dc, "rack": rack, "tokens": t} for n, t, dc, rack in nodes],
            "keyspaces": [{"name": k, "replication": r} for k, r in keyspaces.items()]}


def both(doc: dict[str, Any], steps: list[dict[str, Any]]) -> tuple[ClusterMetadata, Metadata, list[str | None]]:
    """Run `steps` through spec and impl; both must agree on every acceptance. Returns the final
    states and, per step, None (accepted) or the spec's reason (rejected)."""
    spec_m = ClusterMetadata.initial(parse_topology(doc, "test"))
    impl_m = Metadata.from_topology(doc)
    verdicts: list[str | None] = []
    for t in steps:
        s = parse_transformation(t, "test").execute(spec_m)
        i = execute(impl_m, t)
        assert isinstance(s, Rejected) == (not isinstance(i, Accepted)), (t, s, i)
        if isinstance(s, Rejected):
            verdicts.append(s.reason)
            continue
        assert isinstance(i, Accepted)
        spec_m, impl_m = s.metadata, i.metadata
        verdicts.append(None)
    return spec_m, impl_m, verdicts


RING4 = [("A", [100], "dc1", "r1"), ("B", [200], "dc1", "r1"), ("C", [300], "dc1", "r1"), ("D", [400], "dc1", "r1")]
SIMPLE = {"ks": {"class": "SimpleStrategy", "replication_factor": 2}}


def register(node: str, dc: str = "dc1", rack: str = "r1") -> dict[str, Any]:
    return {"kind": "REGISTER", "node": {"id": node, "dc": dc, "rack": rack}}


def test_a_node_whose_join_is_prepared_can_be_unregistered() -> None:
    """Unregister checks only the states its caller allows (abortbootstrap: REGISTERED,
    BOOTSTRAPPING, BOOT_REPLACING); PrepareJoin leaves the node REGISTERED."""
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
        {"kind": "UNREGISTER", "node": "X", "allowed": ["REGISTERED", "BOOTSTRAPPING", "BOOT_REPLACING"]},
        {"kind": "START_JOIN", "node": "X"},
        {"kind": "CANCEL_SEQUENCE", "node": "X"}])
    assert verdicts[:3] == [None, None, None]
    assert (verdicts[3] or "").startswith("X: START_JOIN: commit failed: Transformer.build()")
    assert verdicts[4] is None  # the lock is only released by a cancel
    assert "X" not in spec_m.directory and "X" not in impl_m.directory
    assert not spec_m.locked_ranges and not impl_m.sequences


def test_two_concurrent_leaves_count_each_other_as_joined() -> None:
    """PrepareLeave counts JOINED nodes; a prepared leave's node is still JOINED (StartLeave
    sets LEAVING). Six nodes, RF 2: leaves of A and D lock disjoint ranges, each counts 6."""
    ring6 = [(n, [100 * (i + 1)], "dc1", "r1") for i, n in enumerate("ABCDEF")]
    spec_m, impl_m, verdicts = both(topology(ring6, SIMPLE), [
        {"kind": "PREPARE_LEAVE", "node": "B"}, {"kind": "PREPARE_LEAVE", "node": "E"}])
    assert verdicts == [None, None]
    assert spec_m.directory.state("B") is NodeState.JOINED and spec_m.directory.state("E") is NodeState.JOINED
    assert sorted(impl_m.sequences) == ["B", "E"]


def test_a_started_leave_no_longer_counts() -> None:
    """Three nodes, RF 2: after START_LEAVE of A only B and C are JOINED, so B may not leave."""
    ring3 = RING4[:3]
    _, _, verdicts = both(topology(ring3, SIMPLE), [
        {"kind": "PREPARE_LEAVE", "node": "B"}, {"kind": "START_LEAVE", "node": "B"},
        {"kind": "PREPARE_LEAVE", "node": "C", "force": False}])
    assert verdicts[:2] == [None, None]
    assert verdicts[2] is not None and "not enough live nodes" in verdicts[2]


def test_a_replacement_in_another_dc_is_accepted() -> None:
    """PrepareReplace has no DC check (finding cross-dc-replace)."""
    nts = {"ks": {"class": "NetworkTopologyStrategy", "dc1": 2, "dc2": 1}}
    nodes = [*RING4, ("E", [500], "dc2", "r1")]
    spec_m, impl_m, verdicts = both(topology(nodes, nts), [
        register("X", dc="dc2"), {"kind": "PREPARE_REPLACE", "node": "X", "replaced": "C"},
        {"kind": "START_REPLACE", "node": "X"}, {"kind": "MID_REPLACE", "node": "X"},
        {"kind": "FINISH_REPLACE", "node": "X"}])
    assert verdicts == [None] * 5
    assert spec_m.token_map.owner_of(300) == "X" and impl_m.token_map.owner_of(300) == "X"
    assert "C" not in spec_m.directory and "C" not in impl_m.directory  # FinishReplace drops it


def test_a_node_may_own_the_minimum_token() -> None:
    nodes = [("A", [MIN_TOKEN], "dc1", "r1"), ("B", [0], "dc1", "r1"), ("C", [100], "dc1", "r1")]
    spec_m, impl_m, verdicts = both(topology(nodes, SIMPLE), [
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [50]},
        {"kind": "START_JOIN", "node": "X"}, {"kind": "MID_JOIN", "node": "X"},
        {"kind": "FINISH_JOIN", "node": "X"}])
    assert verdicts == [None] * 5
    assert spec_m.token_map.owner_of(MIN_TOKEN) == "A"
    assert check_invariants(spec_m) == ()
    assert impl_m.placements_json() == Metadata.from_topology(
        topology([*nodes, ("X", [50], "dc1", "r1")], SIMPLE)).placements_json()


def test_two_ranges_touching_the_minimum_token_conflict() -> None:
    """LockedRanges: a range ending at MIN and one starting there meet at the minimum token.
    RF 1; A owns MIN: A's leave locks (300, MIN] and (MIN, 100]; a join at 350 locks (300, MIN]
    too; a join at 50 locks (MIN, 100] only: it conflicts through the MIN rule."""
    nodes = [("A", [MIN_TOKEN], "dc1", "r1"), ("B", [100], "dc1", "r1"), ("C", [300], "dc1", "r1")]
    one = {"ks": {"class": "SimpleStrategy", "replication_factor": 1}}
    _, _, verdicts = both(topology(nodes, one), [
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [350]},
        register("Y"), {"kind": "PREPARE_JOIN", "node": "Y", "tokens": [50]}])
    assert verdicts[:3] == [None, None, None]
    assert verdicts[3] is not None and "conflicts with ranges locked by X" in verdicts[3]


def test_a_left_node_may_join_again() -> None:
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_LEAVE", "node": "D"}, {"kind": "START_LEAVE", "node": "D"},
        {"kind": "MID_LEAVE", "node": "D"}, {"kind": "FINISH_LEAVE", "node": "D"},
        {"kind": "PREPARE_JOIN", "node": "D", "tokens": [450]}])
    assert verdicts == [None] * 5
    assert spec_m.directory.state("D") is NodeState.LEFT  # StartJoin makes it BOOTSTRAPPING


def test_schema_ddl_during_a_cms_reconfiguration_is_rejected_by_both() -> None:
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B"]},
        {"kind": "SCHEMA_CHANGE", "change": {"op": "CREATE_KEYSPACE", "keyspace": "k2",
                                             "replication": {"class": "SimpleStrategy", "replication_factor": 1}}},
        {"kind": "ADVANCE_CMS_RECONFIGURATION", "sequence_index": 0},
        {"kind": "ADVANCE_CMS_RECONFIGURATION", "sequence_index": 0},
        {"kind": "ADVANCE_CMS_RECONFIGURATION", "sequence_index": 1},
        {"kind": "ADVANCE_CMS_RECONFIGURATION", "sequence_index": 2},
        {"kind": "SCHEMA_CHANGE", "change": {"op": "CREATE_KEYSPACE", "keyspace": "k2",
                                             "replication": {"class": "SimpleStrategy", "replication_factor": 1}}},
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": [], "remove": ["C"]}])
    assert verdicts[0] is None and verdicts[1] is not None and "affects placements" in verdicts[1]
    assert verdicts[2] is None and verdicts[3] is not None  # a duplicate ADVANCE is rejected
    assert verdicts[4:7] == [None, None, None]
    assert verdicts[7] is not None  # C is not a member
    assert spec_m.cms.reconfiguration is None and not impl_m.cms.reconfiguring


def test_an_unchanged_cms_membership_commits_as_a_no_op() -> None:
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B"], "remove": []},
        {"kind": "ADVANCE_CMS_RECONFIGURATION"}, {"kind": "ADVANCE_CMS_RECONFIGURATION"},
        {"kind": "ADVANCE_CMS_RECONFIGURATION"},
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": [], "remove": []}])
    assert verdicts[:4] == [None] * 4
    assert spec_m.cms.reconfiguration is None and not impl_m.cms.reconfiguring


def test_startup_changes_an_address_only_when_no_sequence_is_in_flight() -> None:
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "STARTUP", "node": "A", "version": "6.1"},
        {"kind": "STARTUP", "node": "A", "address": "B"},
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
        {"kind": "STARTUP", "node": "C", "address": "10.0.0.3"},
        {"kind": "CANCEL_SEQUENCE", "node": "X"},
        {"kind": "STARTUP", "node": "C", "address": "10.0.0.3"}])
    assert verdicts[0] is None and verdicts[1] is not None  # B's address is taken
    assert verdicts[4] is not None and "in-progress" in verdicts[4] or "in progress" in str(verdicts[4])
    assert verdicts[6] is None
    node_c = spec_m.directory.node(NodeId("C"))
    assert node_c.broadcast == "10.0.0.3" and impl_m.directory["C"].broadcast == "10.0.0.3"
    assert spec_m.directory.node(NodeId("A")).version.release == "6.1" and impl_m.directory["A"].version == "6.1"
