"""The prover over real spec histories: a 3-DC vnode cluster through join, leave, move, replace.

CEP-21: "the effects of each step of the operation must be visible to a majority of the current
and proposed members of the RG before the next step is executed" — with that, every pair of
consecutive epochs intersects at QUORUM, LOCAL_QUORUM and EACH_QUORUM.
"""

from __future__ import annotations

import random

import pytest

from checkers.quorum import exhaustive, z3prover
from checkers.quorum.barrier import prove_barrier
from checkers.quorum.from_spec import history_from_states
from checkers.quorum.model import History
from spec.consistency import ConsistencyLevel as CL
from spec.nodes import Location, NodeId
from spec.operations import Join, Leave, Move, Operation, Replace, run_operations
from spec.replication import NetworkTopologyStrategy, SimpleStrategy
from spec.topology import NodeSpec, Topology


def cluster_history(nodes: int = 12, tokens: int = 4, seed: int = 3) -> History:
    rng = random.Random(seed)
    pool: list[int] = []
    while len(pool) < (nodes + 2) * tokens:
        t = rng.randrange(-(2**62), 2**62)
        if t not in pool:
            pool.append(t)
    specs = tuple(NodeSpec(id=NodeId(f"n{i:02d}"), location=Location(dc=f"dc{i % 3 + 1}", rack=f"r{i // 3 % 2}"),
                           tokens=tuple(pool[i * tokens:(i + 1) * tokens])) for i in range(nodes))
    topo = Topology(nodes=specs, keyspaces=(("nts", NetworkTopologyStrategy.of({"dc1": 2, "dc2": 2, "dc3": 2})),
                                            ("rf3", SimpleStrategy(replication_factor=3))))
    spare = pool[nodes * tokens:]
    ops: list[Operation] = [
        Join(node=NodeSpec(id=NodeId("x"), location=Location(dc="dc1", rack="r0"), tokens=tuple(spare[:tokens]))),
        Leave(node=NodeId("n04")),
        # a vnode move: SingleNodeSequences.move refuses a node with several tokens, so these
        # are the transformations alone (the prover's subject), past the operator layer
        Move(node=NodeId("n05"), tokens=tuple(spare[tokens:]), operator_checks=False),
        Replace(node=NodeId("n06"), by=NodeSpec(id=NodeId("y"), location=Location(dc="dc1", rack="r1"))),
    ]
    run = run_operations(topo, ops)
    assert run.rejection is None, run.rejection
    return history_from_states(run.states)


@pytest.fixture(scope="module")
def history() -> History:
    return cluster_history()


@pytest.mark.parametrize(("read_cl", "write_cl"), [
    (CL.QUORUM, CL.QUORUM), (CL.LOCAL_QUORUM, CL.LOCAL_QUORUM), (CL.EACH_QUORUM, CL.EACH_QUORUM),
    (CL.ONE, CL.ALL), (CL.LOCAL_QUORUM, CL.EACH_QUORUM),
])
def test_consecutive_epochs_of_four_operations_intersect(history: History, read_cl: CL, write_cl: CL) -> None:
    v = z3prover.prove_history(history, read_cl=read_cl, write_cl=write_cl)
    assert v.valid is True, v.counterexamples[:3]


def test_the_exhaustive_simulator_agrees_on_a_real_history(history: History) -> None:
    for window in (1, 2):
        by_z3 = z3prover.prove_history(history, window=window)
        by_enum = exhaustive.prove_history(history, window=window)
        assert (by_z3.valid, by_z3.checked) == (by_enum.valid, by_enum.checked)
        assert {(c.keyspace, c.range, c.read_epoch, c.write_epoch) for c in by_z3.counterexamples} == {
            (c.keyspace, c.range, c.read_epoch, c.write_epoch) for c in by_enum.counterexamples}


def test_the_barrier_theorem_holds_at_each_quorum_and_fails_at_one(history: History) -> None:
    assert prove_barrier(history).valid is True
    assert prove_barrier(history, barrier_cl=CL.ONE).valid is False


def test_thirty_nodes_with_sixteen_tokens_are_proved() -> None:
    """Its time is benchmarks/bench_prover.py's to report (target: under 10 s)."""
    h = cluster_history(nodes=30, tokens=16, seed=7)
    v = z3prover.prove_history(h)
    assert v.valid is True and v.checked > 10_000


def test_each_quorum_reads_against_local_quorum_writes_fail_for_a_simple_strategy_keyspace(history: History) -> None:
    """Under SimpleStrategy EACH_QUORUM is a plain QUORUM, which a LOCAL_QUORUM write can miss
    once a pending replica in another DC is in play (read {n02, n10}, write {n05, n08})."""
    v = z3prover.prove_history(history, read_cl=CL.EACH_QUORUM, write_cl=CL.LOCAL_QUORUM)
    assert v.valid is False
    assert {c.keyspace for c in v.counterexamples} == {"rf3"}
