"""A live node behind the committed log at the end is a liveness failure only if it could catch
up: from the CMS (a CMS member answers Cassandra's FetchCMSLog with a log read that, for a
consistent fetch, needs a CMS quorum: tcm/FetchCMSLog.java's Handler calls
DistributedMetadataLogKeyspace.getLogState) or from a live peer that holds the entries
(PeerLogFetcher). Entries held only by nodes dead for good, with the CMS short of a live
majority, cannot reach it: the fault's stall, not a bug (fuzz seed 777002996's shape)."""

from __future__ import annotations

from attrs import evolve

from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import judge
from impl.cluster import run_scenario


def _schema(node: str, at_ms: int, rf: int) -> dict[str, object]:
    return {"node": node, "at_ms": at_ms, "transformation": {"kind": "SCHEMA_CHANGE", "change": {
        "keyspace": "kv", "op": "ALTER_KEYSPACE",
        "replication": {"class": "SimpleStrategy", "replication_factor": rf}}}}


def test_a_node_cut_off_while_the_only_holders_of_an_epoch_died_is_not_called_stuck() -> None:
    # CMS n1, n2, n3; n2 and n3 (a CMS majority) commit epoch 7 while cut off from n1, then both
    # die for good before the heal: no live node holds epoch 7 and no CMS quorum can serve it;
    # n1's own later submission keeps the run from going quiet
    nodes = [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [-(2**62) + i * 2**61]} for i in (1, 2, 3)]
    doc = {"topology": {"nodes": nodes, "keyspaces": [{"name": "kv", "replication": {
               "class": "SimpleStrategy", "replication_factor": 1}}]},
           "submissions": [_schema("n2", 1100, 2), _schema("n1", 5000, 3)],
           "faults": {"partitions": [{"isolate": ["n2", "n3"], "start_ms": 1000, "heal_ms": 2500}],
                      "crashes": [{"node": "n3", "at_ms": 2200}, {"node": "n2", "at_ms": 2400}]},
           "settings": {"end_time_ms": 120000}}
    scenario = parse_scenario(doc)
    result = run_scenario(scenario, 1)
    applied = {n.id: (n.applied_epoch, n.up) for n in result.nodes}
    assert not result.quiescent and result.final_epoch == 7
    assert applied == {"n1": (6, True), "n2": (7, False), "n3": (7, False)}
    assert judge(scenario, result).family("liveness") == ()
    # had n2 been alive at the end (holding epoch 7), n1 not catching up would be a failure
    revived = evolve(result, nodes=tuple(evolve(n, up=True) if n.id == "n2" else n for n in result.nodes))
    assert [c.text for c in judge(scenario, revived).family("liveness")] == [
        "liveness: live node not applying: n1 behind epoch 7 at the end"]
