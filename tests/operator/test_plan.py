"""`tcmcheck plan`: the operator's words on a TOPOLOGY.json, planned step by step.

What an operator relies on: the quorum verdicts are `tcmcheck prove`'s on the OPS.json the words
map onto (issue 34's third acceptance; the 48-node, 16-token case runs under `-m slow` and in
benchmarks/bench_plan.py); streaming sources follow impl's rules (the losing replica; one of the
remaining replicas for replace and removenode; none at RF 1); Cassandra's refusals come in its
words; the CMS reconfiguration the operator path runs first is shown; known findings are listed
exactly when their conditions hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.operator.token_allocation import grown_cluster
from tests.cli.hostile import invoke

NTS3 = {"class": "NetworkTopologyStrategy", "dc1": 3, "dc2": 3, "dc3": 3}


def cluster_doc(datacenters: list[tuple[str, int, int]], num_tokens: int, keyspaces: list[dict[str, Any]]) -> dict[str, Any]:
    nodes = grown_cluster(datacenters, num_tokens)
    return {"nodes": [{"id": n.id, "dc": n.location.dc, "rack": n.location.rack, "tokens": list(n.tokens)} for n in nodes],
            "keyspaces": keyspaces}


SMALL = cluster_doc([("dc1", 4, 3), ("dc2", 4, 3), ("dc3", 3, 3)], 4, [
    {"name": "app", "replication": NTS3},
    {"name": "local", "replication": {"class": "NetworkTopologyStrategy", "dc1": 2}},
    {"name": "simple", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}])
ONE_TOKEN = cluster_doc([("dc1", 4, 3), ("dc2", 3, 1)], 1, [
    {"name": "app", "replication": {"class": "NetworkTopologyStrategy", "dc1": 3, "dc2": 2}}])
OPERATIONS = [["decommission", "10.1.0.2"], ["removenode", "10.2.0.3"], ["replace", "10.3.0.1", "--by", "10.3.0.9"],
              ["bootstrap", "10.1.0.9", "--dc", "dc1", "--rack", "r2", "--num-tokens", "4"]]


def put(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def plan_and_prove(tmp_path: Path, doc: dict[str, Any], words: list[str], levels: list[str]
                   ) -> tuple[int, dict[str, Any], int, dict[str, Any]]:
    topo = put(tmp_path, "t.json", doc)
    code, out, err = invoke(["plan", topo, *words, *levels, "--json"])
    assert err == "", err
    plan = json.loads(out)
    # a refused operation commits nothing: its epochs are the cluster's own, prove's with no ops
    ops = put(tmp_path, "ops.json", [] if plan["refused"] and not plan["steps"] else plan["ops"])
    prove_code, prove_out, _ = invoke(["prove", topo, "--ops", ops, *levels, "--json"])
    proved = json.loads(prove_out)
    proved.pop("warnings", None)  # prove's vacuity warnings: the plan gives them per keyspace
    return code, plan, prove_code, proved


@pytest.mark.parametrize("words", OPERATIONS + [["move", "10.1.0.3", "-4611686018427387904"]])
@pytest.mark.parametrize("levels", [[], ["--read-cl", "LOCAL_QUORUM", "--write-cl", "LOCAL_QUORUM", "--window", "2"],
                                    ["--read-cl", "ONE", "--write-cl", "EACH_QUORUM"]])
def test_the_plans_quorum_verdict_is_proves_on_the_same_ops(tmp_path: Path, words: list[str], levels: list[str]) -> None:
    doc = ONE_TOKEN if words[0] == "move" else SMALL
    code, plan, prove_code, proved = plan_and_prove(tmp_path, doc, words, levels)
    overall = plan["proofs"]["overall"]
    assert {k: overall[k] for k in ("result", "checked", "counterexamples")} == proved
    per_keyspace = [c for p in plan["proofs"]["per_keyspace"] for c in p["counterexamples"]]
    assert sorted(map(json.dumps, per_keyspace)) == sorted(map(json.dumps, proved["counterexamples"]))
    assert sum(p["checked"] for p in plan["proofs"]["per_keyspace"]) == proved["checked"]
    if plan["outcome"] in ("proved", "counterexample"):
        assert code == prove_code


@pytest.mark.slow
@pytest.mark.parametrize("words", [["decommission", "10.1.0.5"], ["removenode", "10.2.0.3"],
                                   ["replace", "10.3.0.4", "--by", "10.3.0.99"], ["move", "10.1.0.1", "-5"],
                                   ["bootstrap", "10.1.0.77", "--dc", "dc1", "--rack", "r2", "--num-tokens", "16"]])
def test_on_48_nodes_16_tokens_3_dcs_the_verdicts_are_proves(tmp_path: Path, words: list[str]) -> None:
    doc = cluster_doc([("dc1", 16, 3), ("dc2", 16, 3), ("dc3", 16, 3)], 16, [
        {"name": "app", "replication": NTS3}, {"name": "simple", "replication": {"class": "SimpleStrategy",
                                                                                "replication_factor": 3}}])
    for levels in ([], ["--read-cl", "LOCAL_QUORUM", "--write-cl", "EACH_QUORUM"]):
        _, plan, _, proved = plan_and_prove(tmp_path, doc, words, levels)
        assert {k: plan["proofs"]["overall"][k] for k in ("result", "checked", "counterexamples")} == proved


def run(tmp_path: Path, doc: dict[str, Any], *words: str) -> tuple[int, dict[str, Any]]:
    code, out, err = invoke(["plan", put(tmp_path, "t.json", doc), *words, "--json"])
    assert err == "", err
    return code, json.loads(out)


def findings(plan: dict[str, Any]) -> set[str]:
    return {f["id"] for f in plan["findings"]}


RF3 = {"nodes": [{"id": n, "dc": "dc1", "rack": "r1", "tokens": [t]} for n, t in
                 (("A", 100), ("B", 200), ("C", 300), ("D", 400))],
       "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]}


def test_a_decommission_streams_each_range_from_the_leaving_node_and_moves_reads_at_mid(tmp_path: Path) -> None:
    code, plan = run(tmp_path, RF3, "decommission", "B")
    assert code == 0 and plan["outcome"] == "proved"
    assert [s["kind"] for s in plan["steps"]] == ["PREPARE_LEAVE", "START_LEAVE", "MID_LEAVE", "FINISH_LEAVE"]
    assert {t["sources"][0] for t in plan["streaming"]} == {"B"}
    assert {t["destination"] for t in plan["streaming"]} == {"A", "C", "D"}
    start, mid = plan["steps"][1], plan["steps"][2]
    assert all(c["reads"]["before"] == c["reads"]["after"] for c in start["changes"])  # START widens writes only
    assert all(c["writes"]["before"] == c["writes"]["after"] for c in mid["changes"])  # MID moves reads only
    assert start["node_states"] == [{"node": "B", "before": "JOINED", "after": "LEAVING"}]
    assert plan["movement"][0]["lost"] == {"B": 1.0} or set(plan["movement"][0]["lost"]) == {"B"}
    assert "remove-replace-single-source" not in findings(plan) and "cancel-after-mid" in findings(plan)


def test_a_replace_streams_from_one_remaining_replica_and_asks_for_a_repair(tmp_path: Path) -> None:
    code, plan = run(tmp_path, RF3, "replace", "B", "--by", "X")
    assert code == 0
    assert {t["destination"] for t in plan["streaming"]} == {"X"}
    assert all("B" not in t["sources"] and len(t["sources"]) >= 2 for t in plan["streaming"])
    single = next(f for f in plan["findings"] if f["id"] == "remove-replace-single-source")
    assert "ONE remaining replica" in single["why"] and "repair" in single["advice"]
    assert {"replaced-node-barrier-gap", "cancel-after-mid"} <= findings(plan)
    assert "cross-dc-replace" not in findings(plan)
    assert plan["steps"][-1]["node_states"] == [{"node": "B", "before": "JOINED", "after": "-"},
                                                {"node": "X", "before": "BOOT_REPLACING", "after": "JOINED"}]


def test_a_removenode_at_rf_1_has_nothing_to_stream_from_and_says_the_data_is_lost(tmp_path: Path) -> None:
    doc = {**RF3, "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 1}}]}
    code, plan = run(tmp_path, doc, "removenode", "B")
    assert plan["streaming"] == [] and plan["unstreamed"] == [{"keyspace": "ks", "node": "C", "range": [100, 200]}]
    single = next(f for f in plan["findings"] if f["id"] == "remove-replace-single-source")
    assert "1 range(s) have no replica left" in single["why"] and "lost" in single["why"]


def test_a_replacement_in_another_dc_halts_before_mid_and_meets_cross_dc_replace(tmp_path: Path) -> None:
    """dc1 keeps enough nodes that others gain ranges: the replacement's bootstrap halts."""
    code, plan = run(tmp_path, SMALL, "replace", "10.1.0.1", "--by", "10.1.0.9", "--dc", "dc2", "--rack", "r1")
    assert code == 1 and plan["outcome"] == "halts"
    assert "fetches for itself only" in plan["halts"]
    cross = next(f for f in plan["findings"] if f["id"] == "cross-dc-replace")
    assert "dc2/r1" in cross["why"] and "dc1/r1" in cross["why"] and "halts" in cross["why"]
    assert "dc=dc1" in cross["advice"]


