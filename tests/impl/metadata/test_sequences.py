"""Move, replace, remove, vnodes; steps out of order, range locks, RF floors; cancel at each step."""

from __future__ import annotations

from typing import Any

import pytest

from impl.metadata import Metadata, Rejected
from tests.impl.metadata.helpers import (
    at_rest_matches_scratch,
    groups,
    join,
    ok,
    register,
    rejected,
    run,
    rw,
    steps,
    topology,
)

RING = topology([("A", 100), ("B", 200), ("C", 300)])
RING4 = topology([("A", 100), ("B", 200), ("C", 300), ("D", 400)])


def base(doc: dict[str, Any] = RING) -> Metadata:
    return Metadata.from_topology(doc)


def test_move_splits_at_the_new_token_and_merges_at_the_old_one() -> None:
    """Move: PREPARE splits at the new tokens; FINISH swaps tokens and merges at the old ones."""
    m = ok(base(RING4), {"kind": "PREPARE_MOVE", "node": "B", "tokens": [250]})
    assert m.node_state("B").value == "MOVING"  # PrepareMove.execute sets MOVING (trunk 6bbe85ef)
    assert (200, 250) in groups(m) and (100, 200) in groups(m)
    m = ok(m, steps("MOVE", "B")[0])
    assert m.node_state("B").value == "MOVING"
    # B gains (200, 250] as primary: it becomes a write replica of it before reads move
    assert groups(m)[(200, 250)] == rw("CD", "BCD")
    m = run(m, steps("MOVE", "B")[1:])
    assert m.tokens_of("B") == (250,)
    assert groups(m) == {
        (400, 100): rw("AB", "AB"),
        (100, 250): rw("BC", "BC"),
        (250, 300): rw("CD", "CD"),
        (300, 400): rw("DA", "DA"),
    }
    assert m.node_state("B").value == "JOINED"
    assert at_rest_matches_scratch(m)


def test_replace_hands_the_replaced_nodes_ranges_to_the_replacement() -> None:
    """Replace: START adds the replacement wherever the replaced node is a replica; MID swaps it
    into reads; FINISH removes the replaced node; its tokens move to the replacement."""
    m = run(base(), [register("D"), {"kind": "PREPARE_REPLACE", "node": "D", "replaced": "B"}])
    assert m.node_state("D").value == "REGISTERED"  # StartReplace sets the state
    m = ok(m, steps("REPLACE", "D")[0])
    assert m.node_state("D").value == "BOOT_REPLACING"
    assert groups(m) == {(300, 100): rw("AB", "ABD"), (100, 200): rw("BC", "BCD"), (200, 300): rw("CA", "CA")}
    m = ok(m, steps("REPLACE", "D")[1])
    assert groups(m) == {(300, 100): rw("AD", "ABD"), (100, 200): rw("DC", "BCD"), (200, 300): rw("CA", "CA")}
    m = ok(m, steps("REPLACE", "D")[2])
    assert groups(m) == {(300, 100): rw("AD", "AD"), (100, 200): rw("DC", "DC"), (200, 300): rw("CA", "CA")}
    assert m.tokens_of("D") == (200,) and m.tokens_of("B") == ()
    assert "B" not in m.directory and m.node_state("D").value == "JOINED"  # Transformer.replaced


def test_removenode_takes_the_same_steps_as_a_decommission() -> None:
    m = run(base(RING4), [{"kind": "PREPARE_LEAVE", "node": "C", "remove": True}, *steps("LEAVE", "C")])
    assert m.node_state("C").value == "LEFT"
    assert groups(m)[(200, 400)] == rw("DA", "DA")
    assert at_rest_matches_scratch(m)


def test_vnode_join_splits_every_range_it_lands_in() -> None:
    m = run(base(RING4), join("X", [50, 150, 350]))
    assert m.tokens_of("X") == (50, 150, 350)
    assert len(groups(m)) == 7
    assert at_rest_matches_scratch(m)
    m = run(m, [{"kind": "PREPARE_LEAVE", "node": "X"}, *steps("LEAVE", "X")])
    assert groups(m) == groups(base(RING4))


