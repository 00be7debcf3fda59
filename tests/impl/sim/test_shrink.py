"""Schedule shrinking (docs/shrink.md): a run replays from its decision list byte for byte, a
deleted decision takes its default, and a shrunk sim failure keeps its cause and replays from
its file alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.cli import main
from campaign.formats.scenario import parse_scenario
from campaign.judge import cause as C
from campaign.kinds import checked, generate_case, run_one
from campaign.kinds.sim import steps as sim_steps
from campaign.mutants.matrix import campaign
from campaign.run.record import RunSpec
from campaign.shrink.schedule import shrink_sim
from impl.cluster import run_scenario


def replayed(case: dict[str, Any], seed: int, decisions: Any) -> Any:
    doc = json.loads(json.dumps({**case, "decisions": [list(d) for d in decisions]}))
    return run_scenario(parse_scenario(doc), seed, keep_trace=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_run_replayed_from_its_decisions_is_the_same_run_byte_for_byte(seed: int) -> None:
    case = generate_case("sim", seed)
    scenario = parse_scenario(case)
    plain = run_scenario(scenario, seed, keep_trace=True)
    recorded = run_scenario(scenario, seed, keep_trace=True, record_decisions=True)
    assert recorded.decisions, "a generated run makes random decisions"
    again = replayed(case, seed, recorded.decisions)
    assert plain.trace == recorded.trace == again.trace
    assert plain.summary() == again.summary()
    assert again.decisions == recorded.decisions
    assert replayed(case, seed, recorded.decisions).trace == again.trace


def test_an_empty_decision_list_takes_every_default() -> None:
    case = generate_case("sim", 1)
    case["faults"].update({"loss": 0.5, "duplicate": 0.5, "reorder": 0.5})
    seeded = run_scenario(parse_scenario(case), 1, record_decisions=True)
    assert seeded.counter("messages_duplicated") > 0
    simplest = replayed(case, 1, [])
    assert simplest.decisions == ()
    assert simplest.counter("messages_duplicated") == 0
    # every drop is a partition's or a crash's, none is a random loss
    assert simplest.counter("messages_dropped") <= seeded.counter("messages_dropped")
    assert not any(" lost " in line for line in replayed(case, 1, []).trace)


def test_a_shrunk_sim_failure_keeps_its_cause_and_replays_from_its_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = run_one(RunSpec(kind="sim", seed=2, mutant="reject-create-table"))
    assert rec.failure is not None and rec.outcome.cause is not None
    path = tmp_path / "f.json"
    path.write_text(rec.failure)
    assert main(["shrink", str(path), "--max-checks", "200"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps_after"] * 5 <= summary["steps_before"]
    assert summary["events_after"] * 5 <= summary["events_before"]
    small = json.loads(Path(summary["file"]).read_text())
    assert "decisions" in small["case"]
    assert small["verdict"]["cause_class"] == rec.outcome.cause.klass
    assert main(["replay", summary["file"]]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is False and out["cause_class"] == rec.outcome.cause.klass


CAUGHT = ("trace: barrier", "clients: not-linearizable")


def test_the_no_progress_barrier_counterexample_is_at_most_12_steps_and_events(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found, _ = campaign("no-progress-barrier", 120.0, max_runs=60, shrink_found=False)
    assert found.detected and found.seed is not None and found.failure is not None
    doc = json.loads(found.failure)
    spec = RunSpec(kind="sim", seed=found.seed, case=doc["case"], mutant="no-progress-barrier")
    small, outcome, _, before, after = shrink_sim(spec, max_checks=400)
    # caught by the trace invariant `barrier` or, when the run shows no barrier step, by the clients
    assert outcome.cause is not None and outcome.cause.klass in CAUGHT, outcome.cause
    assert after.steps <= 12 and after.events <= 12, (before, after)
    assert sim_steps(small) == after.steps and len(small["decisions"]) == after.events
    # the runnable reproduction: the switch fails it, the same case without the switch passes
    path = tmp_path / "npb.json"
    path.write_text(json.dumps({**doc, "case": small}))
    assert main(["replay", str(path)]) == 1
    assert json.loads(capsys.readouterr().out)["cause"] == outcome.cause.text
    assert checked(RunSpec(kind="sim", seed=found.seed, case=small)).valid


@pytest.mark.parametrize(("field", "value", "message"), [
    ("decision_seed", -1, "decision_seed"),
    ("decision_seed", "7", "decision_seed"),
    ("decision_seed", 2**63, "decision_seed"),
    ("decisions", [["delay n1>n2 Commit", -1, 5]], "decisions[0]"),
    ("decisions", [["k", 0, 1], ["k", 0, 2]], "appears twice"),
    ("decisions", {"k": 1}, "decisions"),
])
def test_a_malformed_decision_list_is_bad_input(field: str, value: Any, message: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    case = generate_case("sim", 1)
    case[field] = value
    path = tmp_path / "s.json"
    path.write_text(json.dumps(case))
    assert main(["simulate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_a_workload_only_list_out_of_range_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = generate_case("sim", 1)
    case["workloads"][0]["only"] = [case["workloads"][0]["count"]]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(case))
    assert main(["simulate", str(path)]) == 2
    assert "only" in capsys.readouterr().err


@pytest.mark.parametrize(("a", "b"), [
    (C.durability("replicas of kv/k0 disagree at the end (n2:-, n4:101, n8:101)"),
     C.durability("replicas of kv/k2 disagree at the end (n1:7, n3:-)")),
    (C.liveness("operation stuck", "join on n3 never finished (its barrier could be met)"),
     C.liveness("operation stuck", "leave on n5 never finished (its barrier could be met)")),
    (C.metadata_differs("n3", 5, "snapshot", "placements"), C.metadata_differs("n1", 9, "end", "placements")),
    (C.quorum("disjoint-across-epochs", "ks1 (1, 5), read at epoch 4, write at epoch 5", "CANCEL_SEQUENCE"),
     C.quorum("disjoint-across-epochs", "ks2 (9, 2), read at epoch 7, write at epoch 8", "CANCEL_SEQUENCE")),
    (C.refine_step("step 3 (START_JOIN at epoch 4)", "invariant reads_have_replication_factor: ks1 (1, 2)",
                   invariant="reads_have_replication_factor"),
     C.refine_step("step 9 (FINISH_LEAVE at epoch 7)", "invariant reads_have_replication_factor: ks2 (5, 6)",
                   invariant="reads_have_replication_factor")),
])
def test_one_bug_in_two_runs_is_one_cause_class(a: C.Cause, b: C.Cause) -> None:
    """Shrinking keeps a cause class: a run's details (key, node, epoch) must not be part of it."""
    assert a.text != b.text
    assert a.klass == b.klass != ""


