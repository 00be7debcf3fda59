"""The components' promises as checks of the judge (campaign/judge/checks/: repair, hint-replay,
read-repair, failure-detector) on runs of the default campaign that exercise them: each is kept
and judged something — a bug planted in the component fails these runs (docs/extending.md lists
the plants) — and a campaign's report shows what they judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.cli import main
from campaign.formats.scenario import parse_scenario
from campaign.judge.checks import by_name
from campaign.judge.context import Context
from campaign.judge.evidence import Evidence
from campaign.judge.promise_result import promise_result
from campaign.kinds import generate_case
from campaign.run.paths import JUDGED_PATHS
from checkers.protocol import ProtocolVerdict, Violation
from impl.cluster import run_scenario

# (check, a run of the default campaign (seed 0) that exercises it, a path it must have judged)
EXERCISED = (
    ("repair", 32, "keys compared"),
    ("hint-replay", 0, "hints deleted"),
    ("read-repair", 8, "read repair writes"),
    ("failure-detector", 0, "convictions"),
    ("failure-detector", 0, "revivals"),
)


@pytest.mark.parametrize(("name", "seed", "path"), EXERCISED)
def test_a_run_of_the_default_campaign_keeps_the_promise_and_judges_its_path(name: str, seed: int,
                                                                             path: str) -> None:
    scenario = parse_scenario(generate_case("sim", seed))
    result = by_name(name)(Context(scenario, run_scenario(scenario, seed)))
    assert result.causes == ()
    assert dict(result.judged)[path] > 0


def test_the_report_shows_what_the_promises_judged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c"
    assert main(["fuzz", "--runs", "2", "--seed", "0", "--workers", "1", "--kinds", "sim", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "promises judged (runs whose check judged each path, times judged):" in text
    assert "  failure-detector: convictions: " in text and "  hint-replay: hints applied: " in text
    never = next(line for line in text.splitlines() if line.startswith("promise paths never judged: "))
    assert set(never.split(": ", 1)[1].split(", ")) < set(JUDGED_PATHS)


def test_a_broken_promise_is_its_components_cause_with_the_traces_facts_in_the_failure_file() -> None:
    verdict = ProtocolVerdict(violations=(
        Violation(invariant="repair", time=7_912_000_000, detail="repair session 7 by n1 completed, yet ...",
                  evidence=(("at the end", "n1:nothing, n3:12@42"),)),), judged=(("sessions completed", 1),))
    result = promise_result("repair", verdict, final_epoch=3)
    assert [(c.family, c.klass) for c in result.causes] == [("promise", "promise: repair")]
    assert result.causes[0].text == "promise: repair: repair session 7 by n1 completed, yet ..."
    assert result.evidence is not None and Evidence.from_json(result.evidence.to_json()) == result.evidence
    assert result.evidence.lines() == ["evidence: repair at 7.912 s: repair session 7 by n1 completed, yet ...",
                                       "  at the end: n1:nothing, n3:12@42"]
    assert result.judged == (("sessions completed", 1),)
