"""Worked cases beyond the CEP's example, each derived by hand in its docstring."""

from __future__ import annotations

import pytest

from spec.invariants import check_invariants
from spec.operations import Cancel, Join, Leave, Move, Remove, Replace, Resume, run_operations
from spec.replication import NetworkTopologyStrategy, SimpleStrategy
from spec.sequences import Step
from tests.spec.helpers import node, ring, run, table

RF2 = SimpleStrategy(replication_factor=2)
RF3 = SimpleStrategy(replication_factor=3)


def test_network_topology_strategy_prefers_distinct_racks() -> None:
    """dc1: A(r1)=100, B(r1)=200, C(r2)=300, D(r3)=400, RF 3. Walking from A: A (r1), B is a
    rack repeat and waits, C (r2), D (r3): three racks, done, so B is skipped. Only the walk
    that starts at B itself, B C D, takes B."""
    topo = ring(node("A", 100, rack="r1"), node("B", 200, rack="r1"), node("C", 300, rack="r2"),
                node("D", 400, rack="r3"), replication=NetworkTopologyStrategy.of({"dc1": 3}))
    m = run(topo).final
    assert table(m) == {(400, 100): "ACD", (100, 200): "BCD", (200, 300): "ACD", (300, 400): "ACD"}


def test_rack_repeats_fill_in_walk_order_when_racks_run_out() -> None:
    """Two racks, RF 3: A(r1)=100, B(r1)=200, C(r2)=300, D(r2)=400. From A: A, B waits, C
    completes the racks, then the first repeat met (B) fills the third place: {A,B,C}.
    From C: C, D waits, A completes the racks, D fills: {A,C,D}."""
    topo = ring(node("A", 100, rack="r1"), node("B", 200, rack="r1"), node("C", 300, rack="r2"),
                node("D", 400, rack="r2"), replication=NetworkTopologyStrategy.of({"dc1": 3}))
    m = run(topo).final
    assert table(m) == {(400, 100): "ABC", (100, 200): "BCD", (200, 300): "ACD", (300, 400): "ABD"}


def test_network_topology_strategy_counts_each_dc_and_caps_at_its_nodes() -> None:
    """dc1 = A(100), B(300); dc2 = E(200), F(400); {dc1: 3, dc2: 1}: dc1 has only two nodes,
    so every range gets both of them (RF capped), plus the first dc2 node clockwise."""
    topo = ring(node("A", 100), node("B", 300), node("E", 200, dc="dc2"), node("F", 400, dc="dc2"),
                replication=NetworkTopologyStrategy.of({"dc1": 3, "dc2": 1}))
    m = run(topo).final
    assert table(m) == {(400, 100): "ABE", (100, 200): "ABE", (200, 300): "ABF", (300, 400): "ABF"}


def test_move_splits_at_the_new_token_and_merges_at_the_old_one() -> None:
    """A=100, B=200, C=300, D=400, RF 2; B moves to 350. After: (400,100] A C, (100,300] C B
    (200 is no longer a token: merged), (300,350] B D, (350,400] D A. While moving, the write
    groups hold both owners: (400,100] gains C, (200,300] gains B, (300,350] gains B."""
    topo = ring(node("A", 100), node("B", 200), node("C", 300), node("D", 400))
    result = run(topo, Move(node="B", tokens=(350,)))
    start = result.states[2]
    assert result.kinds[2] == "START_MOVE"
    assert table(start, direction="writes") == {
        (400, 100): "ABC", (100, 200): "BC", (200, 300): "BCD", (300, 350): "ABD", (350, 400): "AD"}
    assert table(result.final) == {(400, 100): "AC", (100, 300): "BC", (300, 350): "BD", (350, 400): "AD"}
    assert result.final.token_map.tokens_of("B") == (350,)
    assert all(check_invariants(m) == () for m in result.states)


def test_replace_hands_every_range_of_the_replaced_node_to_the_replacement() -> None:
    """A..D at 100..400, RF 3; E replaces C. E is a write replica wherever C is one from
    START_REPLACE, takes C's reads at MID_REPLACE, and owns token 300 after FINISH."""
    topo = ring(node("A", 100), node("B", 200), node("C", 300), node("D", 400), replication=RF3)
    before = table(run(topo).final)
    result = run(topo, Replace(node="C", by=node("E")))
    assert result.kinds[1:] == ("REGISTER", "PREPARE_REPLACE", "START_REPLACE", "MID_REPLACE", "FINISH_REPLACE")
    start = result.states[3]
    for r, replicas in before.items():
        expected = "".join(sorted(replicas + "E")) if "C" in replicas else replicas
        assert table(start, direction="writes")[r] == expected
    assert table(result.final) == {r: "".join(sorted(v.replace("C", "E"))) for r, v in before.items()}
    assert result.final.token_map.owner_of(300) == "E"
    assert "C" not in result.final.directory  # FinishReplace drops the replaced node
    assert all(check_invariants(m) == () for m in result.states)


