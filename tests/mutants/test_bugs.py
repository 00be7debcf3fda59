"""Known-bug switches: the registry, how a run turns one on, and that each one is caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign.cli import main
from campaign.errors import BadInput
from campaign.formats.scenario import parse_scenario
from campaign.mutants import campaign
from campaign.runs import run_one
from impl.bugs import BY_NAME, NAMES, REGISTRY, check_names
from impl.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def test_registry_has_twenty_documented_switches_off_by_default():
    assert len(NAMES) >= 20 and len(set(NAMES)) == len(NAMES)
    assert Settings().mutants == frozenset()
    docs = (REPO / "docs" / "mutants.md").read_text()
    for m in REGISTRY:
        assert m.description and m.failure
        assert f"`{m.name}`" in docs, m.name


def test_every_node_switch_is_planted_somewhere_in_impl():
    code = "\n".join(p.read_text() for p in (REPO / "impl").rglob("*.py") if p.name != "bugs.py")
    for m in REGISTRY:
        if not m.engine:
            assert f'"{m.name}"' in code, f"{m.name} is never tested in impl/"


def test_a_scenario_names_its_switches_and_a_typo_is_one_line_bad_input():
    doc = json.loads((REPO / "examples" / "simulate-basic.json").read_text())
    assert parse_scenario({**doc, "mutants": ["read-repair-skipped"]}).settings.mutants == {"read-repair-skipped"}
    with pytest.raises(BadInput, match="unknown mutant 'nope'"):
        parse_scenario({**doc, "mutants": ["nope"]})
    with pytest.raises(ValueError):
        check_names(["nope"])


def test_a_switch_changes_the_verdict_and_is_recorded_for_replay():
    # sim seed 1 passes; with submit retries under fresh entry ids one request commits twice
    clean = run_one("sim", 1)
    broken = run_one("sim", 1, mutant="submit-retry-new-entry-id")
    assert clean.outcome.valid
    assert not broken.outcome.valid and (broken.outcome.cause or "").startswith("logs: ")
    assert json.loads(broken.failure or "{}")["mutant"] == "submit-retry-new-entry-id"


def test_mutants_command_json_and_bad_input(capsys):
    code = main(["mutants", "--budget", "20", "--only", "reject-create-table", "--json", "--no-shrink"])
    out = capsys.readouterr().out
    assert code == 0, out
    row = json.loads(out)["mutants"][0]
    assert set(row) >= {"name", "detected", "seconds", "cause", "shrunk_size"}
    assert row["detected"] is True and row["cause"].startswith("step ")
    assert main(["mutants", "--only", "nope"]) == 2
    assert "unknown mutant" in capsys.readouterr().err


@pytest.mark.mutants  # about 25 minutes: too long for CI; `pytest -m mutants`
@pytest.mark.parametrize("name", NAMES)
def test_each_switch_is_detected_within_a_minute(name):
    d, _ = campaign(name, 60.0, shrink=False)
    assert d.detected, f"{name} not detected in 60 s ({d.runs} runs)"
    if BY_NAME[name].liveness:
        assert (d.cause or "").startswith("liveness:")


@pytest.mark.mutants
@pytest.mark.parametrize("name", ["no-progress-barrier", "decommission-shrinks-cms", "reject-create-table",
                                  "removenode-nothing-to-stream-hangs"])
def test_the_same_campaigns_without_the_switch_show_only_known_findings(name):
    d, records = campaign(name, 120.0, shrink=False, plant=False, max_runs=30)
    assert not d.detected, f"control of {name} failed: {d.cause} (seed {d.seed})"
    assert len(records) == 30

