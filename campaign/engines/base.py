"""What a campaign engine is: something that runs tasks and hands back their records.

A task is a run's index in its campaign and its `RunSpec`; an engine runs each with
`campaign.kinds.run_one` (or an equivalent that returns the same `RunRecord`), wherever it
likes, and calls `keep(record)` in the calling process as each finishes — in any order. It stops
giving out tasks once `keep` returns False or `stopping()` is true. A run that gives no record
(its worker died, it ran out of time) is still reported: `campaign.kinds.error_record` makes its
failing record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from attrs import frozen

from campaign.run.record import RunRecord, RunSpec

Task = tuple[int, RunSpec]
"""(the run's index in its campaign, the run)"""

Keep = Callable[[RunRecord], bool]
"""Called with each finished run; False asks the engine to stop giving out runs."""


@frozen(kw_only=True)
class EngineOptions:
    """What the command line lets a user choose about an engine (each engine reads what it uses)."""

    workers: int = 1
    """Processes (local) or executor slots (Spark's local[W])."""
    run_timeout: float | None = None
    """Seconds one run may take before it is stopped and recorded as a timeout."""
    master: str | None = None
    """A cluster to run on (Spark's master URL); None: this machine."""
    ui: bool = False
    """Keep the engine's own web UI on, if it has one."""


class Engine(Protocol):
    @property
    def name(self) -> str:
        """The name `--engine` knows it by."""

    def check(self) -> None:
        """BadInput, in one line saying how to mend it, when the engine cannot run here (a
        missing Java, an uninstalled optional package): called before any output is written."""

    def start(self) -> str | None:
        """Start what the engine needs (a Spark session); a note for the user, or None."""

    def run(self, tasks: Iterable[Task], *, keep: Keep, stopping: Callable[[], bool]) -> None:
        """Run every task (see the module doc)."""


__all__ = ["Engine", "EngineOptions", "Keep", "Task"]
