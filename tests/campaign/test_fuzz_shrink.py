"""`tcmcheck shrink`: a smaller failure file that still fails the same way and still replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign import fuzz as F
from campaign.cli import main


def failure_file(tmp_path: Path, kind: str, seed: int) -> Path:
    rec = F.run_one(kind, seed, mutant="reject-create-table")
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
    assert F.case_size(kind, after["case"]) == summary["size_after"]
    assert F.cause_class(after["verdict"]["cause"]) == F.cause_class(before["verdict"]["cause"])
    assert main(["replay", str(small)]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False


def test_a_refine_failure_shrinks_to_the_one_refused_step() -> None:
    rec = F.run_one("refine", 12, mutant="reject-create-table")
    doc = json.loads(rec.failure or "")
    small, outcome, _ = F.shrink_case("refine", doc["case"], 12, mutant="reject-create-table")
    assert [t["change"]["op"] for t in small["transformations"]] == ["CREATE_TABLE"]
    assert outcome.cause is not None and "spec accepts, impl rejects" in outcome.cause


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
