"""`tcmcheck shrink`: a smaller failure file that still fails the same way and still replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign.cli import main
from campaign.kinds import KINDS, run_one
from campaign.run.record import RunSpec
from campaign.shrink import shrink


def failure_file(tmp_path: Path, kind: str, seed: int) -> Path:
    rec = run_one(RunSpec(kind=kind, seed=seed, mutant="reject-create-table"))
    assert rec.failure is not None, f"{kind} seed {seed} no longer fails under the mutant"
    path = tmp_path / f"{kind}-{seed}.json"
    path.write_text(rec.failure)
    return path


@pytest.mark.parametrize(("kind", "seed"), [("refine", 12), ("sim", 2)])
def test_shrinking_keeps_the_failure_and_makes_the_case_smaller(
        kind: str, seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = failure_file(tmp_path, kind, seed)
    before = json.loads(path.read_text())
    assert main(["shrink", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    small = Path(summary["file"])
    assert small == path.with_suffix(".min.json")
    assert summary["size_after"] < summary["size_before"]
    after = json.loads(small.read_text())
    assert KINDS[kind].size(after["case"]) == summary["size_after"]
    assert after["verdict"]["cause_class"] == before["verdict"]["cause_class"]
    assert after["mutant"] == before["mutant"] == "reject-create-table"
    assert main(["replay", str(small)]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False


def test_a_refine_failure_shrinks_to_the_one_refused_step() -> None:
    rec = run_one(RunSpec(kind="refine", seed=12, mutant="reject-create-table"))
    small = shrink(rec.spec)
    assert small.spec.case is not None
    assert [t["change"]["op"] for t in small.spec.case["transformations"]] == ["CREATE_TABLE"]
    assert small.outcome.cause is not None and small.outcome.cause.klass == "spec accepts, impl rejects"
    assert small.spec.mutant == "reject-create-table"


def test_shrinking_a_valid_case_writes_nothing_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = failure_file(tmp_path, "refine", 12)
    doc = json.loads(path.read_text())
    del doc["mutant"]  # against the real engine the case is valid
    path.write_text(json.dumps(doc))
    assert main(["shrink", str(path)]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is True
    assert not path.with_suffix(".min.json").exists()


@pytest.mark.parametrize("args", [["shrink", "missing.json"], ["shrink", "f.json", "--max-checks", "0"]])
def test_bad_shrink_input_exits_2_with_one_line(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.json").write_text("{}")
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1


def test_a_shrunk_failure_of_a_fix_campaign_keeps_its_fixes_and_replays_with_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 20's reproduction: `tcmcheck fuzz --runs 200 --seed 5 --fix two-epoch-cancel` writes
    failures/refine-5000092.json (a known finding the fix does not remove); shrinking it once wrote
    m.json without `fixes`, so replaying m.json ran without the fix."""
    rec = run_one(RunSpec(kind="refine", seed=5000092, fixes=frozenset({"two-epoch-cancel"})))
    assert rec.failure is not None, "refine seed 5000092 no longer fails: pick another failure of that campaign"
    path = tmp_path / "refine-5000092.json"
    path.write_text(rec.failure)
    assert json.loads(path.read_text())["fixes"] == ["two-epoch-cancel"]
    small = tmp_path / "m.json"
    assert main(["shrink", str(path), "--out", str(small)]) == 0
    capsys.readouterr()
    assert json.loads(small.read_text())["fixes"] == ["two-epoch-cancel"]
    assert main(["replay", str(small)]) == 1
    assert json.loads(capsys.readouterr().out)["fixes"] == ["two-epoch-cancel"]
    shrunk = shrink(rec.spec, max_checks=50)
    assert shrunk.spec.fixes == frozenset({"two-epoch-cancel"})
