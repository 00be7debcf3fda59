"""`tcmcheck fuzz [--runs N] [--seed S] [--workers W] [--kinds sim,refine,stateful] [--out DIR] ...`.

A shell around `campaign.fuzz.run_campaign`: parses options, shows progress on stderr, writes
`DIR/runs.parquet` and `DIR/failures/<kind>-<seed>.json` as runs finish, prints one summary line
and each cause class with its replay command (a known finding with its class: bug, hardening,
documented, config). Exit 0 if every run is valid or fails with a known finding, 1 if any failed otherwise, 2 on bad options.
"""

from __future__ import annotations

import math
import os
import shlex
import signal
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click
from attrs import define

from campaign.commands.campaign_options import engine_options, parse_kinds
from campaign.commands.focus_options import focus_options
from campaign.commands.options import check_mutant, parse_fixes
from campaign.commands.progress import OPEN_ENDED, CampaignProgress
from campaign.engines.base import Engine, EngineOptions, Task
from campaign.engines.registry import make_engine
from campaign.errors import BadInput, IOFailure
from campaign.formats.text import counted
from campaign.fuzz import FAIL_FAST, MAX_SECONDS, StopReason, plan, run_campaign, run_seed
from campaign.report.aggregate import class_of, fixes_of, operations_line
from campaign.run.findings import KnownFinding, known_finding
from campaign.run.focus import NO_FOCUS, Focus
from campaign.run.record import INT64_MAX, RunRecord, replay_file_command
from campaign.store import CampaignDir


def check_seed_range(runs: int, seed: int) -> None:
    """Run seeds are int64 in runs.parquet: refuse a campaign whose last run seed would not fit,
    before any run starts."""
    if seed < 0:
        raise BadInput(f"--seed: expected a non-negative seed, got {seed}")
    last = run_seed(seed, runs - 1)
    if last > INT64_MAX:
        raise BadInput(f"--seed: {seed} is too large: run {runs - 1} would have seed {last}, past the "
                       f"64-bit limit of runs.parquet (largest campaign seed for {runs} runs: "
                       f"{(INT64_MAX - (runs - 1)) // 1_000_003})")


