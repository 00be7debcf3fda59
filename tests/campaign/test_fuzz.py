"""`tcmcheck fuzz`, `replay` and `report`: deterministic rows, failures caught and replayable.

DESIGN: "campaign: runs many scenarios in parallel (local processes, ...), keeps results as
Parquet, minimizes failures, renders reports" — every failure must come with the one command
that replays it.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from campaign import fuzz as F
from campaign.cli import main
from campaign.formats.scenario import parse_scenario
from campaign.formats.text import counted
from campaign.formats.topology import parse_topology
from campaign.kinds import KINDS, checked, generate_case, run_one
from campaign.kinds import refine as refine_kind
from campaign.kinds import sim as sim_kind
from campaign.run.record import RunSpec
from campaign.store import COLUMNS, TIMING_COLUMNS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def verdict_rows(out: Path) -> list[dict[str, Any]]:
    rows = pq.read_table(out / "runs.parquet").to_pylist()
    return [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows]


# ---------------------------------------------------------------- generation


def test_a_seed_alone_regenerates_the_same_case() -> None:
    for kind in KINDS:
        assert generate_case(kind, 17) == generate_case(kind, 17)
        if kind != "stateful":  # a stateful case names a machine; the seed itself drives it
            assert generate_case(kind, 17) != generate_case(kind, 18)


@pytest.mark.parametrize("seed", range(20))
def test_generated_scenarios_are_valid_scenario_files_of_3_to_12_nodes(seed: int) -> None:
    doc = generate_case("sim", seed)
    scenario = parse_scenario(json.loads(json.dumps(doc)))  # survives a trip through a file
    nodes = json.loads(scenario.topology)["nodes"]
    assert 3 <= len(nodes) <= 12
    assert len({n["dc"] for n in nodes}) <= 3
    assert all(1 <= len(n["tokens"]) <= 4 for n in nodes)
    # up to two random crashes, and the target of each remove or replace dies first
    assert len(doc["faults"]["crashes"]) <= 2 + sum(1 for o in doc.get("operations", [])
                                                    if o["op"] in ("remove", "replace"))
    assert all(p["heal_ms"] >= p["start_ms"] for p in doc["faults"]["partitions"])


@pytest.mark.parametrize("seed", range(10))
def test_refine_cases_hold_10_to_40_transformations_and_mix_accepted_and_rejected(seed: int) -> None:
    case = generate_case("refine", seed)
    parse_topology(case["topology"])
    assert 10 <= len(case["transformations"]) <= 40
    counters = dict(checked(RunSpec(kind="refine", seed=seed, case=case)).counters)
    assert counters["accepted"] + counters["rejected"] == len(case["transformations"])


def test_run_seeds_derive_from_the_campaign_seed_and_kinds_alternate() -> None:
    assert [(i, s.kind, s.seed) for i, s in F.plan(4, 2, ("sim", "refine"))] == [
        (0, "sim", 2_000_006), (1, "refine", 2_000_007), (2, "sim", 2_000_008), (3, "refine", 2_000_009)]


# ---------------------------------------------------------------- the campaign


def test_the_same_command_gives_the_same_verdict_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    args = ("fuzz", "--runs", "8", "--seed", "3", "--workers", "2", "--out", str(out))
    first_status, first_out, _ = run(capsys, *args)
    first = verdict_rows(out)
    second_status, second_out, _ = run(capsys, *args)
    assert first_status == second_status
    assert first == verdict_rows(out)
    assert first_out == second_out
    # in-process (one worker) gives the same rows as the process pool
    run(capsys, *args[:-4], "--workers", "1", "--out", str(out))
    assert verdict_rows(out) == first


def test_runs_parquet_has_one_row_per_run_with_the_documented_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "fuzz", "--runs", "4", "--workers", "1", "--out", str(tmp_path))
    table = pq.read_table(tmp_path / "runs.parquet")
    assert tuple(table.column_names) == COLUMNS
    rows = table.to_pylist()
    assert [r["run"] for r in rows] == [0, 1, 2, 3]
    assert [r["kind"] for r in rows] == ["sim", "refine", "sim", "refine"]
    for r in rows:
        assert isinstance(json.loads(r["counters_json"]), dict)
        assert r["replay"].startswith("tcmcheck replay ")
        assert r["duration_s"] >= 0
        assert r["steps"] > 0


def test_an_engine_bug_is_caught_and_every_failure_replays_with_its_printed_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant impl that refuses every CREATE TABLE: the judge (sim) and the step-by-step
    comparison (refine) must both catch it, and the printed command must reproduce it."""
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "fuzz", "--runs", "4", "--seed", "0", "--kinds", "sim",
                         "--workers", "2", "--mutant", "reject-create-table")
    assert status == 1
    # one block per cause class: its count, first seed and the command that replays it
    commands = [line.strip() for line in out.splitlines() if line.startswith("  tcmcheck replay ")]
    assert commands and len(commands) == out.count("FAIL: ")
    assert "FAIL: 3 × logs: unjustified-rejection (first: sim seed 1)" in out
    rows = verdict_rows(tmp_path / "fuzz-out")
    files = [f"tcmcheck replay {tmp_path}/fuzz-out/{r['failure_file']}" for r in rows if not r["valid"]]
    assert set(commands) <= set(files)
    # the printed paths are absolute: the commands work when pasted in any folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for command in commands + files + [r["replay"] for r in rows if not r["valid"]]:
        assert command.startswith("tcmcheck replay ")
        status, verdict, _ = run(capsys, *shlex.split(command)[1:])
        assert status == 1
        assert json.loads(verdict)["valid"] is False
        assert json.loads(verdict)["mutant"] == "reject-create-table"
    # the same seed against the real engine is valid: the failure was the mutant's
    assert run(capsys, "replay", "--kind", "sim", "--seed", "0")[0] == 0
    assert {r["seed"] for r in rows if not r["valid"]} == {
        int(Path(f).stem.split("-")[1]) for f in files}