def test_unsafe_join_and_assassinate_take_one_epoch() -> None:
    m = run(base(RING4), [register("X"), {"kind": "UNSAFE_JOIN", "node": "X", "tokens": [150]}])
    assert m.epoch == 2 and m.node_state("X").value == "JOINED" and not m.sequences
    assert at_rest_matches_scratch(m)
    m = ok(m, {"kind": "ASSASSINATE", "node": "C"})
    assert m.epoch == 3 and m.node_state("C").value == "LEFT" and not m.sequences
    assert at_rest_matches_scratch(m)


# -- rejections ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["START_JOIN", "MID_JOIN", "FINISH_JOIN"])
def test_join_steps_without_prepare_are_out_of_order(kind: str) -> None:
    m = ok(base(), register("X"))
    assert rejected(m, {"kind": kind, "node": "X"}) == f"X: {kind} out of order"


def test_skipping_a_step_is_out_of_order() -> None:
    m = run(base(), [register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]}])
    assert rejected(m, {"kind": "MID_JOIN", "node": "X"}) == "X: MID_JOIN out of order"
    assert rejected(m, {"kind": "START_LEAVE", "node": "X"}) == "X: START_LEAVE out of order"
    m = ok(m, {"kind": "START_JOIN", "node": "X"})
    assert rejected(m, {"kind": "START_JOIN", "node": "X"}) == "X: START_JOIN out of order"


def test_overlapping_operations_are_refused_by_range_locks() -> None:
    """CEP: operations on overlapping ranges are serialized by locks taken at PREPARE."""
    m = run(base(RING4), [register("X"), register("Y"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]}])
    assert rejected(m, {"kind": "PREPARE_JOIN", "node": "Y", "tokens": [160]}) == (
        "Y: range lock conflict with sequence of X"
    )
    assert rejected(m, {"kind": "PREPARE_LEAVE", "node": "B"}) == "B: range lock conflict with sequence of X"


def test_disjoint_operations_interleave_and_end_at_rest() -> None:
    doc = topology(
        [(n, t) for n, t in zip("ABCDEFGH", range(100, 900, 100), strict=True)],
        {"ks": {"class": "SimpleStrategy", "replication_factor": 1}},
    )
    m = run(base(doc), [register("X"), register("Y")])
    m = ok(m, {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]})
    m = ok(m, {"kind": "PREPARE_JOIN", "node": "Y", "tokens": [550]})
    m = run(m, [steps("JOIN", "Y")[0], steps("JOIN", "X")[0], steps("JOIN", "X")[1]])
    m = ok(m, {"kind": "PREPARE_LEAVE", "node": "H"})
    m = run(m, [*steps("JOIN", "Y")[1:], steps("JOIN", "X")[2], *steps("LEAVE", "H")])
    assert not m.sequences and at_rest_matches_scratch(m)


def test_a_node_runs_at_most_one_sequence() -> None:
    m = run(base(RING4), [{"kind": "PREPARE_MOVE", "node": "B", "tokens": [250]}])
    assert rejected(m, {"kind": "PREPARE_MOVE", "node": "B", "tokens": [260]}) == "B: a MOVE sequence is already in progress"
    # PrepareMove set MOVING, and PrepareLeave wants JOINED (its own state check comes first)
    assert rejected(m, {"kind": "PREPARE_LEAVE", "node": "B"}) == "B: cannot leave from state MOVING"
    m = run(base(RING4), [register("X"), {"kind": "PREPARE_REPLACE", "node": "X", "replaced": "B"}])
    assert rejected(m, {"kind": "PREPARE_LEAVE", "node": "B"}) == "B: is being replaced by X"


def test_tokens_must_be_free() -> None:
    m = ok(base(), register("X"))
    assert rejected(m, {"kind": "PREPARE_JOIN", "node": "X", "tokens": [200]}) == (
        "X: token 200 is already owned by B"
    )
    assert rejected(m, {"kind": "PREPARE_JOIN", "node": "X", "tokens": [2**63]}).startswith("malformed:")


