"""Fuzzing campaigns: many runs (campaign/runs.py), each a pure function of (kind, seed),
mapped over an engine (local processes, campaign/pool.py, or Spark, campaign/spark.py), written
as they finish into a campaign folder (campaign/store.py) of Parquet rows and replayable failure
files.

The run kinds, their checks and records live in `campaign.runs`; shrinking in `campaign.shrink`;
this module plans a campaign and runs it. The names of those modules are
re-exported here for the commands and tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Iterable
from pathlib import Path
from typing import Any

from campaign.pool import run_inline, run_pool
from campaign.runs import (
    DEFAULT_KINDS,
    KINDS,
    MUTANTS,
    Outcome,
    RunRecord,
    check_case,
    checked,
    failure_doc,
    generate_case,
    run_one,
)
from campaign.shrink import case_size, cause_class, shrink_case
from campaign.store import COLUMNS, TIMING_COLUMNS, CampaignDir

SEED_STRIDE = 1_000_003
"""Run i of a campaign with seed S has seed S * SEED_STRIDE + i (a prime stride: campaigns with
neighbouring seeds do not share runs for the first million runs)."""



def run_seed(campaign_seed: int, run: int) -> int:
    return campaign_seed * SEED_STRIDE + run


# ---------------------------------------------------------------- a campaign


def plan(runs: int, campaign_seed: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
    """(run, kind, seed) for every run: kinds alternate, seeds derive from (S, i)."""
    ks = tuple(kinds)
    return [(i, ks[i % len(ks)], run_seed(campaign_seed, i)) for i in range(runs)]


def is_new_failure(rec: RunRecord, strict: bool = False) -> bool:
    """A failing run that is not a known finding (campaign/known_findings.py; a finding whose
    fix the run had on is not known) — with `strict`, any failing run."""
    from campaign.known_findings import known_finding

    return not rec.outcome.valid and (
        strict or known_finding(cause_class(rec.outcome.cause), rec.fixes) is None)


def run_campaign(runs: int, campaign_seed: int, *, kinds: Iterable[str] = DEFAULT_KINDS, workers: int = 1,
                 max_seconds: float | None = None, fail_fast: bool = False, strict: bool = False,
                 mutant: str | None = None, on_record: Callable[[RunRecord], None] | None = None,
                 engine: str = "local", master: str | None = None, run_timeout: float | None = None,
                 skip: Container[int] = (), stopping: Callable[[], bool] | None = None,
                 fixes: frozenset[str] = frozenset()) -> list[RunRecord]:
    """Every run of the plan but those in `skip` (already recorded), or those finished before
    `max_seconds`, the first new failure with `fail_fast` (a known finding does not stop it
    unless `strict`), or `stopping()`; sorted by run index.

    Engines: `local` runs on `workers` processes (`workers == 1` without `run_timeout`: in this
    process); `spark` runs each run as a Spark task on `master` (default `local[workers]`).
    `on_record` sees each record in the main process as it finishes (to write it at once)."""
    ks = tuple(kinds)
    # a generator: a campaign of a billion runs (stopped by --max-seconds) costs no memory up front
    todo = ((i, ks[i % len(ks)], run_seed(campaign_seed, i), mutant, fixes)
            for i in range(runs) if i not in skip)
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    records: list[RunRecord] = []
    stop_now = stopping or (lambda: False)

    def keep(rec: RunRecord) -> bool:
        records.append(rec)
        if on_record is not None:
            on_record(rec)
        stop = (fail_fast and is_new_failure(rec, strict)) or (deadline is not None and time.monotonic() > deadline)
        return not stop

    if engine == "spark":
        from campaign.spark import run_spark

        run_spark(todo, master=master, parallelism=workers, keep=keep, stopping=stop_now, run_timeout=run_timeout)
    elif engine != "local":
        raise ValueError(f"unknown engine {engine!r}")
    elif workers <= 1 and run_timeout is None:
        run_inline(todo, keep=keep, stopping=stop_now)
    else:
        run_pool(todo, workers=workers, keep=keep, stopping=stop_now, run_timeout=run_timeout)
    return sorted(records, key=lambda r: r.run)


# ---------------------------------------------------------------- files


def write_outputs(out: Path, records: list[RunRecord]) -> Path:
    """`out/runs.parquet` and `out/failures/` for records already in hand (a fresh campaign
    folder; `tcmcheck fuzz` writes each run as it finishes instead, through `CampaignDir`)."""
    folder = CampaignDir(out)
    folder.prepare({"records": len(records)}, resume=False)
    now = time.time()
    rows = {rec.run: folder.record(rec, now) for rec in records}
    return folder.compact(rows)


def read_runs(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


__all__ = ["COLUMNS", "TIMING_COLUMNS", "CampaignDir", "is_new_failure", "DEFAULT_KINDS", "KINDS", "MUTANTS", "Outcome", "RunRecord", "case_size", "cause_class", "check_case", "checked",
           "failure_doc", "generate_case", "plan", "read_runs", "run_campaign", "run_one", "run_seed", "shrink_case",
           "write_outputs"]
