"""REGISTER/UNREGISTER, ALTER_TOPOLOGY, lookups for the simulator, and replacing a CMS member."""

from __future__ import annotations

import pytest

from impl.metadata import InvalidTopology, Metadata
from tests.impl.metadata.helpers import ok, register, rejected, run, steps, topology

NTS = {"ks": {"class": "NetworkTopologyStrategy", "dc1": 2}}


def racked(*nodes: tuple[str, str, int]) -> Metadata:
    return Metadata.from_topology(
        topology([{"id": n, "dc": "dc1", "rack": r, "tokens": [t]} for n, r, t in nodes], NTS)
    )


def test_alter_topology_that_keeps_placements_is_accepted() -> None:
    m = racked(("A", "r1", 100), ("B", "r2", 200), ("C", "r3", 300))
    m = ok(m, {"kind": "ALTER_TOPOLOGY", "changes": [{"node": "C", "dc": "dc1", "rack": "r9"}]})
    assert m.node_location("C") == ("dc1", "r9")


def test_alter_topology_that_moves_data_is_refused() -> None:
    m = racked(("A", "r1", 100), ("B", "r1", 200), ("C", "r2", 300), ("D", "r2", 400))
    reason = rejected(m, {"kind": "ALTER_TOPOLOGY", "changes": [{"node": "B", "dc": "dc1", "rack": "r2"}]})
    assert reason == "ALTER_TOPOLOGY: would change the placements of keyspace ks"
    assert rejected(m, {"kind": "ALTER_TOPOLOGY", "changes": [{"node": "Z", "dc": "dc1", "rack": "r2"}]}) == (
        "ALTER_TOPOLOGY: Z is not registered"
    )


def test_alter_topology_waits_for_sequences() -> None:
    m = run(racked(("A", "r1", 100), ("B", "r2", 200), ("C", "r3", 300)), [register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]}])
    assert rejected(m, {"kind": "ALTER_TOPOLOGY", "changes": [{"node": "C", "dc": "dc1", "rack": "r3"}]}).startswith(
        "ALTER_TOPOLOGY: not allowed while a sequence is in progress"
    )


def test_unregister_a_left_node() -> None:
    m = Metadata.from_topology(topology([("A", 100), ("B", 200), ("C", 300)]))
    m = run(m, [{"kind": "PREPARE_LEAVE", "node": "C"}, *steps("LEAVE", "C")])
    m = ok(m, {"kind": "UNREGISTER", "node": "C"})
    assert "C" not in m.directory
    assert rejected(m, {"kind": "UNREGISTER", "node": "C"}) == (
        "Can not unregister C since it is not present in the directory.")


def test_replacing_a_cms_member_is_accepted_and_leaves_a_member_outside_the_directory() -> None:
    """PrepareReplace has no CMS check (finding replace-cms-member): FINISH_REPLACE drops A from
    the directory while it is still the CMS. The fix replace-cms-member-guard refuses it."""
    from impl.metadata.fixes import execute as execute_with

    m = Metadata.from_topology(topology([("A", 100), ("B", 200), ("C", 300)]))
    m = run(m, [register("D")])
    replace = {"kind": "PREPARE_REPLACE", "node": "D", "replaced": "A"}
    assert "(fix replace-cms-member-guard)" in execute_with(m, replace, {"replace-cms-member-guard"}).reason  # type: ignore[union-attr]
    done = run(m, [replace, *steps("REPLACE", "D")])
    assert "A" in done.cms_members() and "A" not in done.directory
    m = run(m, [{"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B"], "remove": ["A"]},
                *[{"kind": "ADVANCE_CMS_RECONFIGURATION"}] * 3,
                {"kind": "PREPARE_REPLACE", "node": "D", "replaced": "A"}, *steps("REPLACE", "D")])
    assert m.cms_members() == ("B",)


def test_barrier_groups_name_the_replicas_of_locked_ranges() -> None:
    """The progress barrier waits on the union of read and write groups of the locked ranges."""
    m = Metadata.from_topology(topology([("A", 100), ("B", 200), ("C", 300)]))
    m = run(m, [register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]}, steps("JOIN", "X")[0]])
    groups = m.barrier_groups("X")
    touched = set().union(*(r | w for _, _, r, w in groups))
    assert touched == {"A", "B", "C", "X"}
    assert m.barrier_groups("A") == []
    assert m.in_progress() == {"X": ("JOIN", "MID")}


def test_from_gossip_rejects_unknown_nodes_in_overrides() -> None:
    doc = topology([("A", 100)])
    with pytest.raises(InvalidTopology):
        Metadata.from_gossip(doc, versions={"Z": "5.0"})
    with pytest.raises(InvalidTopology):
        Metadata.from_gossip(doc, states={"A": "SLEEPING"})
    g = Metadata.from_gossip(doc)
    assert not g.cms_initialized and g.cms_members() == ()
