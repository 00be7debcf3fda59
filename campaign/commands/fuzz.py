"""`tcmcheck fuzz [--runs N] [--seed S] [--workers W] [--kinds sim,refine] [--out DIR] ...`.

A shell around `campaign.fuzz.run_campaign`: parses options, shows progress on stderr when it
is a terminal, writes `DIR/runs.parquet` and `DIR/failures/<kind>-<seed>.json`, prints one
summary line and each failure with its replay command. Exit 0 if every run is valid, 1 if any
failed, 2 on bad options.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from campaign.errors import BadInput


def parse_kinds(value: str) -> tuple[str, ...]:
    from campaign.runs import KINDS

    kinds = tuple(k.strip() for k in value.split(",") if k.strip())
    if not kinds:
        raise BadInput("--kinds: name at least one run kind (sim, refine)")
    for k in kinds:
        if k not in KINDS:
            raise BadInput(f"--kinds: unknown run kind {k!r} (known: {', '.join(KINDS)})")
    if len(set(kinds)) != len(kinds):
        raise BadInput(f"--kinds: a run kind is listed twice in {value!r}")
    return kinds


def check_mutant(mutant: str | None) -> str | None:
    from campaign.runs import MUTANTS

    if mutant is not None and mutant not in MUTANTS:
        raise BadInput(f"--mutant: unknown mutant {mutant!r} (known: {', '.join(MUTANTS)})")
    return mutant


@click.command(name="fuzz")
@click.option("--runs", type=int, default=1000, show_default=True, help="Number of runs.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Campaign seed: run i has seed SEED * 1000003 + i.")
@click.option("--workers", type=int, default=None, help="Worker processes (default: CPU count).")
@click.option("--kinds", default="sim,refine", show_default=True,
              help="Run kinds, comma-separated, alternating: sim, refine.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="fuzz-out",
              show_default=True, help="Output directory (runs.parquet, failures/).")
@click.option("--max-seconds", type=float, default=None,
              help="Stop starting runs after this many seconds (the rows then depend on timing).")
@click.option("--fail-fast", is_flag=True, default=False, help="Stop at the first failing run.")
@click.option("--strict", is_flag=True, default=False,
              help="Fail on known findings too (campaign/known_findings.py); by default they are "
                   "reported apart and only new failures make the exit status 1.")
@click.option("--mutant", default=None,
              help="Run against a deliberately broken impl (reject-create-table), to see the "
                   "campaign catch a bug.")
@click.option("--fix", "fix_names", multiple=True,
              help="Run with a finding's proposed fix (repeatable; see docs/findings.md).")
def fuzz(runs: int, seed: int, workers: int | None, kinds: str, out_dir: str,
         max_seconds: float | None, fail_fast: bool, strict: bool, mutant: str | None,
         fix_names: tuple[str, ...] = ()) -> int:
    """Run a fuzzing campaign: generated simulations (sim) and spec-vs-impl steps (refine)."""
    from campaign.fuzz import RunRecord, cause_class, replay_command, run_campaign, write_outputs
    from campaign.known_findings import known_finding, parse_fixes

    if runs < 1:
        raise BadInput(f"--runs: expected at least 1 run, got {runs}")
    if seed < 0:
        raise BadInput(f"--seed: expected a non-negative seed, got {seed}")
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise BadInput(f"--workers: expected at least 1 worker, got {workers}")
    if max_seconds is not None and max_seconds <= 0:
        raise BadInput(f"--max-seconds: expected a positive number, got {max_seconds}")
    kind_list = parse_kinds(kinds)
    check_mutant(mutant)
    fixes = parse_fixes(fix_names)
    if fixes and mutant is not None:
        raise BadInput("--fix: not with --mutant (a mutant is a broken engine, not a fix)")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out: {out} exists and is not a directory")

    progress = None
    task = None
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        progress = Progress(TextColumn("fuzz"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                            console=Console(stderr=True), transient=True)
        task = progress.add_task("fuzz", total=runs, failed=0)
    failed = 0

    def on_record(rec: RunRecord) -> None:
        nonlocal failed
        failed += not rec.outcome.valid
        if progress is not None and task is not None:
            progress.update(task, advance=1, failed=failed)

    if progress is not None:
        with progress:
            records = run_campaign(runs, seed, kinds=kind_list, workers=workers, max_seconds=max_seconds,
                                   fail_fast=fail_fast, mutant=mutant, on_record=on_record, fixes=fixes)
    else:
        records = run_campaign(runs, seed, kinds=kind_list, workers=workers, max_seconds=max_seconds,
                               fail_fast=fail_fast, mutant=mutant, on_record=on_record, fixes=fixes)
    path = write_outputs(out, records)
    failing = [r for r in records if not r.outcome.valid]
    known = {id(r): known_finding(cause_class(r.outcome.cause), fixes) for r in failing}
    new = [r for r in failing if known[id(r)] is None]
    per_kind = ", ".join(f"{k} {sum(1 for r in records if r.kind == k)}" for k in kind_list)
    click.echo(f"{len(records)} runs ({per_kind}), {len(failing)} failed "
               f"({len(new)} new, {len(failing) - len(new)} known findings); results in {path}")
    for rec in new:
        click.echo(f"FAIL {rec.kind} seed {rec.seed}: {rec.outcome.cause}")
        click.echo(f"  {replay_command(out, rec, fixes)}")
    findings = {f.id: f for f in known.values() if f is not None}
    for finding_id, finding in sorted(findings.items()):
        hits = [r for r in failing if known[id(r)] is finding]
        click.echo(f"KNOWN {finding_id}: {len(hits)} runs, e.g. {replay_command(out, hits[0], fixes)}")
        click.echo(f"  {finding.summary}")
    return 1 if new or (strict and failing) else 0


__all__ = ["fuzz", "parse_kinds", "check_mutant"]
