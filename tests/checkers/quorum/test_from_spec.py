"""The adapter from spec metadata to the prover's input (checkers/quorum/from_spec.py).

Golden README: after StartJoin (0,100] reads {A,B} / writes {A,B,X} ... the spec's states must
reach the prover unchanged, range by range and epoch by epoch.
"""

from __future__ import annotations

from checkers.quorum.from_spec import history_from_states
from checkers.quorum.z3prover import prove_history
from spec.nodes import Location, NodeId
from spec.operations import Join, Leave, run_operations
from spec.replication import NetworkTopologyStrategy, SimpleStrategy
from spec.topology import NodeSpec, Topology
from tests.checkers.quorum.rings import rf3_join_x


def node(name: str, token: int, dc: str = "dc1", rack: str = "r1") -> NodeSpec:
    return NodeSpec(id=NodeId(name), location=Location(dc=dc, rack=rack), tokens=(token,))


RF3_RING = Topology(nodes=tuple(node(n, t) for n, t in (("A", 100), ("B", 200), ("C", 300), ("D", 400))),
                    keyspaces=(("ks", SimpleStrategy(replication_factor=3)),))


def test_the_spec_join_of_x_is_the_ceps_table_epoch_by_epoch() -> None:
    run = run_operations(RF3_RING, [Join(node=node("X", 150))])
    assert run.rejection is None
    h = history_from_states(run.states)
    expected = rf3_join_x()
    assert [e.epoch for e in h.epochs] == [0, 1, 2, 3, 4, 5]
    assert [e.keyspaces for e in h.epochs] == [e.keyspaces for e in expected.epochs]
    assert h.dc_map() == dict.fromkeys("ABCDX", "dc1")
    assert all(e.cms_reads == e.cms_writes == frozenset("A") for e in h.epochs)


def test_nodes_that_left_keep_their_datacenter() -> None:
    run = run_operations(RF3_RING, [Join(node=node("X", 150)), Leave(node=NodeId("X"))])
    assert run.rejection is None
    h = history_from_states(run.states)
    assert "X" in h.dc_map()
    assert prove_history(h).valid is True


def test_network_topology_keyspaces_keep_their_dc_factors() -> None:
    topo = Topology(nodes=(node("A", 100), node("B", 200), node("C", 300, "dc2"), node("D", 400, "dc2")),
                    keyspaces=(("nts", NetworkTopologyStrategy.of({"dc1": 2, "dc2": 2})),))
    h = history_from_states(run_operations(topo, [Join(node=node("X", 150, "dc2"))]).states)
    assert h.epochs[0].keyspaces[0].replication == NetworkTopologyStrategy.of({"dc1": 2, "dc2": 2})
    assert prove_history(h).valid is True