def test_refine_catches_impl_refusing_what_the_spec_accepts() -> None:
    rec = run_one(RunSpec(kind="refine", seed=12, mutant="reject-create-table"))
    assert not rec.outcome.valid
    assert rec.outcome.cause is not None and rec.outcome.cause.klass == "spec accepts, impl rejects"
    assert run_one(RunSpec(kind="refine", seed=12)).outcome.valid
    doc = json.loads(rec.failure or "")
    again = RunSpec(kind="refine", seed=doc["seed"], case=doc["case"], mutant=doc["mutant"])
    assert checked(again) == rec.outcome


def test_refine_reports_a_broken_spec_invariant_with_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refine_kind, "violations", lambda m: (("ranges_tile_the_ring", "gap"),) if m.epoch >= 2 else ())
    case = generate_case("refine", 5)
    outcome = checked(RunSpec(kind="refine", seed=5, case=case))
    assert not outcome.valid
    assert outcome.cause is not None and "invariant ranges_tile_the_ring: gap" in outcome.cause.text
    assert "at epoch 1)" in outcome.cause.text
    assert outcome.cause.klass == "invariant ranges_tile_the_ring"


def test_refine_reports_placements_that_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    from impl.metadata import Metadata

    real = Metadata.placements_json
    monkeypatch.setattr(Metadata, "placements_json", lambda self: {} if self.epoch >= 1 else real(self))
    outcome = checked(RunSpec(kind="refine", seed=5, case=generate_case("refine", 5)))
    assert outcome.cause is not None and outcome.cause.text.endswith("spec and impl disagree on placements")


def test_a_judge_verdict_of_invalid_fails_the_sim_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from attrs import evolve

    from campaign.judge import cause as C
    from campaign.judge.check import CheckResult

    real = sim_kind.judge

    def doctored(scenario: Any, result: Any, **kwargs: Any) -> Any:
        judgement = real(scenario, result, **kwargs)
        refusal = CheckResult(causes=(C.spec_replay("epoch 3: doctored"),))
        return evolve(judgement, results=tuple((c, refusal if c.name == "refinement" else r)
                                               for c, r in judgement.results))

    monkeypatch.setattr(sim_kind, "judge", doctored)
    records = F.campaign(2, 0, kinds=("sim",), workers=1, fail_fast=True)
    assert len(records) == 1  # fail-fast stopped after the first failure
    assert str(records[0].outcome.cause) == "spec replay: epoch 3: doctored"


def test_replaying_a_valid_seed_prints_a_valid_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "replay", "--kind", "refine", "--seed", "1")
    verdict = json.loads(out)
    assert (status, verdict["valid"], verdict["kind"], verdict["seed"]) == (0, True, "refine", 1)


# ---------------------------------------------------------------- report


def test_report_summarizes_runs_failures_and_their_replay_commands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    run(capsys, "fuzz", "--runs", "4", "--kinds", "sim", "--workers", "1", "--out", str(out),
        "--mutant", "reject-create-table")
    status, text, _ = run(capsys, "report", str(out))
    assert status == 0
    assert text.startswith("4 runs, ")
    assert "sim: 4 runs" in text
    assert "logs: unjustified-rejection" in text
    assert f"tcmcheck replay {out / 'failures'}" in text
    status, js, _ = run(capsys, "report", str(out), "--json")
    s = json.loads(js)
    assert s["runs"] == 4 and s["kinds"]["sim"]["runs"] == 4
    assert s["failed"] == len(s["failures"]) > 0
    assert all(f["replay"].startswith("tcmcheck replay ") for f in s["failures"])


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("args", [
    ["fuzz", "--runs", "0"],
    ["fuzz", "--runs", "many"],
    ["fuzz", "--workers", "0"],
    ["fuzz", "--kinds", "sim,chaos"],
    ["fuzz", "--kinds", ","],
    ["fuzz", "--max-seconds", "-1"],
    ["fuzz", "--mutant", "nope"],
    ["replay"],
    ["replay", "--kind", "sim"],
    ["replay", "--kind", "chaos", "--seed", "1"],
    ["replay", "missing-file.json"],
    ["report", "no-such-dir"],
])
def test_bad_options_exit_2_with_one_line(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *args)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("tcmcheck: error: ")