class _Stop:
    """SIGINT/SIGTERM set a flag: the campaign stops giving out runs, keeps what finished,
    writes runs.parquet and exits 130/143 (a second signal ends it at once)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt
        self.signum = signum

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    def __call__(self) -> bool:
        return self.signum is not None


@click.command(name="fuzz")
@click.option("--runs", type=int, default=None,
              help="Number of runs [default: 1000; with --max-seconds, as many as fit in the time].")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Campaign seed: run i has seed SEED * 1000003 + i.")
@click.option("--workers", type=int, default=None,
              help="Worker processes, or Spark local[W] (default: CPU count; more only with --force-workers).")
@click.option("--force-workers", is_flag=True, default=False, help="Allow --workers above the CPU count.")
@click.option("--kinds", default="sim,refine", show_default=True,
              help="Run kinds, comma-separated, alternating: sim, refine, stateful.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="fuzz-out",
              show_default=True, help="Output directory (runs.parquet, failures/).")
@click.option("--resume", is_flag=True, default=False,
              help="Continue the campaign in --out: run only the runs it has not recorded.")
@engine_options("local: worker processes; spark: each run a Spark task (embedded local[W] or --master).")
@click.option("--spark-ui", is_flag=True, default=False, help="Keep the embedded Spark web UI on (off by default).")
@click.option("--run-timeout", type=float, default=300.0, show_default=True,
              help="Seconds one run may take before it is stopped and recorded as a timeout.")
@click.option("--max-seconds", type=float, default=None,
              help="Stop starting runs after this many seconds (the rows then depend on timing).")
@click.option("--fail-fast", is_flag=True, default=False,
              help="Stop at the first new failure (a known finding does not stop it, unless --strict).")
@click.option("--strict", is_flag=True, default=False,
              help="Fail on known findings too (campaign/run/findings.py); by default they are "
                   "reported apart and only new failures make the exit status 1.")
@click.option("--mutant", default=None,
              help="Run against a deliberately broken impl: a known-bug switch of impl/bugs.py "
                   "(docs/mutants.md), to see the campaign catch a bug.")
@click.option("--fix", "fix_names", multiple=True,
              help="Run with a finding's proposed fix (repeatable; see docs/findings.md).")
@focus_options
def fuzz(runs: int | None, seed: int, workers: int | None, force_workers: bool, kinds: str, out_dir: str,
         resume: bool, engine: str, master: str | None, spark_ui: bool, run_timeout: float,
         max_seconds: float | None, fail_fast: bool, strict: bool, mutant: str | None,
         fix_names: tuple[str, ...] = (), focus: str | None = None, faults: str | None = None,
         levels: str | None = None) -> int:
    """Run a fuzzing campaign: generated simulations (sim) and spec-vs-impl steps (refine)."""

    if runs is None:
        runs = OPEN_ENDED if max_seconds is not None else 1000
    if runs < 1:
        raise BadInput(f"--runs: expected at least 1 run, got {runs}")
    check_seed_range(runs, seed)
    workers = _workers(workers, force_workers)
    if max_seconds is not None and not (max_seconds > 0 and math.isfinite(max_seconds)):
        raise BadInput(f"--max-seconds: expected a positive number, got {max_seconds}")
    if not (run_timeout > 0 and math.isfinite(run_timeout)):
        raise BadInput(f"--run-timeout: expected a positive number of seconds, got {run_timeout}")
    kind_list = parse_kinds(kinds)
    aim = Focus.parse(focus, faults, levels, kinds=kind_list)
    check_mutant(mutant)
    fixes = parse_fixes(fix_names)
    if fixes and mutant is not None:
        raise BadInput("--fix: not with --mutant (a mutant is a broken engine, not a fix)")
    runner = make_engine("spark" if master is not None else engine,
                         EngineOptions(workers=workers, run_timeout=run_timeout, master=master, ui=spark_ui))
    runner.check()
    out = Path(out_dir)
    folder = CampaignDir(out)
    params = {"runs": runs, "seed": seed, "kinds": list(kind_list), "mutant": mutant,
              "fixes": sorted(fixes), **({"focus": aim.to_doc()} if aim else {})}
    recorded = folder.prepare(params, resume=resume)  # every output check, before any run
    recorded = {r: row for r, row in recorded.items() if r < runs}
    note = runner.start()
    if note is not None:
        click.echo(f"tcmcheck: {note}", err=True)

    stopped = _run(folder, runner, plan(runs, seed, kind_list, mutant=mutant, fixes=fixes, focus=aim,
                                           skip=set(recorded)),
                   recorded, runs, max_seconds=max_seconds, fail_fast=fail_fast, strict=strict)
    summarize_campaign(out.resolve(), stopped.path, list(stopped.rows.values()), kind_list, resumed=len(recorded),
                       focus=aim)
    return _ending(folder, stopped, runs, max_seconds, strict)


def _ending(folder: CampaignDir, stopped: _Ended, runs: int, max_seconds: float | None, strict: bool) -> int:
    """What stopped the campaign early, with the command that runs the rest; the exit status."""
    done, again = len(stopped.rows), resume_command(folder.out)
    if stopped.signum is not None:
        click.echo(f"stopped by {signal.Signals(stopped.signum).name} after {done} of {runs} runs; "
                   f"continue with: {again}", err=True)
        return 128 + stopped.signum
    if folder.stopped_by == MAX_SECONDS:
        if runs >= OPEN_ENDED:
            click.echo(f"stopped by --max-seconds {max_seconds:g} after {counted(done, 'run')}; more with: {again}")
        else:
            click.echo(f"stopped by --max-seconds {max_seconds:g} after {done} of {runs} runs; the rest with: {again}")
    elif folder.stopped_by == FAIL_FAST:
        click.echo(f"stopped by --fail-fast at a new failure after {done} of {runs} runs; the rest with: {again}")
    failing = [r for r in stopped.rows.values() if not r["valid"]]
    new = [r for r in failing if _known(r) is None]
    return 1 if new or (strict and failing) else 0


@define
class _Ended:
    """How a campaign's loop ended: its rows (by run), its runs.parquet, the signal that stopped it."""

    rows: dict[int, dict[str, Any]]
    path: Path
    signum: int | None


