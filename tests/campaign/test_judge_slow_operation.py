"""An operation still taking steps when an unquiet run ends is slow, not stuck: under lasting
message loss each step may wait out lost commit answers (the mutants' control seed 148: a leave
"stuck" about 110 s). The judge calls it stuck only if no step of it committed for longer than a
submission's whole patience, or if the run went quiet with it unfinished."""

from __future__ import annotations

import json
from pathlib import Path

from attrs import evolve

from campaign.formats.scenario import parse_scenario
from campaign.judge import judge
from impl.cluster import run_scenario

DATA = Path(__file__).resolve().parents[1] / "impl" / "sim" / "data"


def test_a_leave_slowed_by_lasting_loss_is_not_stuck() -> None:
    scenario = parse_scenario(json.loads((DATA / "leave-under-lasting-loss.json").read_text()))
    result = run_scenario(scenario, 2)
    assert not result.quiescent and [u[:2] for u in result.unfinished] == [("n6", "leave")]
    assert judge(scenario, result).liveness == ()
    # the same leave, had its last step been longer ago than the patience, is stuck
    patience = scenario.settings.submit_timeout_ns * (scenario.settings.max_submit_attempts + 1)
    later = evolve(result, end_time=result.end_time + patience)
    assert judge(scenario, later).liveness[0] == (
        "liveness: operation stuck: leave on n6 never finished (its barrier could be met)")