def test_a_replacement_in_another_dc_that_completes_leaves_its_old_dc_under_rf(tmp_path: Path) -> None:
    """dc3 has exactly RF nodes: nobody else gains, the replace completes and dc3 has RF-1 replicas."""
    code, plan = run(tmp_path, SMALL, "replace", "10.3.0.1", "--by", "10.3.0.9", "--dc", "dc2", "--rack", "r1")
    assert plan["outcome"] != "halts"
    cross = next(f for f in plan["findings"] if f["id"] == "cross-dc-replace")
    assert "leaving dc3 with one read replica fewer than its replication factor" in cross["why"]


@pytest.mark.parametrize("doc, words, reason, by", [
    (SMALL, ["move", "10.1.0.1", "5"], "This node has more than one token and cannot be moved thusly.", "operator"),
    (RF3, ["move", "B", "300"], "target token 300 is already owned by another node.", "operator"),
    (RF3, ["bootstrap", "X", "--dc", "dc1", "--rack", "r1", "--tokens", "100"],
     "Bootstrapping to existing token 100 is not allowed (decommission/removenode the old node first).", "operator"),
    ({**RF3, "nodes": RF3["nodes"][:3]}, ["decommission", "B"], "not enough live nodes to maintain replication factor 3",
     "transformation"),
    ({"nodes": [{"id": n, "dc": "dc1", "rack": r, "tokens": [t]} for n, r, t in (("A", "r1", 1), ("B", "r2", 2))],
      "keyspaces": []}, ["bootstrap", "X", "--dc", "dc1", "--rack", "r1", "--num-tokens", "2"],
     "Token allocation failed: the number of racks 2 in datacenter dc1 is lower than its replication factor 3.",
     "operator"),
])
def test_what_cassandra_refuses_is_refused_in_its_words(tmp_path: Path, doc: dict[str, Any], words: list[str],
                                                        reason: str, by: str) -> None:
    code, plan = run(tmp_path, doc, *words)
    assert code == 1 and plan["outcome"] == "refused"
    assert reason in plan["refused"]["reason"] and plan["refused"]["by"] == by
    assert plan["findings"] == []


