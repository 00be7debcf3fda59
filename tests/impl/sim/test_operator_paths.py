"""The operator layer of the node-driven operations (impl/node/operator_checks.py, operation.py,
operator.py): what nodetool, StorageService and Startup refuse on the node that runs them,
with Cassandra's messages (trunk 6bbe85ef), and the CMS reconfigurations they run: before a
replace, decommission, removenode or assassinate of a CMS member (maybeReconfigureCMS) and after
a join, replace or move finishes (ensureCMSPlacement)."""

from __future__ import annotations

from typing import Any

from campaign.formats.scenario import parse_scenario
from campaign.kinds import checked
from campaign.run.record import RunSpec
from impl.cluster import Cluster
from impl.engine import cms_members
from observed.run import Observed

STEP = 2**64 // 8
LATE = 45_000  # ms: past a failure detector's conviction (20-30 s here) of a node crashed at 5 s


def token(i: float) -> int:
    return int(-(2**63) + STEP * i - 1)


def ring(n: int, rf: int = 3, extra: dict[str, list[int]] | None = None) -> dict[str, Any]:
    nodes = [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [token(i), *(extra or {}).get(f"n{i}", [])]}
             for i in range(1, n + 1)]
    return {"nodes": nodes, "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy",
                                                                        "replication_factor": rf}}]}


def scenario(topology: dict[str, Any], operations: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"topology": topology, "operations": operations,
            "faults": {"latency": {"dist": "uniform", "min_ms": 1, "max_ms": 5}},
            "settings": {"end_time_ms": 90_000}, **extra}


def run(d: dict[str, Any], seed: int = 1) -> tuple[Cluster, Observed]:
    cluster = Cluster(parse_scenario(d), seed)
    return cluster, cluster.run()


def outcomes(result: Observed) -> list[tuple[str, str, str]]:
    return [(o.node, o.op, o.outcome) for o in result.operations]


def test_a_node_with_two_tokens_cannot_move() -> None:
    d = scenario(ring(4, extra={"n4": [token(4.5)]}), [{"op": "move", "node": "n4", "tokens": [token(3.5)], "at_ms": 500}],
                 cms={"size": 1})
    _, result = run(d)
    assert outcomes(result) == [("n4", "move", "refused: This node has more than one token and cannot be moved thusly.")]


def test_a_move_or_a_join_to_an_owned_token_is_refused() -> None:
    d = scenario(ring(4), [{"op": "move", "node": "n4", "tokens": [token(2)], "at_ms": 500},
                           {"op": "join", "node": "j1", "tokens": [token(3)], "at_ms": 600}], cms={"size": 1})
    _, result = run(d)
    assert outcomes(result) == [
        ("n4", "move", f"refused: target token {token(2)} is already owned by another node."),
        ("j1", "join", f"refused: Bootstrapping to existing token {token(3)} is not allowed (decommission/removenode the old node first).")]


def test_replace_refuses_a_live_node_after_reconfiguring_the_cms() -> None:
    # Startup.startup: maybeReconfigureCMS(replaced) first, then getInitialTransformation refuses
    # the live node: the CMS change stays committed
    d = scenario(ring(5), [{"op": "replace", "node": "d1", "target": "n2", "at_ms": 2_000}])
    cluster, result = run(d)
    assert outcomes(result) == [("d1", "replace", "refused: Cannot replace a live node... ")]
    assert "n2" not in cms_members(cluster.nodes["n1"].log.metadata)  # type: ignore[union-attr]


def test_replace_refuses_a_node_that_is_not_joined() -> None:
    d = scenario(ring(5), [{"op": "leave", "node": "n5", "at_ms": 500},
                           {"op": "replace", "node": "d1", "target": "n5", "at_ms": 20_000}], cms={"size": 1})
    _, result = run(d)
    assert ("d1", "replace", "refused: Cannot replace node n5 which is not currently joined") in outcomes(result)