@pytest.mark.slow  # about a minute: a campaign per switch, then up to 400 shrinking runs each
@pytest.mark.parametrize("name", ["submit-retry-new-entry-id", "paxos-ignores-accepted-value",
                                  "catchup-trusts-lagging-peer"])
def test_an_impl_switch_failure_shrinks_at_least_5x_in_steps_and_events(name: str) -> None:
    found, _ = campaign(name, 120.0, max_runs=200, shrink_found=False)
    assert found.detected and found.seed is not None and found.failure is not None
    doc = json.loads(found.failure)
    spec = RunSpec(kind="sim", seed=found.seed, case=doc["case"], mutant=name)
    small, outcome, _, before, after = shrink_sim(spec, max_checks=400)
    assert outcome.cause is not None and outcome.cause.klass == doc["verdict"]["cause_class"]
    assert after.steps * 5 <= before.steps and after.events * 5 <= before.events, (before, after)
    assert not checked(RunSpec(kind="sim", seed=found.seed, case=small, mutant=name)).valid


def test_a_decision_seed_draws_the_unscripted_decisions_and_the_recording_replays_alone() -> None:
    # schedule shrinking's other schedules: decisions from `decision_seed`, the workloads from
    # the run's seed; what the run took, as a plain decision list, gives the very same run
    case = generate_case("sim", 3)
    a = run_scenario(parse_scenario({**case, "decisions": [], "decision_seed": 11}), 3)
    b = run_scenario(parse_scenario({**case, "decisions": [], "decision_seed": 12}), 3)
    plain = run_scenario(parse_scenario({**case, "decisions": []}), 3)
    assert len({a.trace_hash, b.trace_hash, plain.trace_hash}) == 3
    recorded = run_scenario(parse_scenario({**case, "decisions": [], "decision_seed": 11}), 3,
                            record_decisions=True)
    again = run_scenario(parse_scenario({**case, "decisions": [list(d) for d in recorded.decisions]}), 3)
    assert recorded.trace_hash == again.trace_hash == a.trace_hash


def test_a_decision_seed_needs_a_decision_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = generate_case("sim", 1)
    case.pop("decisions", None)
    case["decision_seed"] = 1
    path = tmp_path / "s.json"
    path.write_text(json.dumps(case))
    assert main(["simulate", str(path)]) == 2
    assert "only with a decision list" in capsys.readouterr().err
