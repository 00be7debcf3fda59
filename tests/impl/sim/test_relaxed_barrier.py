"""Finding relaxed-progress-barrier: with progress_barrier_min_consistency_level below its
default, Cassandra's ProgressBarrier relaxes and an operation steps past replicas that never saw
its previous step, so a quorum of the old placement can lag together and serve a lagging
coordinator's read from before the change; the judge reports it apart, and the fix
barrier-no-relaxation closes it (docs/findings.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from attrs import evolve

from campaign.formats.scenario import parse_scenario
from campaign.judge.cause import RELAXED_BARRIER
from campaign.judge.judgement import judge
from campaign.kinds import checked
from campaign.run.findings import known_finding
from campaign.run.record import RunSpec
from impl.cluster import run_scenario

FIX = frozenset({"barrier-no-relaxation"})
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "findings" / "relaxed-progress-barrier.json"


def example() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return doc


def test_a_relaxed_barrier_lets_a_lagging_quorum_serve_a_stale_read_and_the_fix_waits() -> None:
    doc = example()
    faithful = checked(RunSpec(kind="sim", seed=doc["seed"], case=doc["case"]))
    assert faithful.cause is not None and faithful.cause.text == f"clients: {RELAXED_BARRIER}"
    finding = known_finding(faithful.cause.klass)
    assert finding is not None and finding.id == "relaxed-progress-barrier"
    assert known_finding(faithful.cause.klass, FIX) is None  # with the fix it would be new
    fixed = checked(RunSpec(kind="sim", seed=doc["seed"], case=doc["case"], fixes=FIX))
    assert fixed.valid, fixed.cause


def test_only_a_run_whose_barrier_relaxed_is_this_finding() -> None:
    """The same violation at the default minimum level (nothing may relax) stays new."""
    doc = example()
    scenario = parse_scenario(doc["case"])
    result = run_scenario(scenario, doc["seed"])
    assert dict(result.counters)["barrier_relaxations"] > 0
    assert judge(scenario, result).summary()["clients"]["cause"] == RELAXED_BARRIER
    strict = evolve(scenario, settings=evolve(scenario.settings, barrier_min_consistency="EACH_QUORUM"))
    blind = judge(strict, result)
    assert "clients" in blind.summary() and blind.summary()["clients"]["cause"] == "not-linearizable"