def test_a_dead_cms_member_is_replaced_and_the_cms_placed_anew_after() -> None:
    # the dtest of CASSANDRA-19705 (replaceEqualRF): three nodes, a CMS of three, n2 dead and
    # replaced: Simple finds no candidate (d1 is only REGISTERED), so the CMS is {n1, n3} until
    # ensureCMSPlacement after FINISH_REPLACE adds d1
    d = scenario(ring(3), [{"op": "replace", "node": "d1", "target": "n2", "at_ms": LATE}])
    d["faults"]["crashes"] = [{"node": "n2", "at_ms": 5_000}]
    cluster, result = run(d)
    assert outcomes(result) == [("d1", "replace", "completed")]
    kinds = [e.kind for e in result.node("n1").entries]
    assert kinds.index("PREPARE_CMS_RECONFIGURATION", 1) < kinds.index("PREPARE_REPLACE")
    assert cms_members(cluster.nodes["n1"].log.metadata) == ("d1", "n1", "n3")  # type: ignore[union-attr]
    spec = RunSpec(kind="sim", seed=1, case=d)
    assert checked(spec).valid


def test_decommission_and_removenode_of_cms_members_reconfigure_the_cms_first() -> None:
    d = scenario(ring(6), [{"op": "leave", "node": "n2", "at_ms": 2_000},
                           {"op": "remove", "node": "n4", "target": "n3", "at_ms": LATE}])
    d["faults"]["crashes"] = [{"node": "n3", "at_ms": 5_000}]
    cluster, result = run(d)
    assert outcomes(result) == [("n2", "leave", "completed"), ("n4", "remove", "completed")]
    members = cms_members(cluster.nodes["n1"].log.metadata)  # type: ignore[union-attr]
    assert "n2" not in members and "n3" not in members and len(members) == 3


def test_assassinate_of_a_dead_cms_member_reconfigures_first() -> None:
    # CASSANDRA-19768's dtest: a CMS of three, n2 shut down, `nodetool assassinate n2`
    d = scenario(ring(4), [{"op": "assassinate", "node": "n4", "target": "n2", "at_ms": LATE},
                           {"op": "assassinate", "node": "n4", "target": "n2", "at_ms": LATE + 20_000}])
    d["faults"]["crashes"] = [{"node": "n2", "at_ms": 5_000}]
    cluster, result = run(d)
    # the second: n2 is LEFT, still registered (isRegistered), so Assassinate is committed and
    # PrepareLeave.execute rejects it
    assert outcomes(result) == [("n4", "assassinate", "completed"),
                                ("n4", "assassinate", "rejected: n2: cannot be removed from state LEFT")]
    meta = cluster.nodes["n1"].log.metadata  # type: ignore[union-attr]
    assert meta.node_state("n2").value == "LEFT" and "n2" not in cms_members(meta)


def test_abortbootstrap_refuses_a_live_node_and_the_jmx_cancel_does_not() -> None:
    join = {"op": "join", "node": "j1", "tokens": [token(2.5)], "at_ms": 500}
    # the joining node itself is always alive to itself; n3 sees j1 alive
    d = scenario(ring(4), [join], cms={"size": 1}, cancels=[
        {"node": "j1", "at_ms": 510, "how": "abortbootstrap", "by": "j1"},
        {"node": "j1", "at_ms": 520, "how": "abortbootstrap", "by": "n3"},
        {"node": "j1", "at_ms": 530, "kind": "MOVE"}])
    _, result = run(d)
    assert ("j1", "abortbootstrap", "refused: Can't abort bootstrap for j1 - it is alive") in outcomes(result)
    assert ("n3", "abortbootstrap", "refused: Can't abort bootstrap for j1 - it is alive") in outcomes(result)
    assert ("j1", "cancel", "refused: No in progress sequence of kind MOVE for j1 (only JOIN in progress)") in outcomes(result)
    d["cancels"] = [{"node": "j1", "at_ms": 530}]
    _, result = run(d)
    assert ("j1", "cancel", "completed") in outcomes(result) and ("j1", "join", "cancelled") in outcomes(result)