def test_leave_below_rf_is_refused() -> None:
    """PrepareLeave: the JOINED nodes of the DC (SimpleStrategy: the cluster), the leaving node
    included, must outnumber the RF."""
    m = base(topology([("A", 100), ("B", 200)]))
    assert rejected(m, {"kind": "PREPARE_LEAVE", "node": "B"}) == (
        "B: not enough live nodes to maintain replication factor 2 of keyspace ks (2 JOINED)"
    )
    ok(m, {"kind": "PREPARE_LEAVE", "node": "B", "force": True})
    nts = {"ks": {"class": "NetworkTopologyStrategy", "dc1": 1, "dc2": 2}}
    m = base(topology([{"id": n, "dc": dc, "rack": "r1", "tokens": [t]} for n, dc, t in [("A", "dc1", 1), ("B", "dc2", 2), ("C", "dc2", 3), ("D", "dc1", 4)]], nts))
    assert rejected(m, {"kind": "PREPARE_LEAVE", "node": "C", "remove": True}) == (
        "C: not enough live nodes to maintain replication factor 2 of keyspace ks (2 JOINED)"
    )
    ok(m, {"kind": "PREPARE_LEAVE", "node": "D"})
    forced = ok(m, {"kind": "ASSASSINATE", "node": "C"})  # unsafe, like Cassandra's: no RF floor
    assert forced.node_state("C").value == "LEFT"


def test_leave_checks_only_the_leaving_nodes_dc() -> None:
    """dc2 is already below its RF; a leave in dc1 (above its RF) is not blocked by it. Once
    D has started leaving (LEAVING, not JOINED) C's leave counts 2 JOINED nodes: refused."""
    nts = {"ks": {"class": "NetworkTopologyStrategy", "dc1": 2, "dc2": 3}}
    nodes = [("A", "dc1", 1), ("B", "dc2", 2), ("C", "dc1", 3), ("D", "dc1", 4)]
    m = base(topology([{"id": n, "dc": dc, "rack": "r1", "tokens": [t]} for n, dc, t in nodes], nts))
    m = ok(m, {"kind": "PREPARE_LEAVE", "node": "D"})
    m = ok(m, {"kind": "START_LEAVE", "node": "D"})
    assert rejected(m, {"kind": "PREPARE_LEAVE", "node": "C"}) == (
        "C: not enough live nodes to maintain replication factor 2 of keyspace ks (2 JOINED)"
    )


def test_cms_member_cannot_leave_before_the_cms_is_reconfigured() -> None:
    assert rejected(base(RING4), {"kind": "PREPARE_LEAVE", "node": "A"}).startswith("A: is a CMS member")


def test_malformed_transformations() -> None:
    m = base()
    assert rejected(m, {"kind": "NOPE"}).startswith("malformed:")
    assert rejected(m, {"kind": "PREPARE_JOIN", "node": "X"}).startswith("malformed:")
    assert rejected(m, {"kind": "PREPARE_JOIN", "node": 3, "tokens": [1]}).startswith("malformed:")
    assert rejected(m, {"kind": "REGISTER", "node": {"id": "X"}}).startswith("malformed:")
    assert rejected(m, {"kind": "PREPARE_LEAVE", "node": "B", "remove": "yes"}).startswith("malformed:")


def test_register_twice_and_unregister() -> None:
    m = ok(base(), register("X"))
    assert rejected(m, register("X")) == "X: already registered"
    m = ok(m, {"kind": "UNREGISTER", "node": "X", "allowed": ["LEFT", "REGISTERED"]})
    assert "X" not in m.directory
    assert rejected(m, {"kind": "UNREGISTER", "node": "B", "allowed": ["LEFT"]}) == (
        "Can't unregister B - node state is JOINED not [LEFT]")


# -- cancel ----------------------------------------------------------------------------------

