"""Durable campaigns: runs written as they finish, --resume, dead and hung workers, signals,
and an --out that never touches the user's files.

The issue: "killing it (or one of its workers) loses every finished run, and --out deletes files
it did not write. This issue makes campaigns something a team can run for hours."
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from campaign import fuzz as F
from campaign.cli import main
from campaign.commands import fuzz as fuzz_command
from campaign.engines import local
from campaign.engines.base import Task
from campaign.kinds import generate_case
from campaign.run.record import RunRecord
from campaign.store import TIMING_COLUMNS

TCMCHECK = [sys.executable, "-m", "campaign"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def verdicts(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).drop(list(TIMING_COLUMNS)).to_pylist()


# ---------------------------------------------------------------- the user's files


def test_files_of_the_user_in_out_and_in_failures_survive_campaigns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "OUT"
    (out / "failures").mkdir(parents=True)
    mine = out / "notes.txt"
    mine.write_text("mine")
    my_failure = out / "failures" / "keep.json"
    my_failure.write_text("{}")
    args = ("fuzz", "--runs", "4", "--kinds", "sim", "--workers", "1", "--out", str(out),
            "--mutant", "reject-create-table")
    assert run(capsys, *args)[0] == 1
    written = sorted(p.name for p in (out / "failures").glob("sim-*.json"))
    assert written
    shrunk = out / "failures" / written[0].replace(".json", ".min.json")
    shrunk.write_text("{}")  # as `tcmcheck shrink` leaves it
    # a second, different campaign in the same folder: it replaces what the first wrote, only that
    assert run(capsys, "fuzz", "--runs", "2", "--kinds", "refine", "--workers", "1", "--out", str(out))[0] == 0
    assert mine.read_text() == "mine" and my_failure.read_text() == "{}" and shrunk.read_text() == "{}"
    assert not list((out / "failures").glob("sim-*[0-9].json"))  # the first campaign's own files
    assert len(pq.read_table(out / "runs.parquet")) == 2


def test_a_failure_file_name_taken_by_the_user_is_not_overwritten(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    taken = out / "failures" / "sim-0.json"
    taken.parent.mkdir(parents=True)
    taken.write_text("the user's")
    status, text, _ = run(capsys, "fuzz", "--runs", "1", "--kinds", "sim", "--workers", "1", "--out", str(out),
                          "--mutant", "reject-create-table")
    assert status == 1
    assert taken.read_text() == "the user's"
    assert f"tcmcheck replay {out / 'failures' / 'sim-0.1.json'}" in text
    assert json.loads((out / "failures" / "sim-0.1.json").read_text())["seed"] == 0


@pytest.mark.parametrize("name", ["runs.parquet", "failures"])
def test_a_symlinked_runs_parquet_or_failures_folder_is_refused(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    out.mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (out / name).symlink_to(target / name if name == "runs.parquet" else target)
    status, stdout, err = run(capsys, "fuzz", "--runs", "2", "--workers", "1", "--out", str(out))
    assert (status, stdout) == (2, "")
    assert "is a symlink" in err and len(err.strip().splitlines()) == 1
    assert list(target.iterdir()) == []


def test_someone_elses_runs_parquet_is_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs.parquet").write_text("not ours")
    status, _, err = run(capsys, "fuzz", "--runs", "2", "--workers", "1", "--out", str(tmp_path))
    assert status == 2 and "was not written by a tcmcheck campaign" in err
    assert (tmp_path / "runs.parquet").read_text() == "not ours"


@pytest.mark.parametrize(("args", "message"), [
    (["--out", "/proc/x"], "--out: cannot create /proc/x"),
    (["--out", "FILE/sub"], "--out: FILE/sub: a parent of it is a file"),
    (["--out", "FILE"], "Invalid value for '--out': Directory 'FILE' is a file"),
    (["--seed", "10000000000000"], "--seed: 10000000000000 is too large"),
    (["--resume"], "--resume: fuzz-out holds no campaign to resume"),
])
def test_output_and_seed_problems_are_found_before_any_run(
        args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("FILE").write_text("a file")
    ran: list[int] = []
    monkeypatch.setattr(fuzz_command, "run_campaign", lambda *a, **k: ran.append(1) or [])
    status, out, err = run(capsys, "fuzz", "--runs", "3", "--workers", "1", *args)
    assert (status, out, ran) == (2, "", [])
    assert err.startswith(f"tcmcheck: error: {message}") and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["FILE"]  # nothing created


def test_the_largest_seed_that_fits_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    largest = (2**63 - 1 - 1) // 1_000_003
    status, _, _ = run(capsys, "fuzz", "--runs", "2", "--kinds", "refine", "--workers", "1",
                       "--seed", str(largest), "--out", str(tmp_path / "o"))
    assert status in (0, 1)
    assert pq.read_table(tmp_path / "o" / "runs.parquet").column("seed").to_pylist()[-1] == F.run_seed(largest, 1)


def test_workers_are_capped_at_the_cpu_count_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = fuzz_command.make_engine
    monkeypatch.setattr(fuzz_command, "make_engine", lambda name, options: seen.append(options.workers)
                        or real(name, options))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    status, _, err = run(capsys, "fuzz", "--runs", "2", "--kinds", "refine", "--workers", "64",
                         "--out", str(tmp_path / "a"))
    assert status == 0 and "--workers 64 capped at the 2 CPUs" in err
    run(capsys, "fuzz", "--runs", "2", "--kinds", "refine", "--workers", "3", "--force-workers",
        "--out", str(tmp_path / "b"))
    assert seen == [2, 3]


# ---------------------------------------------------------------- fail-fast


def test_fail_fast_goes_past_known_findings_and_stops_at_a_new_failure() -> None:
    # refine seed 0's campaign meets the known cancel-after-mid finding within 40 runs
    records = F.campaign(40, 0, kinds=("refine",), workers=1, fail_fast=True)
    assert len(records) == 40
    assert any(not r.outcome.valid for r in records)
    strict = F.campaign(40, 0, kinds=("refine",), workers=1, fail_fast=True, strict=True)
    assert len(strict) < 40 and not strict[-1].outcome.valid


# ---------------------------------------------------------------- dead and hung workers


def test_a_killed_worker_and_a_hung_run_become_error_rows_and_the_campaign_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = local.work

    def doomed(task: Task) -> RunRecord:
        if task[0] == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        if task[0] == 3:
            time.sleep(60)
        return real(task)

    monkeypatch.setattr(local, "work", doomed)  # the forked workers inherit it
    records = F.campaign(6, 0, kinds=("refine",), workers=2, run_timeout=3)
    assert [r.run for r in records] == list(range(6))
    causes = {r.run: str(r.outcome.cause) for r in records}
    assert causes[1] == "worker died: SIGKILL"
    assert causes[3] == "timeout: over 3 s"
    monkeypatch.undo()
    normal = F.campaign(6, 0, kinds=("refine",), workers=1)
    assert [r.outcome for r in records if r.run not in (1, 3)] == [r.outcome for r in normal if r.run not in (1, 3)]
    dead = json.loads(records[1].failure or "")
    assert dead["case"] == generate_case("refine", dead["seed"])  # replayable like any failure


# ---------------------------------------------------------------- kill, resume, stop


def _start(out: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*TCMCHECK, "fuzz", "--runs", "24", "--seed", "7", "--kinds", "refine",
                             "--workers", "2", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _wait_for_rows(out: Path, n: int, proc: subprocess.Popen[bytes]) -> None:
    log = out / "runs.log.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and log.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.05)
    pytest.fail(f"the campaign recorded fewer than {n} runs (exit {proc.poll()})")


def test_sigkill_of_the_campaign_then_resume_gives_each_run_once_and_the_same_table(tmp_path: Path) -> None:
    out = tmp_path / "c"
    proc = _start(out)
    _wait_for_rows(out, 5, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the main process and its workers
    proc.wait()
    before = (out / "runs.log.jsonl").read_bytes().count(b"\n")
    assert before >= 5 and not (out / "runs.parquet").exists()
    # without --resume the unfinished campaign is not thrown away
    again = subprocess.run([*TCMCHECK, "fuzz", "--runs", "24", "--seed", "7", "--kinds", "refine", "--out", str(out)],
                           capture_output=True, text=True)
    assert again.returncode == 2 and "--resume" in again.stderr
    done = subprocess.run([*TCMCHECK, "fuzz", "--runs", "24", "--seed", "7", "--kinds", "refine", "--workers", "2",
                           "--out", str(out), "--resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "of them from before --resume" in done.stdout
    rows = verdicts(out / "runs.parquet")
    assert [r["run"] for r in rows] == list(range(24))
    clean = tmp_path / "clean"
    subprocess.run([*TCMCHECK, "fuzz", "--runs", "24", "--seed", "7", "--kinds", "refine", "--workers", "2",
                    "--out", str(clean)], capture_output=True, check=True)
    assert rows == verdicts(clean / "runs.parquet")
    assert sorted(p.name for p in (out / "failures").iterdir()) == sorted(p.name for p in (clean / "failures").iterdir())


def test_sigterm_stops_cleanly_keeping_every_finished_run(tmp_path: Path) -> None:
    out = tmp_path / "c"
    proc = _start(out)
    _wait_for_rows(out, 3, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    rows = verdicts(out / "runs.parquet")
    assert 3 <= len(rows) < 24 and len({r["run"] for r in rows}) == len(rows)
    assert b"stopped by SIGTERM" in err and b"--resume" in err and b"Traceback" not in err
    assert not (out / "runs.log.jsonl").exists()
    manifest = json.loads((out / "campaign.json").read_text())
    assert manifest["stopped"] is True and manifest["stopped_by"] == "SIGTERM"
    # the command printed to continue works from any folder (absolute --out)
    assert f"--out {out} --resume" in err.decode()
    # a stopped campaign is not thrown away by the next command without --resume
    again = subprocess.run([*TCMCHECK, "fuzz", "--runs", "24", "--seed", "7", "--kinds", "refine", "--out", str(out)],
                           capture_output=True, text=True)
    assert again.returncode == 2 and "unfinished campaign" in again.stderr
    assert len(verdicts(out / "runs.parquet")) == len(rows)


def test_a_column_the_run_record_gains_is_kept_and_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A later option may add a column to RunRecord.row before the store knows it: the table
    keeps it (as text) and the report still reads the table."""
    real = RunRecord.row
    monkeypatch.setattr(RunRecord, "row", lambda self: {**real(self), "extra_column": 7})
    run(capsys, "fuzz", "--runs", "2", "--kinds", "refine", "--workers", "1", "--out", str(tmp_path))
    assert pq.read_table(tmp_path / "runs.parquet").column("extra_column").to_pylist() == ["7"] * 2
    status, js, _ = run(capsys, "report", str(tmp_path), "--json")
    assert status == 0 and json.loads(js)["runs"] == 2