def test_decommissioning_a_cms_member_reconfigures_the_cms_first(tmp_path: Path) -> None:
    code, plan = run(tmp_path, RF3, "decommission", "B", "--cms", "/A:7000,/B:7000,/C:7000")
    assert plan["cms"]["before"] == ["A", "B", "C"] and plan["cms"]["after"] == ["A", "C", "D"]
    assert plan["cms"]["reconfiguration"][0] == "PREPARE_CMS_RECONFIGURATION"
    assert [s["phase"] for s in plan["steps"]][-4:] == ["PREPARE", "START", "MID", "FINISH"]
    assert next(p for p in plan["proofs"]["per_keyspace"] if p["keyspace"] == "CMS")["result"] == "proved"


def test_the_relaxed_barrier_finding_needs_a_lowered_minimum(tmp_path: Path) -> None:
    assert "relaxed-progress-barrier" not in findings(run(tmp_path, RF3, "decommission", "B")[1])
    _, plan = run(tmp_path, RF3, "decommission", "B", "--progress-barrier-min-cl", "ONE")
    assert "relaxed-progress-barrier" in findings(plan)


def test_the_text_and_the_page_show_every_step(tmp_path: Path) -> None:
    topo = put(tmp_path, "t.json", SMALL)
    page = tmp_path / "plan.html"
    code, out, err = invoke(["plan", topo, "decommission", "10.1.0.2", "--html", str(page)])
    assert code == 0 and err == ""
    for kind in ("PREPARE_LEAVE", "START_LEAVE", "MID_LEAVE", "FINISH_LEAVE"):
        assert kind in out
    assert "then streaming, before MID:" in out and "overall: proved" in out
    html = page.read_text()
    assert html.count("<svg") >= 4 and "<script" not in html
    _, plan = run(tmp_path, SMALL, "decommission", "10.1.0.2")
    for step in plan["steps"]:
        for change in step["changes"]:
            assert f"({change['range'][0]}, {change['range'][1]}]" in html
