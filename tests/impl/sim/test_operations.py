"""Topology operations driven by the nodes themselves, under client load (QUORUM reads and
writes judged by the kv linearizability checker): crash between START and MID and resume,
operator cancel after START, overlapping operations rejected while disjoint ones run
concurrently."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import judge
from impl.cluster import Cluster
from observed.run import Observed

STEP = 2**64 // 8


def ring(n: int, rf: int) -> dict[str, Any]:
    return {"nodes": [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [-(2**63) + STEP * i - 1]}
                      for i in range(1, n + 1)],
            "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy",
                                                         "replication_factor": rf}}]}


def doc(topology: dict[str, Any], **extra: Any) -> dict[str, Any]:
    nodes = [n["id"] for n in topology["nodes"]]
    return {"topology": topology, "cms": {"size": 1},
            "clients": [{"keyspace": "ks", "count": 300, "spread_ms": 8000, "keys": 6,
                         "nodes": nodes}],
            "faults": {"loss": 0.02, "latency": {"dist": "uniform", "min_ms": 1, "max_ms": 10}},
            "settings": {"end_time_ms": 60000}, **extra}


def run(d: dict[str, Any], seed: int) -> tuple[Cluster, Observed]:
    scenario = parse_scenario(d)
    cluster = Cluster(scenario, seed)
    result = cluster.run()
    judgement = judge(scenario, result)
    assert judgement.valid, judgement.summary()
    assert "clients" in judgement.summary() and len(result.client_history) >= 200
    return cluster, result


def test_a_node_crashing_between_start_and_mid_resumes_and_completes() -> None:
    topo = ring(4, 3)
    d = doc(topo, operations=[{"op": "join", "node": "j1", "tokens": [-(2**63) + STEP * 5 // 2],
                               "at_ms": 500}])
    # find the moment START commits, then crash the joining node right after it
    cluster = Cluster(parse_scenario(d), 3, keep_trace=True)
    cluster.run()
    start = next(int(line.split()[0]) for line in cluster.trace.lines if "START_JOIN" in line
                 and " commit " in line)
    d["faults"]["crashes"] = [{"node": "j1", "at_ms": start / 1e6 + 1, "restart_ms": start / 1e6 + 3000}]
    cluster, result = run(d, 3)
    kinds = [e.kind for e in result.node("n1").entries]
    assert kinds == ["REGISTER", "PREPARE_JOIN", "START_JOIN", "MID_JOIN", "FINISH_JOIN"]
    assert [(o.node, o.op, o.outcome) for o in result.operations] == [("j1", "join", "completed")]
    assert result.counter("crashes") == 1 and result.counter("restarts") == 1
    meta = cluster.nodes["n1"].log.metadata  # type: ignore[union-attr]
    assert meta.node_state("j1").value == "JOINED"


def test_cancel_after_start_restores_the_previous_placements_on_every_node() -> None:
    topo = ring(4, 3)
    d = doc(topo, operations=[{"op": "join", "node": "j1", "tokens": [-(2**63) + STEP * 5 // 2],
                               "at_ms": 500}])
    cluster = Cluster(parse_scenario(d), 5, keep_trace=True)
    cluster.run()
    start = next(int(line.split()[0]) for line in cluster.trace.lines if "START_JOIN" in line
                 and " commit " in line)
    # the joining node fails for good right after START; the operator cancels from elsewhere
    d["faults"]["crashes"] = [{"node": "j1", "at_ms": start / 1e6 + 0.5}]
    d["cancels"] = [{"node": "j1", "at_ms": start / 1e6 + 100}]
    cluster, result = run(d, 5)
    kinds = [e.kind for e in result.node("n1").entries]
    assert "START_JOIN" in kinds and kinds[-1] == "CANCEL_SEQUENCE" and "MID_JOIN" not in kinds
    before = Cluster(parse_scenario(doc(topo)), 0).nodes["n1"].log.metadata.placements_json()  # type: ignore[union-attr]
    live = [n for n in cluster.nodes.values() if n is not None]
    assert len(live) == 4
    for node in live:
        assert node.log.metadata.placements_json() == before


def test_an_overlapping_operation_is_rejected_and_a_disjoint_one_completes_concurrently() -> None:
    topo = ring(8, 2)
    ops = [{"op": "join", "node": "j1", "tokens": [-(2**63) + STEP * 3 // 2], "at_ms": 500},
           {"op": "join", "node": "j2", "tokens": [-(2**63) + STEP * 3 // 2 + 1000], "at_ms": 500},
           {"op": "leave", "node": "n6", "at_ms": 500}]
    _, result = run(doc(topo, operations=ops), 11)
    outcomes = {o.node: o.outcome for o in result.operations}
    winner, loser = sorted(("j1", "j2"), key=lambda n: outcomes[n] != "completed")
    assert outcomes[winner] == "completed" and outcomes["n6"] == "completed"
    assert outcomes[loser].startswith("rejected:") and "range lock conflict" in outcomes[loser]
    # concurrent: the leave's START came before the join's FINISH
    kinds = [(e.kind, e.transformation) for e in result.node("n1").entries]
    start_leave = next(i for i, (k, _) in enumerate(kinds) if k == "START_LEAVE")
    finish_join = next(i for i, (k, _) in enumerate(kinds) if k == "FINISH_JOIN")
    assert start_leave < finish_join


@pytest.mark.parametrize("minimum", ["EACH_QUORUM", "ONE"])
def test_the_barrier_never_counts_down_nodes_and_relaxes_only_to_its_minimum(minimum: str) -> None:
    # two of the four replicas of the joined ranges are down: EACH_QUORUM (3 of 4) cannot pass
    d = {"topology": ring(4, 3), "cms": {"size": 1},
         "operations": [{"op": "join", "node": "j1", "tokens": [-(2**63) + STEP * 5 // 2], "at_ms": 500}],
         "faults": {"crashes": [{"node": "n2", "at_ms": 0}, {"node": "n3", "at_ms": 0}]},
         "settings": {"end_time_ms": 30000, "barrier_timeout_ms": 1000, "barrier_min_consistency": minimum}}
    cluster = Cluster(parse_scenario(d), 1, keep_trace=True)
    result = cluster.run()
    passed = [line for line in cluster.trace.lines if " barrier " in line and "passed" in line]
    if minimum == "EACH_QUORUM":
        assert result.counter("barrier_relaxations") == 0 and passed == []
        assert [e.kind for e in result.node("n1").entries][-1] == "START_JOIN"
    else:
        assert result.counter("barrier_relaxations") == 3  # EACH_QUORUM > QUORUM > LOCAL_QUORUM > ONE
        assert len(passed) == 1 and passed[0].split()[-1] == "ONE"


@pytest.mark.parametrize(("asker", "target", "crashed", "outcome"), [
    ("n2", "n2", None, "refused: Cannot remove self"),
    ("n2", "n4", None, "refused: Node n4 is alive and owns this ID. Use decommission command to remove it from the ring"),
    ("n2", "n4", "n4", "completed"),
])
def test_removenode_refuses_what_nodetool_refuses(asker: str, target: str, crashed: str | None,
                                                  outcome: str) -> None:
    # SingleNodeSequences.removeNode: not itself, a known node, not one the asker's failure
    # detector sees alive (a crash is convicted 20-30 s later), before any commit
    d = doc(ring(4, 3), operations=[{"op": "remove", "node": asker, "target": target, "at_ms": 40_000}])
    d.pop("clients")
    d["faults"] = {"latency": {"dist": "uniform", "min_ms": 1, "max_ms": 5},
                   "crashes": [{"node": crashed, "at_ms": 100}] if crashed else []}
    result = Cluster(parse_scenario(d), 1).run()
    assert [(o.node, o.op, o.outcome) for o in result.operations] == [(asker, "remove", outcome)]
    kinds = {e.kind for e in result.node("n1").entries}
    assert ("PREPARE_LEAVE" in kinds) == (outcome == "completed")