@pytest.mark.parametrize("content", ["{", "[]", '{"kind": "sim", "seed": 1}',
                                     '{"kind": "refine", "seed": 1, "case": {"topology": 3}}',
                                     '{"kind": "sim", "seed": 1, "case": {"topology": {"nodes": []}}}'])
def test_a_malformed_failure_file_exits_2_with_one_line(content: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "f.json"
    path.write_text(content)
    status, out, err = run(capsys, "replay", str(path))
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1


def test_report_of_a_damaged_parquet_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs.parquet").write_text("not parquet")
    status, _, err = run(capsys, "report", str(tmp_path))
    assert status == 2 and "not a readable Parquet file" in err


def test_generate_uses_only_its_rng() -> None:
    import random

    a = sim_kind.generate(random.Random(5))
    random.seed(99)  # the global RNG must not matter
    assert sim_kind.generate(random.Random(5)) == a


def test_a_crash_inside_the_code_under_test_is_a_failing_run_not_the_end_of_the_campaign(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(m: Any) -> tuple[str, ...]:
        raise RuntimeError("invariant checker exploded")

    monkeypatch.setattr(refine_kind, "violations", boom)
    records = F.campaign(3, 0, kinds=("refine",), workers=1)
    assert len(records) == 3
    assert {str(r.outcome.cause) for r in records} == {"crash: RuntimeError: invariant checker exploded"}
    assert all(r.failure is not None and "Traceback" in json.loads(r.failure)["verdict"]["details"]["traceback"]
               for r in records)
    assert records[0].outcome.cause is not None and records[0].outcome.cause.klass == "crash: RuntimeError"


def test_max_seconds_stops_starting_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "fuzz", "--runs", "500", "--workers", "1", "--max-seconds", "0.01",
                         "--kinds", "refine", "--out", str(tmp_path))
    rows = pq.read_table(tmp_path / "runs.parquet").to_pylist()
    assert 1 <= len(rows) < 500
    assert out.startswith(f"{counted(len(rows), 'run')} (refine {len(rows)}), ")


def test_max_seconds_without_runs_runs_until_the_time_is_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"Run five minutes on replaces" is `fuzz --focus replace --max-seconds 300`: without --runs the
    time, not the default 1,000 runs, ends the campaign."""
    status, out, _ = run(capsys, "fuzz", "--workers", "1", "--max-seconds", "1.5", "--kinds", "refine",
                         "--out", str(tmp_path))
    rows = pq.read_table(tmp_path / "runs.parquet").to_pylist()
    assert len(rows) >= 1
    assert f"stopped by --max-seconds 1.5 after {counted(len(rows), 'run')}; more with: " in out
    assert json.loads((tmp_path / "campaign.json").read_text())["stopped_by"] == "max-seconds"


def test_a_generator_crash_is_a_failing_row_not_the_end_of_the_campaign(monkeypatch) -> None:
    """The refine generator runs the spec: a spec exception while generating (refine seed
    3141014212 once) must become a `crash:` row replayable from its seed, in-process and in a
    worker pool alike, and the campaign goes on."""
    from attrs import evolve

    def broken(rng, focus=None):  # the Kind.generate signature
        raise ValueError("zip() argument 2 is shorter than argument 1")

    monkeypatch.setitem(KINDS, "refine", evolve(KINDS["refine"], generate=broken))
    records = F.campaign(4, 0, kinds=("sim", "refine"), workers=1)
    assert [r.spec.kind for r in records if not r.outcome.valid] == ["refine", "refine"]
    assert all(str(r.outcome.cause) == "crash: ValueError: zip() argument 2 is shorter than argument 1"
               for r in records if r.spec.kind == "refine")
    assert all(r.outcome.valid for r in records if r.spec.kind == "sim")
    assert records[1].spec.replay_command() == f"tcmcheck replay --kind refine --seed {records[1].spec.seed}"


def test_a_campaign_of_one_run_says_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "one"
    status, text, _ = run(capsys, "fuzz", "--runs", "1", "--kinds", "refine", "--workers", "1", "--out", str(out))
    assert status == 0 and text.startswith("1 run (refine 1), 0 failed")
    status, text, _ = run(capsys, "report", str(out))
    assert status == 0 and text.startswith("1 run, 0 failed") and "refine: 1 run, 0 failed" in text