def test_abortbootstrap_of_a_dead_joiner_cancels_and_unregisters() -> None:
    join = {"op": "join", "node": "j1", "tokens": [token(2.5)], "at_ms": 500}
    d = scenario(ring(4), [join], cms={"size": 1},
                 cancels=[{"node": "j1", "at_ms": LATE, "how": "abortbootstrap", "by": "n3"}])
    # j1 dies after its PREPARE, before it finishes
    cluster = Cluster(parse_scenario(d), 1, keep_trace=True)
    cluster.run()
    prepared = next(int(line.split()[0]) for line in cluster.trace.lines if "PREPARE_JOIN" in line and " commit " in line)
    d["faults"]["crashes"] = [{"node": "j1", "at_ms": prepared / 1e6 + 0.5}]
    cluster, result = run(d)
    assert ("n3", "abortbootstrap", "completed") in outcomes(result)
    kinds = [e.kind for e in result.node("n1").entries]
    assert kinds[-2:] == ["CANCEL_SEQUENCE", "UNREGISTER"]
    meta = cluster.nodes["n1"].log.metadata  # type: ignore[union-attr]
    assert "j1" not in meta.directory and not meta.sequences


def racked(racks: list[str], dcs: list[str] | None = None, rf: dict[str, int] | None = None) -> dict[str, Any]:
    nodes = [{"id": f"n{i}", "dc": (dcs or ["dc1"] * len(racks))[i - 1], "rack": rack, "tokens": [token(i)]}
             for i, rack in enumerate(racks, start=1)]
    return {"nodes": nodes, "keyspaces": [{"name": "ks", "replication": {"class": "NetworkTopologyStrategy",
                                                                        **(rf or {"dc1": 3})}}]}


def test_a_replacement_in_another_rack_halts_before_mid_as_cassandras_bootstrap_does() -> None:
    # r1 r2 r1 r2 r1 r2, RF 3: d1 replaces n2 (r2) from rack r1, so other nodes gain ranges too;
    # Cassandra's replacement fetches for itself only (RangeStreamer, -ea): halted with START
    # applied. From n2's own rack it completes.
    topo = racked(["r1", "r2", "r1", "r2", "r1", "r2"])
    for rack, outcome in (("r1", "failed: bootstrap streaming failed"), ("r2", "completed")):
        d = scenario(topo, [{"op": "replace", "node": "d1", "target": "n2", "dc": "dc1", "rack": rack, "at_ms": LATE}],
                     cms={"size": 1})
        d["faults"]["crashes"] = [{"node": "n2", "at_ms": 5_000}]
        cluster, result = run(d)
        assert outcomes(result)[0][2].startswith(outcome), outcomes(result)
        meta = cluster.nodes["n1"].log.metadata  # type: ignore[union-attr]
        assert ("d1" in meta.sequences) == (rack == "r1")
        if rack == "r1":
            out = checked(RunSpec(kind="sim", seed=1, case=d))
            assert out.cause is not None and out.cause.klass == "liveness: bootstrap halted on a movement to another node"


def test_a_replacement_in_another_dc_at_rf_leaves_its_dc_below_rf() -> None:
    # dc1 has exactly RF 3 nodes: a replacement registered in dc2 takes n2's tokens, no dc1 node
    # gains a range, so nothing streams elsewhere and the replace completes: every range ends
    # with two read replicas in dc1 (finding cross-dc-replace; no check refuses it)
    topo = racked(["r1", "r1", "r1", "r1"], dcs=["dc1", "dc1", "dc1", "dc2"], rf={"dc1": 3})
    d = scenario(topo, [{"op": "replace", "node": "d1", "target": "n2", "dc": "dc2", "rack": "r1", "at_ms": LATE}],
                 cms={"size": 1})
    d["faults"]["crashes"] = [{"node": "n2", "at_ms": 5_000}]
    cluster, result = run(d)
    assert outcomes(result) == [("d1", "replace", "completed")]
    meta = cluster.nodes["n1"].log.metadata  # type: ignore[union-attr]
    for group in meta.placements_json()["ks"]["reads"]:
        assert sorted(group["replicas"]) == ["n1", "n3"]
