"""A campaign's progress on stderr: a live bar on a terminal, else one line every
`PROGRESS_EVERY_S` seconds (a log file, CI).

Both say the time elapsed and the time left, labelled (`elapsed 0:00:54 left 0:00:53`), and the
time left honours `--max-seconds`: it is the smaller of what the runs still to do would take at
the rate so far and what is left of the limit (then marked `(--max-seconds)`).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import Any

import click
from attrs import frozen
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

PROGRESS_EVERY_S = 10.0
"""Without a terminal, one progress line this often."""


@frozen
class Estimate:
    """Seconds left (inf: unknown yet) and whether the time limit, not the runs, bounds them."""

    seconds: float
    by_limit: bool


def estimate(total: int, done: int, started_with: int, elapsed: float,
             max_seconds: float | None) -> Estimate:
    """The time left: the runs still to do at the rate of those done in this session, or what
    is left of `max_seconds` when that comes first (runs stop starting then)."""
    rate = (done - started_with) / elapsed if elapsed > 0 else 0.0
    runs_left = (total - done) / rate if rate > 0 else math.inf
    if max_seconds is None:
        return Estimate(runs_left, False)
    limit_left = max(0.0, max_seconds - elapsed)
    return Estimate(min(runs_left, limit_left), limit_left < runs_left)


def clock_text(seconds: float) -> str:
    """H:MM:SS as rich's elapsed column writes it; -:--:-- when unknown."""
    if not math.isfinite(seconds):
        return "-:--:--"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{secs:02d}"


class _LeftColumn(ProgressColumn):
    """The time left, computed at each refresh (so it keeps counting down between runs)."""

    def __init__(self, progress: CampaignProgress) -> None:
        super().__init__()
        self.progress = progress

    def render(self, task: Any) -> Text:
        est = self.progress.estimate(task.elapsed or 0.0)
        limit = " (--max-seconds)" if est.by_limit else ""
        return Text(f"{clock_text(est.seconds)}{limit}", style="progress.remaining")


class CampaignProgress:
    """Runs done, failures, runs per second, time elapsed and time left (see the module doc)."""

    def __init__(self, total: int, done: int, failed: int = 0, *, max_seconds: float | None = None,
                 tty: bool | None = None, console: Console | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.done, self.failed, self.started_with = total, done, failed, done
        self.max_seconds = max_seconds
        self.clock = clock
        self.t0 = self.last_line = clock()
        self.bar: Any = None
        if sys.stderr.isatty() if tty is None else tty:
            self.bar = Progress(TextColumn("fuzz"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[failed]} failed"),
                                TextColumn("{task.fields[rate]} runs/s"),
                                TextColumn("elapsed"), TimeElapsedColumn(),
                                TextColumn("left"), _LeftColumn(self),
                                console=console or Console(stderr=True), transient=True, get_time=clock)
            self.task = self.bar.add_task("fuzz", total=total, completed=done, failed=failed, rate="-")

    def __enter__(self) -> CampaignProgress:
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def estimate(self, elapsed: float | None = None) -> Estimate:
        if elapsed is None:
            elapsed = self.clock() - self.t0
        return estimate(self.total, self.done, self.started_with, elapsed, self.max_seconds)

    def update(self, valid: bool) -> None:
        self.done += 1
        self.failed += not valid
        now = self.clock()
        elapsed = now - self.t0
        rate = (self.done - self.started_with) / max(elapsed, 1e-9)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done, failed=self.failed, rate=f"{rate:.1f}")
        elif now - self.last_line >= PROGRESS_EVERY_S:
            self.last_line = now
            click.echo(self.line(elapsed), err=True)

    def line(self, elapsed: float) -> str:
        """The progress line printed without a terminal."""
        rate = (self.done - self.started_with) / max(elapsed, 1e-9)
        est = self.estimate(elapsed)
        left = f"about {est.seconds:.0f} s left" if math.isfinite(est.seconds) else "time left unknown"
        limit = " (--max-seconds)" if est.by_limit else ""
        of = f"/{self.total}" if self.total < OPEN_ENDED else ""
        return (f"fuzz: {self.done}{of} runs, {self.failed} failed, {rate:.1f} runs/s, "
                f"{elapsed:.0f} s elapsed, {left}{limit}")


OPEN_ENDED = 1_000_000_000
"""The run count of `fuzz --max-seconds T` without `--runs`: as many runs as fit in T."""

__all__ = ["OPEN_ENDED", "PROGRESS_EVERY_S", "CampaignProgress", "Estimate", "clock_text", "estimate"]