def test_remove_of_a_dead_node_runs_the_leave_steps() -> None:
    """A..D at 100..400, RF 2; D is removed. (200,300] C D becomes C A and (300,400] D A
    becomes A B; FINISH merges (300,400] into (300,100]."""
    topo = ring(node("A", 100), node("B", 200), node("C", 300), node("D", 400))
    result = run(topo, Remove(node="D"))
    assert result.kinds[1:] == ("PREPARE_LEAVE", "START_LEAVE", "MID_LEAVE", "FINISH_LEAVE")
    assert table(result.final) == {(300, 100): "AB", (100, 200): "BC", (200, 300): "AC"}


def test_vnodes_join_takes_one_replica_slot_in_each_range_it_lands_in() -> None:
    """A owns 100 and 300, B owns 200 and 400, RF 2: every range is {A,B}. X joins with 150
    and 350. Each new range's replicas are its owner and the next distinct node clockwise."""
    topo = ring(node("A", 100, 300), node("B", 200, 400))
    result = run(topo, Join(node=node("X", 150, 350)))
    assert table(result.final) == {
        (400, 100): "AX", (100, 150): "BX", (150, 200): "AB", (200, 300): "AX", (300, 350): "BX", (350, 400): "AB"}
    assert all(check_invariants(m) == () for m in result.states)


@pytest.mark.parametrize("until", [Step.PREPARE, Step.START, Step.MID])
def test_cancel_restores_the_placements_from_before_prepare(until: Step) -> None:
    """CEP: "the metadata changes which added the bootstrapping node as a pending replica are
    reversed and the cluster metadata is returned to its prior state"."""
    topo = ring(node("A", 100), node("B", 200), node("C", 300))
    result = run(topo, Join(node=node("X", 150), until=until), Cancel(node="X"))
    before = result.states[1]  # after REGISTER
    assert result.final.placements == before.placements
    assert not result.final.locked_ranges and not result.final.in_progress
    assert result.final.directory.state("X").name == "REGISTERED"


def test_overlapping_operations_are_rejected_by_range_locks() -> None:
    """X at 150 locks (100,200] (pre-split) and the ranges it takes over; Y at 120 lies inside."""
    topo = ring(node("A", 100), node("B", 200), node("C", 300))
    result = run_operations(topo, [Join(node=node("X", 150), until=Step.PREPARE), Join(node=node("Y", 120))])
    assert result.rejection is not None and "locked by X" in result.rejection


def test_disjoint_operations_interleave() -> None:
    """Six nodes 100..600, RF 2: X at 150 and Y at 450 touch disjoint ranges, so their steps
    may interleave and both finish; the result equals running them one after the other."""
    nodes = [node(n, t) for n, t in zip("ABCDEF", range(100, 700, 100), strict=True)]
    topo = ring(*nodes)
    interleaved = run(topo, Join(node=node("X", 150), until=Step.START), Join(node=node("Y", 450), until=Step.MID),
                      Resume(node="X"), Resume(node="Y"))
    sequential = run(topo, Join(node=node("X", 150)), Join(node=node("Y", 450)))
    assert interleaved.final.placements == sequential.final.placements
    assert all(check_invariants(m) == () for m in interleaved.states)


def test_leave_is_rejected_when_a_dc_would_have_fewer_nodes_than_rf() -> None:
    topo = ring(node("A", 100), node("B", 200), node("C", 300), replication=RF3)
    result = run_operations(topo, [Leave(node="B")])
    assert result.rejection is not None and "replication factor 3" in result.rejection


def test_steps_out_of_order_are_rejected() -> None:
    from spec.transformations import MidJoin, Rejected

    topo = ring(node("A", 100), node("B", 200), node("C", 300))
    m = run(topo, Join(node=node("X", 150), until=Step.PREPARE)).final
    verdict = MidJoin(node="X").execute(m)
    assert isinstance(verdict, Rejected) and "out of order" in verdict.reason
