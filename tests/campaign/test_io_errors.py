"""I/O errors: a full disk, a folder that vanishes, a write that fails: one line naming the path
and the error, exit status 4 (not 1, a finding; not 2, bad input), the command that resumes an
interrupted campaign, and nothing written lost.

The issue: "A full disk (a 300 KB tmpfs as `--out`): the campaign ends with an OSError traceback
at compaction and exit 1, which is also the "finding" status."

The tmpfs tests mount one (as root, where the kernel lets us) and skip with the reason
otherwise; the monkeypatched ones run everywhere.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from campaign import outputs, store
from campaign.cli import main
from campaign.errors import IO_ERROR_STATUS
from campaign.store import TIMING_COLUMNS

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def verdicts(path: Path) -> list[dict[str, object]]:
    return pq.read_table(path).drop(list(TIMING_COLUMNS)).to_pylist()


def one_line_error(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("tcmcheck: error: cannot write "), err
    return err.strip()


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 300 KB tmpfs, unmounted afterwards."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (the monkeypatched tests cover the same paths)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path, leave: int = 0) -> Path:
    """A filler file taking all but `leave` bytes of the disk's free space."""
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with open(filler, "wb", buffering=0) as f:
        try:
            f.write(b"\0" * max(0, free - leave))
            while not leave:
                f.write(b"\0" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC
    return filler


COMMON = ["--runs", "60", "--workers", "1", "--kinds", "refine", "--mutant", "reject-create-table"]


def test_a_campaign_on_a_full_disk_ends_in_one_line_and_resume_completes_it(
        disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    filler = fill(disk, leave=16 * 1024)  # room for a few runs, then the disk is full
    out = disk / "c"
    status, _, err = run(capsys, "fuzz", *COMMON, "--out", str(out))
    assert status == IO_ERROR_STATUS
    line = one_line_error(err)
    assert str(out) in line and "No space left on device" in line
    resume = line.split("continue with: ", 1)[1]
    assert resume == f"tcmcheck fuzz {' '.join(COMMON)} --out {out} --resume"
    recorded = (out / "runs.log.jsonl").read_bytes()
    assert recorded.count(b"\n") >= 1  # what was written survives
    # free the space: the printed command completes the campaign, as an uninterrupted one
    filler.unlink()
    status, text, err = run(capsys, *shlex.split(resume)[1:])
    assert status == 1, err  # the mutant's failures: a finding
    assert "of them from before --resume" in text
    clean = tmp_path / "clean"
    run(capsys, "fuzz", *COMMON, "--out", str(clean))
    assert verdicts(out / "runs.parquet") == verdicts(clean / "runs.parquet")
    assert sorted(os.listdir(out / "failures")) == sorted(os.listdir(clean / "failures"))


def test_an_io_error_mid_campaign_keeps_every_run_written_and_resume_completes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The same without root: the third failure file cannot be written (the disk filled up)."""
    real = store.atomic_write
    calls = {"n": 0}

    def full_after_two(path: Path, data: bytes) -> None:
        if path.parent.name == "failures":
            calls["n"] += 1
            if calls["n"] == 3:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data)

    monkeypatch.setattr(store, "atomic_write", full_after_two)
    out = tmp_path / "c"
    status, _, err = run(capsys, "fuzz", *COMMON, "--out", str(out))
    assert status == IO_ERROR_STATUS
    line = one_line_error(err)
    assert f"{out}/failures/" in line and "No space left on device" in line and "--resume" in line
    # the runs before it were compacted (the disk took that), and the campaign is unfinished
    manifest = json.loads((out / "campaign.json").read_text())
    assert manifest["stopped"] is True and manifest["stopped_by"] == "io-error"
    assert len(manifest["failure_files"]) == 2
    again = run(capsys, "fuzz", *COMMON, "--out", str(out))
    assert again[0] == 2 and "unfinished campaign" in again[2]
    monkeypatch.setattr(store, "atomic_write", real)
    assert run(capsys, "fuzz", *COMMON, "--out", str(out), "--resume")[0] == 1
    clean = tmp_path / "clean"
    run(capsys, "fuzz", *COMMON, "--out", str(clean))
    assert verdicts(out / "runs.parquet") == verdicts(clean / "runs.parquet")
    assert sorted(os.listdir(out / "failures")) == sorted(os.listdir(clean / "failures"))


def test_a_log_that_cannot_be_appended_to_stops_the_campaign_with_the_resume_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    real = store._append
    calls = {"n": 0}

    class Broken:
        def write(self, data: bytes) -> int:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    def vanished(f: object, path: Path, data: bytes) -> None:
        calls["n"] += 1
        real(Broken() if calls["n"] == 4 else f, path, data)

    monkeypatch.setattr(store, "_append", vanished)
    out = tmp_path / "c"
    status, _, err = run(capsys, "fuzz", "--runs", "20", "--workers", "1", "--kinds", "refine", "--out", str(out))
    assert status == IO_ERROR_STATUS
    line = one_line_error(err)
    assert f"cannot write {out}/runs.log.jsonl: Input/output error" in line
    assert "3 of 20 runs are recorded" in line
    assert len(pq.read_table(out / "runs.parquet")) == 3


# ---------------------------------------------------------------- the other commands' outputs


@pytest.fixture
def campaign_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("campaign")
    assert main(["fuzz", "--runs", "16", "--workers", "1", "--kinds", "refine", "--mutant", "reject-create-table",
                 "--out", str(out)]) == 1
    return out


def _outputs(campaign_dir: Path, target: Path) -> dict[str, list[str]]:
    failure = sorted((campaign_dir / "failures").glob("*.json"))[0]
    return {
        "report": ["report", str(campaign_dir), "--html", str(target)],
        "shrink": ["shrink", str(failure), "--out", str(target), "--max-checks", "3"],
        "simulate": ["simulate", str(ROOT / "examples" / "simulate-faults.json"), "--seed", "7",
                     "--trace", str(target)],
        "check-history": ["check-history", str(_history(campaign_dir)), "--html", str(target)],
    }


def _history(where: Path) -> Path:
    path = where / "h.jsonl"
    path.write_text('{"process": 0, "type": "invoke", "f": "write", "value": 1}\n'
                    '{"process": 0, "type": "ok", "f": "write", "value": 1}\n'
                    '{"process": 1, "type": "invoke", "f": "read", "value": null}\n'
                    '{"process": 1, "type": "ok", "f": "read", "value": 2}\n')
    return path


@pytest.mark.parametrize("command", ["report", "shrink", "simulate", "check-history"])
def test_an_output_on_a_full_disk_is_one_line_and_the_old_file_stays(
        command: str, campaign_dir: Path, disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = disk / "out.txt"
    target.write_text("the previous output\n")
    fill(disk)
    status, _, err = run(capsys, *_outputs(campaign_dir, target)[command])
    assert status == IO_ERROR_STATUS, err
    line = one_line_error(err)
    assert line == f"tcmcheck: error: cannot write {target}: No space left on device"
    assert target.read_text() == "the previous output\n"  # written by a rename, or not at all
    assert sorted(p.name for p in disk.iterdir()) == ["filler", "out.txt"]  # no temporary file left


@pytest.mark.parametrize("command", ["report", "shrink", "simulate", "check-history"])
def test_an_output_that_fails_while_written_is_exit_4(
        command: str, campaign_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without root: the write itself fails (permission taken away while the command ran)."""

    def denied(path: Path, data: bytes) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(outputs, "atomic_write", denied)
    target = tmp_path / "out.txt"
    status, _, err = run(capsys, *_outputs(campaign_dir, target)[command])
    assert status == IO_ERROR_STATUS
    assert one_line_error(err) == f"tcmcheck: error: cannot write {target}: Permission denied"


@pytest.mark.parametrize("command", ["report", "shrink", "simulate", "check-history"])
def test_an_output_on_a_read_only_place_is_refused_before_any_work(
        command: str, campaign_dir: Path, disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An output the up-front check cannot create is a bad option (exit 2), found before the
    work starts, as README's command-line contract says."""
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    target = disk / "out.txt"
    status, out, err = run(capsys, *_outputs(campaign_dir, target)[command])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and str(target) in err and "Read-only file system" in err
