"""Fuzzing campaigns: many runs (campaign/runs.py), each a pure function of (kind, seed),
mapped over a process pool, written as Parquet rows and replayable failure files.

The run kinds, their checks and records live in `campaign.runs`; shrinking in `campaign.shrink`;
this module plans a campaign, runs it and writes its files. The names of those modules are
re-exported here for the commands and tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from campaign.runs import (
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

SEED_STRIDE = 1_000_003
"""Run i of a campaign with seed S has seed S * SEED_STRIDE + i (a prime stride: campaigns with
neighbouring seeds do not share runs for the first million runs)."""

COLUMNS = ("run", "kind", "seed", "valid", "cause", "final_epoch", "steps", "counters_json",
           "replay", "duration_s")


def run_seed(campaign_seed: int, run: int) -> int:
    return campaign_seed * SEED_STRIDE + run


# ---------------------------------------------------------------- a campaign


def plan(runs: int, campaign_seed: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
    """(run, kind, seed) for every run: kinds alternate, seeds derive from (S, i)."""
    ks = tuple(kinds)
    return [(i, ks[i % len(ks)], run_seed(campaign_seed, i)) for i in range(runs)]


def _work(args: tuple[int, str, int, str | None, frozenset[str]]) -> RunRecord:
    run, kind, seed, mutant, fixes = args
    return run_one(kind, seed, run=run, mutant=mutant, fixes=fixes)


def run_campaign(runs: int, campaign_seed: int, *, kinds: Iterable[str] = KINDS, workers: int = 1,
                 max_seconds: float | None = None, fail_fast: bool = False, mutant: str | None = None,
                 on_record: Callable[[RunRecord], None] | None = None,
                 fixes: frozenset[str] = frozenset()) -> list[RunRecord]:
    """Every run of the plan (or those finished before `max_seconds` / the first failure with
    `fail_fast`), sorted by run index. `workers == 1` runs in this process."""
    todo = [(run, kind, seed, mutant, fixes) for run, kind, seed in plan(runs, campaign_seed, kinds)]
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    records: list[RunRecord] = []

    def keep(rec: RunRecord) -> bool:
        records.append(rec)
        if on_record is not None:
            on_record(rec)
        stop = (fail_fast and not rec.outcome.valid) or (deadline is not None and time.monotonic() > deadline)
        return not stop

    if workers <= 1:
        for args in todo:
            if not keep(_work(args)):
                break
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # why a bounded window instead of submitting everything: stopping early (fail-fast,
            # max-seconds) then wastes at most a window of runs, not the whole campaign
            pending: set[Future[RunRecord]] = set()
            queue = iter(todo)
            going = True
            while going:
                while len(pending) < 2 * workers:
                    nxt = next(queue, None)
                    if nxt is None:
                        break
                    pending.add(pool.submit(_work, nxt))
                if not pending:
                    break
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: f.result().run):
                    going = keep(fut.result()) and going
            for fut in pending:
                fut.cancel()
    return sorted(records, key=lambda r: r.run)


# ---------------------------------------------------------------- files


def failure_path(out: Path, rec: RunRecord) -> Path:
    return out / "failures" / f"{rec.kind}-{rec.seed}.json"


def replay_command(out: Path, rec: RunRecord, fixes: frozenset[str] = frozenset()) -> str:
    fix = "".join(f" --fix {f}" for f in sorted(fixes))
    if rec.failure is not None:
        return f"tcmcheck replay {failure_path(out, rec)}{fix}"
    mutant = f" --mutant {rec.mutant}" if rec.mutant else ""
    return f"tcmcheck replay --kind {rec.kind} --seed {rec.seed}{mutant}{fix}"


def write_outputs(out: Path, records: list[RunRecord]) -> Path:
    """`out/runs.parquet` (one row per run, COLUMNS) and `out/failures/<kind>-<seed>.json`.

    Failure files of an earlier campaign in the same directory are removed first, so the
    directory describes this campaign only."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    failures = out / "failures"
    failures.mkdir(parents=True, exist_ok=True)
    for old in failures.glob("*.json"):
        old.unlink()
    for rec in records:
        if rec.failure is not None:
            failure_path(out, rec).write_text(rec.failure + "\n")
    rows = [rec.row(replay_command(out, rec)) for rec in records]
    schema = pa.schema([("run", pa.int64()), ("kind", pa.string()), ("seed", pa.int64()),
                        ("valid", pa.bool_()), ("cause", pa.string()), ("final_epoch", pa.int64()),
                        ("steps", pa.int64()), ("counters_json", pa.string()), ("replay", pa.string()),
                        ("duration_s", pa.float64())])
    table = pa.Table.from_pylist(rows, schema=schema)
    path = out / "runs.parquet"
    pq.write_table(table, path)
    return path


def read_runs(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


__all__ = ["COLUMNS", "KINDS", "MUTANTS", "Outcome", "RunRecord", "case_size", "cause_class", "check_case", "checked",
           "failure_doc", "generate_case", "plan", "read_runs", "run_campaign", "run_one", "run_seed", "shrink_case",
           "write_outputs"]
