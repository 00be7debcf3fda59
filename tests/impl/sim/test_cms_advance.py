"""The CMS reconfiguration driver submits one ADVANCE at a time, each naming its step
(Cassandra's AdvanceCMSReconfiguration.sequenceIndex), so a resubmitted ADVANCE can only repeat
its own step, which the metadata then rejects as already applied (the mutants' control seed 13:
ADVANCE resubmitted over 60 ms links)."""

from __future__ import annotations

import json
from pathlib import Path

from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import judge
from impl.cluster import run_scenario
from observed.frozen import thaw

SCENARIO = Path(__file__).parent / "data" / "cms-advance-slow-links.json"
SEED = 3
"""A seed whose run reaches the last step within the scenario's 60 s (over these links the
dueling proposers take most of the run; whether the ninth step fits depends on the schedule:
seed 1 did until gossip carried heartbeats)."""


def _advances(seed: int) -> tuple[list[tuple[int, int, int | None]], list[dict[str, object]]]:
    """(invoked, completed or -1, sequence_index) of every ADVANCE request; the ADVANCEs in the
    committed log."""
    scenario = parse_scenario(json.loads(SCENARIO.read_text()))
    result = run_scenario(scenario, seed)
    assert judge(scenario, result).valid
    opened: dict[int, tuple[int, dict[str, object]]] = {}
    requests = []
    committed = []
    for op in result.commit_history:
        value = thaw(op.value)
        t = value["transformation"]
        if t["kind"] != "ADVANCE_CMS_RECONFIGURATION":
            continue
        if op.type == "invoke":
            opened[op.process] = (op.time, t)
            continue
        invoked, _ = opened.pop(op.process)
        requests.append((invoked, op.time, t.get("sequence_index")))
    requests += [(invoked, -1, t.get("sequence_index")) for invoked, t in opened.values()]
    log = max((n.entries for n in result.nodes), key=len)  # every node holds the whole log here
    committed = [json.loads(e.transformation) for e in log if e.kind == "ADVANCE_CMS_RECONFIGURATION"]
    return sorted(requests), committed


def test_the_driver_never_has_two_advances_in_flight() -> None:
    requests, _ = _advances(SEED)
    assert len(requests) > 5  # the slow links make many requests end unknown and be sent again
    for (_, done, _), (nxt, _, _) in zip(requests, requests[1:], strict=False):
        assert 0 <= done <= nxt


def test_every_advance_names_its_step_and_each_step_commits_once() -> None:
    _, committed = _advances(SEED)
    indexes = [t.get("sequence_index") for t in committed]
    assert None not in indexes
    assert len(indexes) == len(set(indexes))


def test_the_last_step_ends_the_reconfiguration() -> None:
    """Four members added in two steps each, then the step that ends the reconfiguration and
    releases its lock (the driver used to stop at the target membership and leave the lock held
    unless a stray second ADVANCE took that step)."""
    _, committed = _advances(SEED)
    assert [t.get("sequence_index") for t in committed] == list(range(9))
