"""An operation still taking steps when an unquiet run ends is slow, not stuck: under lasting
message loss each step may wait out lost commit answers (the mutants' control seed 148: a leave
"stuck" about 110 s). The judge calls it stuck only if no step of it committed for longer than a
submission's whole patience, or if the run went quiet with it unfinished."""

from __future__ import annotations

import json
from pathlib import Path

from attrs import evolve

from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import judge
from impl.cluster import run_scenario

DATA = Path(__file__).resolve().parents[1] / "impl" / "sim" / "data"


def test_a_leave_slowed_by_lasting_loss_is_not_stuck() -> None:
    scenario = parse_scenario(json.loads((DATA / "leave-under-lasting-loss.json").read_text()))
    result = run_scenario(scenario, 3)  # seed 2 until gossip carried heartbeats
    assert not result.quiescent and [(u.node, u.op) for u in result.unfinished] == [("n6", "leave")]
    assert judge(scenario, result).family("liveness") == ()
    # the same leave, had its last step been longer ago than the patience, is stuck
    patience = scenario.settings.submit_timeout_ns * (scenario.settings.max_submit_attempts + 1)
    later = evolve(result, end_time=result.end_time + patience)
    assert judge(scenario, later).family("liveness")[0].text == (
        "liveness: operation stuck: leave on n6 never finished (its barrier could be met)")


def test_an_operation_is_not_stuck_when_the_cms_has_no_live_majority() -> None:
    # a CMS of two (n1, n2) with n2 dead for good commits nothing, so a replace asked then
    # cannot take a step: the fault's stall, not a bug (fuzz seed 7007021943's shape)
    nodes = [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [-(2**62) + i * 2**61]} for i in (1, 2, 3)]
    doc = {"topology": {"nodes": nodes, "keyspaces": [{"name": "kv", "replication": {
               "class": "SimpleStrategy", "replication_factor": 1}}]},
           "cms": {"size": 2},
           "operations": [{"op": "replace", "node": "d1", "target": "n2", "dc": "dc1", "rack": "r1",
                           "at_ms": 400}],
           "faults": {"crashes": [{"node": "n2", "at_ms": 300}]},
           "settings": {"end_time_ms": 120000}}
    scenario = parse_scenario(doc)
    result = run_scenario(scenario, 1)
    assert [(u.node, u.op, u.could_finish) for u in result.unfinished] == [("d1", "replace", True)]  # its barrier could be met
    assert not result.quiescent
    assert judge(scenario, result).family("liveness") == ()
