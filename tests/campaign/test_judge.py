"""Judging impl's runs with the checkers and the spec: valid runs pass, doctored runs fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attrs import evolve

from campaign.formats.scenario import load_scenario, parse_scenario
from campaign.judge.judgement import judge
from impl.cluster import run_scenario
from impl.entry import Entry
from observed.run import Observed

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def racing_scenario() -> dict[str, object]:
    """Racing DDL from several nodes with loss and a crash: many rejections to justify."""
    return {
        "topology": {"nodes": [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [i * 100]} for i in range(1, 8)],
                     "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]},
        "cms": {"size": 3},
        "workloads": [{"kind": "schema", "count": 150, "start_ms": 0, "spread_ms": 3000, "names": 3}],
        "faults": {"loss": 0.05, "reorder": 0.2, "crashes": [{"node": "n2", "at_ms": 1000, "restart_ms": 2000}]},
    }


@pytest.mark.parametrize("example", ["simulate-basic.json", "simulate-faults.json"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_example_runs_satisfy_every_checker_and_the_spec(example: str, seed: int) -> None:
    scenario = load_scenario(EXAMPLES / example)
    verdict = judge(scenario, run_scenario(scenario, seed))
    assert verdict.valid, verdict.summary()


def test_racing_schema_changes_are_rejected_exactly_when_the_spec_rejects_them() -> None:
    scenario = parse_scenario(racing_scenario())
    result = run_scenario(scenario, 11)
    assert result.counter("rejections") > 0
    verdict = judge(scenario, result)
    assert verdict.valid, verdict.summary()


def first_result() -> tuple[object, Observed]:
    scenario = load_scenario(EXAMPLES / "simulate-basic.json")
    return scenario, run_scenario(scenario, 0)


def test_an_entry_the_spec_rejects_is_reported_as_a_refinement_failure() -> None:
    scenario, result = first_result()
    bogus = json.dumps({"kind": "START_JOIN", "node": "n1"}, sort_keys=True, separators=(",", ":"))

    def doctor(entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
        return tuple(evolve(e, kind="START_JOIN", transformation=bogus) if e.epoch == 2 else e for e in entries)

    doctored = evolve(result, nodes=tuple(evolve(n, entries=doctor(n.entries)) for n in result.nodes))
    verdict = judge(scenario, doctored)  # type: ignore[arg-type]
    assert not verdict.valid
    assert any("epoch 2" in r and "spec rejects" in r for r in verdict.summary()["refinement"])


def test_two_nodes_disagreeing_on_an_epoch_break_the_log_checkers() -> None:
    scenario, result = first_result()
    node = result.nodes[0]
    changed = tuple(evolve(e, entry_id="forged") if e.epoch == 1 else e for e in node.entries)
    doctored = evolve(result, nodes=(evolve(node, entries=changed), *result.nodes[1:]))
    verdict = judge(scenario, doctored)  # type: ignore[arg-type]
    assert verdict.summary()["logs"]["valid"] is False
    assert verdict.causes()[0].family == "logs"


def test_simulate_check_reports_the_judgement(capsys: pytest.CaptureFixture[str]) -> None:
    from campaign.cli import main

    assert main(["simulate", str(EXAMPLES / "simulate-faults.json"), "--seed", "3", "--check"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["judgement"]["valid"] is True


@pytest.mark.parametrize("seed", [0, 1])
def test_twenty_nodes_racing_1000_submissions_agree_with_the_spec(seed: int) -> None:
    """Issue 3's faulty 20-node run: hundreds of rejections, each one the spec's too."""
    from tests.impl.sim.test_commit_safety import racing

    scenario = racing(1000, spread_ms=60000)
    result = run_scenario(scenario, seed)
    assert result.counter("rejections") > 300
    verdict = judge(scenario, result)
    assert verdict.valid, verdict.summary()


def _gossip_era(**initialize: object) -> dict[str, object]:
    nodes = [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [i * 100]} for i in range(1, 5)]
    return {"topology": {"nodes": nodes, "keyspaces": [
                {"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]},
            "cms": {"size": 0}, "initialize": {"initiator": "n1", "at_ms": 100, **initialize},
            "settings": {"end_time_ms": 20_000}}


def test_an_election_aborted_before_the_metadata_is_not_a_rejection_to_justify() -> None:
    # Election.initiate throws on a silent peer or a mismatching view before anything is
    # committed: the INITIALIZE_CMS gates never ran, so the log checker has nothing to justify
    silent = {**_gossip_era(), "faults": {"crashes": [{"node": "n4", "at_ms": 0}]}}
    nodes = silent["topology"]["nodes"]  # type: ignore[index]
    other = {"nodes": [dict(n, rack="r9") if n["id"] == "n3" else n for n in nodes],
             "keyspaces": silent["topology"]["keyspaces"]}  # type: ignore[index]
    for doc in (silent, _gossip_era(views={"n3": other})):
        sc = parse_scenario(doc)
        result = run_scenario(sc, 1)
        assert result.final_epoch == 0 and result.counter("election_aborts") == 1
        verdict = judge(sc, result)
        assert verdict.valid, verdict.summary()
    # a gate's rejection (INITIALIZE_CMS executed against the metadata) is still justified
    # against the spec: a doctored reason would not be
    sc = parse_scenario(_gossip_era(versions={"n2": "5.0.2"}))
    result = run_scenario(sc, 1)
    assert result.counter("rejections") == 1 and judge(sc, result).valid
