"""Fuzzing campaigns: many runs, each a pure function of its `RunSpec`, mapped over an engine
(campaign/engines/) and handed back one record at a time — to be written as it finishes into a
campaign folder (campaign/store.py) of Parquet rows and replayable failure files.

`run_campaign` is the one campaign loop: `tcmcheck fuzz` runs it over a plan of generated runs,
the mutant matrix (campaign/mutants/) over its reshaped cases.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Iterable, Iterator
from pathlib import Path

from attrs import define

from campaign.engines.base import Engine, EngineOptions, Task
from campaign.engines.local import LocalEngine
from campaign.engines.registry import DEFAULT_ENGINE, make_engine
from campaign.kinds import DEFAULT_KINDS
from campaign.run.findings import known_finding
from campaign.run.focus import NO_FOCUS, Focus
from campaign.run.record import RunRecord, RunSpec
from campaign.store import CampaignDir

SEED_STRIDE = 1_000_003
"""Run i of a campaign with seed S has seed S * SEED_STRIDE + i (a prime stride: campaigns with
neighbouring seeds do not share runs for the first million runs)."""


def run_seed(campaign_seed: int, run: int) -> int:
    return campaign_seed * SEED_STRIDE + run


def plan(runs: int, campaign_seed: int, kinds: Iterable[str], *, mutant: str | None = None,
         fixes: frozenset[str] = frozenset(), focus: Focus = NO_FOCUS, skip: Container[int] = ()) -> Iterator[Task]:
    """Every run of a campaign but those in `skip` (already recorded): kinds alternate, seeds
    derive from (S, i), every run aimed by `focus`. A generator: a campaign of a billion runs
    (stopped by --max-seconds) costs no memory up front."""
    ks = tuple(kinds)
    return ((i, RunSpec(kind=ks[i % len(ks)], seed=run_seed(campaign_seed, i), mutant=mutant, fixes=fixes,
                        focus=focus))
            for i in range(runs) if i not in skip)


def is_new_failure(rec: RunRecord, strict: bool = False) -> bool:
    """A failing run that is not a known finding (campaign/run/findings.py; a finding whose fix
    the run had on is not known) — with `strict`, any failing run."""
    cause = rec.outcome.cause
    return cause is not None and (strict or known_finding(cause.klass, rec.spec.fixes) is None)


MAX_SECONDS = "max-seconds"
FAIL_FAST = "fail-fast"


@define
class StopReason:
    """Why `run_campaign` stopped giving out runs: `MAX_SECONDS` (the time limit passed),
    `FAIL_FAST` (a new failure), or None (the tasks ran out, or `stopping`/`on_record` stopped
    it, which their owner knows). Set even when the runs it stopped were the last ones."""

    reason: str | None = None


def run_campaign(tasks: Iterable[Task], engine: Engine | None = None, *, max_seconds: float | None = None,
                 fail_fast: bool = False, strict: bool = False,
                 on_record: Callable[[RunRecord], bool | None] | None = None,
                 stopping: Callable[[], bool] | None = None,
                 why: StopReason | None = None) -> list[RunRecord]:
    """Every task run on `engine` (default: in this process) until the tasks run out, or
    `max_seconds` passed, or the first new failure with `fail_fast` (a known finding does not
    stop it unless `strict`), or `stopping()`, or `on_record` (which sees each record in this
    process as it finishes, to write it at once) returns False; the records, sorted by run.
    `why` learns which limit stopped it."""
    runner: Engine = engine if engine is not None else LocalEngine(EngineOptions())
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    records: list[RunRecord] = []
    stop_now = stopping or (lambda: False)
    why = why if why is not None else StopReason()

    def keep(rec: RunRecord) -> bool:
        records.append(rec)
        go_on = on_record(rec) if on_record is not None else None
        if go_on is False:
            return False
        if fail_fast and is_new_failure(rec, strict):
            why.reason = why.reason or FAIL_FAST
        elif deadline is not None and time.monotonic() > deadline:
            why.reason = why.reason or MAX_SECONDS
        return why.reason is None

    runner.run(tasks, keep=keep, stopping=stop_now)
    return sorted(records, key=lambda r: r.run)


def campaign(runs: int, campaign_seed: int, *, kinds: Iterable[str] = DEFAULT_KINDS, workers: int = 1,
             run_timeout: float | None = None, mutant: str | None = None, fixes: frozenset[str] = frozenset(),
             engine: str = DEFAULT_ENGINE, master: str | None = None, max_seconds: float | None = None,
             fail_fast: bool = False, strict: bool = False, focus: Focus = NO_FOCUS) -> list[RunRecord]:
    """A whole campaign's records, without a campaign folder (tests, notebooks): `tcmcheck fuzz`
    without the files."""
    runner = make_engine(engine, EngineOptions(workers=workers, run_timeout=run_timeout, master=master))
    return run_campaign(plan(runs, campaign_seed, kinds, mutant=mutant, fixes=fixes, focus=focus), runner,
                        max_seconds=max_seconds, fail_fast=fail_fast, strict=strict)


def write_outputs(out: Path, records: list[RunRecord]) -> Path:
    """`out/runs.parquet` and `out/failures/` for records already in hand (a fresh campaign
    folder; `tcmcheck fuzz` writes each run as it finishes instead, through `CampaignDir`)."""
    folder = CampaignDir(out)
    folder.prepare({"records": len(records)}, resume=False)
    now = time.time()
    rows = {rec.run: folder.record(rec, now) for rec in records}
    return folder.compact(rows)


__all__ = ["FAIL_FAST", "MAX_SECONDS", "SEED_STRIDE", "StopReason", "campaign", "is_new_failure", "plan", "run_campaign", "run_seed", "write_outputs"]