def _run(folder: CampaignDir, runner: Engine, tasks: Iterable[Task], recorded: dict[int, dict[str, Any]],
         runs: int, *, max_seconds: float | None, fail_fast: bool, strict: bool) -> _Ended:
    """Run the campaign into `folder`, each run written as it finishes, then compact it.

    An I/O error writing a run stops the campaign at once (runs in flight are abandoned); what
    was written is compacted if the disk still takes it, and the error is raised as an
    `IOFailure` carrying the command that resumes the campaign. campaign.json records what
    stopped it (`stopped_by`: a signal, `io-error`, `max-seconds`, `fail-fast`)."""
    rows = dict(recorded)
    failed: list[IOFailure] = []
    progress = CampaignProgress(runs, len(recorded), sum(not r["valid"] for r in recorded.values()),
                                max_seconds=max_seconds)

    def on_record(rec: RunRecord) -> bool | None:
        if failed:
            return False
        try:
            rows[rec.run] = folder.record(rec, time.time())
        except IOFailure as e:
            failed.append(e)
            return False
        progress.update(rec.outcome.valid)
        return None

    stop, why = _Stop(), StopReason()
    try:
        with stop, progress:
            run_campaign(tasks, runner, max_seconds=max_seconds, fail_fast=fail_fast, strict=strict,
                         on_record=on_record, stopping=lambda: stop() or bool(failed), why=why)
    finally:
        if failed:
            folder.stopped_by = "io-error"
        elif stop.signum is not None:
            folder.stopped_by = signal.Signals(stop.signum).name
        elif len(rows) < runs:
            folder.stopped_by = why.reason
        try:
            path = folder.compact(rows)
        except IOFailure as e:
            failed.append(e)
    if failed:
        raise failed[0].with_hint(f"{len(rows)} of {runs} runs are recorded in {folder.out}; "
                                  f"continue with: {resume_command(folder.out)}")
    return _Ended(rows, path, stop.signum)


def resume_command(out: Path) -> str:
    """The command that continues this campaign from any folder: the options given (as click
    parsed them: every one whose value is not its default) with `--out` made absolute, then
    `--resume`."""
    ctx = click.get_current_context(silent=True)
    words = ["tcmcheck", "fuzz"]
    if ctx is not None:
        for param in ctx.command.params:
            if not isinstance(param, click.Option) or param.name in ("out_dir", "resume"):
                continue
            value = ctx.params.get(param.name or "")
            if value == param.default or value in (None, False, ()):
                continue
            flag = max(param.opts, key=len)
            if param.is_flag:
                words.append(flag)
            else:
                for v in value if param.multiple else (value,):
                    words += [flag, f"{v:g}" if isinstance(v, float) else str(v)]
    return shlex.join([*words, "--out", str(out.resolve()), "--resume"])


def _workers(workers: int | None, force: bool) -> int:
    """--workers: the CPU count by default, and no more unless forced."""
    cpus = os.cpu_count() or 1
    if workers is None:
        return cpus
    if workers < 1:
        raise BadInput(f"--workers: expected at least 1 worker, got {workers}")
    if workers > cpus and not force:
        click.echo(f"tcmcheck: note: --workers {workers} capped at the {cpus} CPUs here "
                   "(--force-workers to insist)", err=True)
        return cpus
    return workers


def _known(row: dict[str, Any]) -> KnownFinding | None:
    return known_finding(class_of(row), fixes_of(row))


def summarize_campaign(out: Path, path: Path, rows: list[dict[str, Any]], kinds: tuple[str, ...],
                       *, resumed: int = 0, focus: Focus = NO_FOCUS) -> None:
    """One line for the campaign, then one block per cause class: count, first seed and the
    command that replays it (its failure file), known findings apart with their explanation."""
    rows = sorted(rows, key=lambda r: r["run"])
    failing = [r for r in rows if not r["valid"]]
    new = [r for r in failing if _known(r) is None]
    per_kind = ", ".join(f"{k} {sum(1 for r in rows if r['kind'] == k)}" for k in kinds)
    again = f", {resumed} of them from before --resume" if resumed else ""
    click.echo(f"{counted(len(rows), 'run')} ({per_kind}{again}), {len(failing)} failed "
               f"({len(new)} new, {len(failing) - len(new)} known findings); results in {path}")
    if focus:
        click.echo(f"focus: {focus.text()}; {operations_line(rows)}")
    classes: dict[str, list[dict[str, Any]]] = {}
    for r in failing:
        classes.setdefault(class_of(r), []).append(r)
    order = sorted(classes.items(), key=lambda kv: (_known(kv[1][0]) is not None, -len(kv[1]), kv[0]))
    for cls, hits in order:
        first = hits[0]
        finding = _known(first)
        tag = f"KNOWN {finding.id} ({finding.klass})" if finding is not None else "FAIL"
        where = out / first["failure_file"] if first.get("failure_file") else None
        command = replay_file_command(where) if where is not None else first["replay"]
        click.echo(f"{tag}: {len(hits)} × {cls} (first: {first['kind']} seed {first['seed']})")
        click.echo(f"  {command}")
        if finding is not None:
            click.echo(f"  {finding.summary}")
            if finding.report is not None:
                click.echo(f"  report for Cassandra's committers: {finding.report}")


__all__ = ["check_seed_range", "fuzz", "summarize_campaign"]