OPERATIONS = {
    "join": (RING4, [register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150, 350]}], "X", "JOIN"),
    "leave": (RING4, [{"kind": "PREPARE_LEAVE", "node": "C"}], "C", "LEAVE"),
    "move": (RING4, [{"kind": "PREPARE_MOVE", "node": "B", "tokens": [250, 50]}], "B", "MOVE"),
    "replace": (RING4, [register("X"), {"kind": "PREPARE_REPLACE", "node": "X", "replaced": "C"}], "X", "REPLACE"),
}


@pytest.mark.parametrize("done", [0, 1, 2], ids=["after-prepare", "after-start", "after-mid"])
@pytest.mark.parametrize("op", sorted(OPERATIONS))
def test_cancel_at_each_step_restores_the_previous_placements(op: str, done: int) -> None:
    """CEP: a sequence is cancelled by a compensating transformation, reverting its steps."""
    doc, prepare, node, kind = OPERATIONS[op]
    before = run(base(doc), prepare[:-1])
    m = run(before, [prepare[-1], *steps(kind, node)[:done]])
    cancelled = ok(m, {"kind": "CANCEL_SEQUENCE", "node": node})
    assert groups(cancelled) == groups(before)
    assert cancelled.placements_json() == before.placements_json()
    assert cancelled.node_state(node) == before.node_state(node)
    assert not cancelled.sequences and cancelled.locked_ranges() == {}
    assert at_rest_matches_scratch(cancelled)


def test_cancel_without_a_sequence_is_refused() -> None:
    assert rejected(base(), {"kind": "CANCEL_SEQUENCE", "node": "B"}) == "B: no sequence in progress to cancel"


def test_operations_whose_deltas_do_not_compose_end_off_the_natural_placement() -> None:
    """Found by the property test: with racks, replacing n3 by a node of another rack changes
    which replicas x0's ranges get, though the two operations' changed ranges are disjoint.
    Cassandra accepts both (finding nts-rack-composition); the fix composition-guard refuses
    the second PREPARE."""
    from impl.metadata.fixes import execute as execute_with
    nodes = [
        {"id": f"n{i}", "dc": "dc1", "rack": "r2" if i == 6 else "r1", "tokens": [t]}
        for i, t in enumerate([-5000, -4999, -4998, 0, -4997, -4996, -4995])
    ]
    ks = {"simple": {"class": "SimpleStrategy", "replication_factor": 1}, "nts": {"class": "NetworkTopologyStrategy", "dc1": 2}}
    m = run(base(topology(nodes, ks)), join("x0", [1]))
    m = run(m, [register("x1", "dc1", "r2"), {"kind": "PREPARE_REPLACE", "node": "x1", "replaced": "n3"}])
    leave = {"kind": "PREPARE_LEAVE", "node": "x0"}
    guarded = execute_with(m, leave, {"composition-guard"})
    assert isinstance(guarded, Rejected) and "does not compose with the sequence of x1" in guarded.reason
    both = run(m, [leave, *steps("REPLACE", "x1"), *steps("LEAVE", "x0")])
    assert not at_rest_matches_scratch(both)
    m = run(m, steps("REPLACE", "x1"))
    m = run(m, [leave, *steps("LEAVE", "x0")])
    assert at_rest_matches_scratch(m)


def test_the_last_owner_forced_out_leaves_a_ring_with_no_cut() -> None:
    """Replacing the only node (the replace-cms-member finding lets it) and then assassinating
    the replacement empties the ring: the placement must be the ownerless one from scratch, not
    a leftover cut at one of the old tokens (found by the placement property test's database)."""
    one = {"nodes": [{"id": "n0", "dc": "dc1", "rack": "r1", "tokens": [-5000, -4999]}],
           "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 1}}]}
    m = run(Metadata.from_topology(one), [register("x0"), {"kind": "PREPARE_REPLACE", "node": "x0", "replaced": "n0"},
                                          *steps("REPLACE", "x0"), {"kind": "ASSASSINATE", "node": "x0"}])
    assert m.token_map.tokens == ()
    for p in m.placements.values():
        assert (p.bounds, p.reads, p.writes) == ((), (), ())
