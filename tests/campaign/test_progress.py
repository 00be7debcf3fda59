"""A campaign's progress and limits: the live bar's labels, the time left under `--max-seconds`,
and a campaign stopped by its limit saying so (summary, campaign.json, --resume).

The issue: "the live bar shows `0:00:54 left 0:00:53` where 0:00:54 is the elapsed time; with
`--max-seconds` the estimate ignores the limit (`about 104754 s left`), the summary does not say
the limit stopped the campaign, and campaign.json records `"stopped": false`."
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from rich.console import Console

from campaign.cli import main
from campaign.commands.progress import CampaignProgress, estimate
from campaign.store import TIMING_COLUMNS


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def bar_text(progress: CampaignProgress) -> str:
    """The live bar's one line, as a terminal shows it."""
    console = Console(file=io.StringIO(), width=200, record=True, color_system=None)
    console.print(progress.bar.make_tasks_table(progress.bar.tasks))
    return console.export_text().strip()


def test_the_live_bar_labels_the_time_elapsed_and_the_time_left() -> None:
    clock = FakeClock()
    progress = CampaignProgress(100, 0, tty=True, console=Console(file=io.StringIO()), clock=clock)
    clock.now += 54
    for _ in range(50):
        progress.update(True)
    text = bar_text(progress)
    # 50 runs in 54 s: the other 50 take 54 s more
    assert re.search(r"50/100 0 failed 0\.9 runs/s elapsed 0:00:54 left 0:00:54$", text), text


def test_with_max_seconds_the_time_left_is_what_is_left_of_the_limit() -> None:
    clock = FakeClock()
    progress = CampaignProgress(1_000_000, 0, tty=True, console=Console(file=io.StringIO()), clock=clock,
                                max_seconds=60)
    clock.now += 54
    for _ in range(10):
        progress.update(True)
    assert bar_text(progress).endswith("elapsed 0:00:54 left 0:00:06 (--max-seconds)")
    # without a terminal: the same estimate in the progress line
    plain = CampaignProgress(1_000_000, 0, tty=False, clock=clock, max_seconds=60)
    clock.now += 54
    for _ in range(10):
        plain.update(True)
    assert plain.line(54).endswith("54 s elapsed, about 6 s left (--max-seconds)")


def test_the_estimate_is_the_smaller_of_the_runs_left_and_the_limit_left() -> None:
    # 10 of 100 in 10 s: 90 s more for the runs; a 300 s limit does not bound that
    assert estimate(100, 10, 0, 10.0, 300.0).seconds == pytest.approx(90.0)
    assert not estimate(100, 10, 0, 10.0, 300.0).by_limit
    assert estimate(100, 10, 0, 10.0, 30.0).seconds == pytest.approx(20.0)
    assert estimate(100, 10, 0, 10.0, 30.0).by_limit
    assert estimate(100, 10, 0, 40.0, 30.0).seconds == 0.0
    # a resumed campaign: the rate counts only the runs of this session
    assert estimate(100, 60, 50, 10.0, None).seconds == pytest.approx(40.0)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def verdicts(path: Path) -> list[dict[str, object]]:
    return pq.read_table(path).drop(list(TIMING_COLUMNS)).to_pylist()


def test_a_campaign_stopped_by_max_seconds_says_so_and_resume_runs_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c"
    common = ["--runs", "60", "--workers", "1", "--kinds", "refine"]
    status, text, _ = run(capsys, "fuzz", *common, "--max-seconds", "0.01", "--out", str(out))
    assert status == 0
    done = len(pq.read_table(out / "runs.parquet"))
    assert 1 <= done < 60
    lines = text.splitlines()
    assert lines[-1] == (f"stopped by --max-seconds 0.01 after {done} of 60 runs; the rest with: tcmcheck fuzz "
                         f"--runs 60 --workers 1 --kinds refine --max-seconds 0.01 --out {out} --resume")
    manifest = json.loads((out / "campaign.json").read_text())
    assert manifest["stopped"] is True and manifest["stopped_by"] == "max-seconds"
    # finished for what it asked: --resume runs the rest and gives the uninterrupted table
    status, text, _ = run(capsys, "fuzz", *common, "--out", str(out), "--resume")
    assert status == 0 and f"{done} of them from before --resume" in text and "stopped by" not in text
    assert json.loads((out / "campaign.json").read_text())["stopped"] is False
    clean = tmp_path / "clean"
    assert run(capsys, "fuzz", *common, "--out", str(clean))[0] == 0
    assert verdicts(out / "runs.parquet") == verdicts(clean / "runs.parquet")


def test_a_campaign_stopped_by_its_limit_is_finished_a_new_one_may_replace_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--runs", "60", "--workers", "1", "--kinds", "refine", "--out", str(tmp_path)]
    assert run(capsys, "fuzz", *common, "--max-seconds", "0.01")[0] == 0
    status, text, err = run(capsys, "fuzz", *common)  # not refused as "unfinished"
    assert status == 0, err
    assert text.startswith("60 runs (refine 60), ")


def test_fail_fast_is_recorded_as_what_stopped_the_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, text, _ = run(capsys, "fuzz", "--runs", "40", "--workers", "1", "--kinds", "refine", "--mutant",
                          "reject-create-table", "--fail-fast", "--out", str(tmp_path))
    assert status == 1
    assert "stopped by --fail-fast at a new failure after " in text.splitlines()[-1]
    manifest = json.loads((tmp_path / "campaign.json").read_text())
    assert manifest["stopped"] is True and manifest["stopped_by"] == "fail-fast"
