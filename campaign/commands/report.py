"""`tcmcheck report DIR... [--json] [--html OUT] [--engine local|spark]`: one or many campaigns.

Runs and failures per kind, failures grouped by cause class, then each failure with its cause and
replay command; `--json` prints the same as one JSON object; `--html OUT` writes a
self-contained page with plots (campaign/report/html.py). `--engine spark` reads and tallies the
runs.parquet files as Spark tasks (campaign/report/spark_tally.py; both give the same summary).
Loads neither the simulator nor the prover (a test checks it). A folder named twice (by any
spelling or link: the same device and inode) is counted once, with a note on stderr.
Exit 0 (the report itself is not a verdict); 2 when a folder holds no readable runs.parquet of
the expected columns and types (checked for every folder before anything is read in full) or
`--html` names a place that cannot be written; 4 when writing the page fails (a full disk).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from campaign.commands.backend import backend_options, spark_asked
from campaign.errors import BadInput
from campaign.formats.text import counted
from campaign.outputs import check_output_file, write_output
from campaign.report.aggregate import Tally, operation_shares
from campaign.report.html import render, replay_of
from campaign.report.spark_tally import tally_spark  # optional dependency: pyspark
from campaign.store import TABLE, check_schema, read_table


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return Tally.of(rows).summary()


def distinct(directories: tuple[str, ...]) -> tuple[str, ...]:
    """The folders, each once: a campaign given twice (`out out/`, a symlink to it) would count
    its runs twice. The first spelling is kept; a note on stderr says which were dropped."""
    seen: dict[object, str] = {}
    out = []
    for d in directories:
        try:
            st = os.stat(d)
            ident: object = (st.st_dev, st.st_ino)
        except OSError:
            ident = d  # a missing folder: the runs.parquet check names it
        if ident in seen:
            click.echo(f"tcmcheck: note: {d} is the campaign {seen[ident]} again; counted once", err=True)
            continue
        seen[ident] = d
        out.append(d)
    return tuple(out)


def _check_out(html_out: Path | None) -> None:
    if html_out is None:
        return
    if html_out.is_symlink() or html_out.is_dir():
        raise BadInput(f"--html: {html_out} is a directory or a symlink; name a new file")
    if not html_out.parent.is_dir():
        raise BadInput(f"--html: cannot write {html_out}: no directory {html_out.parent}")
    check_output_file(html_out, "--html")


@click.command(name="report")
@click.argument("directories", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, default=False, help="Machine-readable output.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a self-contained HTML page with plots to this file.")
@backend_options("Tally in this process, or as Spark tasks (embedded local[*], or --master).")
def report(directories: tuple[str, ...], as_json: bool, html_out: Path | None, engine: str,
           master: str | None) -> int:
    """Summarize fuzzing campaigns (each DIR/runs.parquet), optionally as an HTML page."""
    spark = spark_asked(engine, master)
    directories = distinct(directories)
    paths = []
    for d in directories:
        path = Path(d) / TABLE
        if not path.is_file():
            raise BadInput(f"{d}: no runs.parquet (run tcmcheck fuzz --out {d} first)")
        check_schema(path)
        paths.append(path)
    _check_out(html_out)
    if spark:
        s = tally_spark([str(p) for p in paths], list(directories), master=master)
    else:
        tally = Tally()
        for d, path in zip(directories, paths, strict=True):
            rows = read_table(path).to_pylist()
            for r in rows:
                r["dir"] = d
            tally.merge(Tally.of(rows))
        s = tally.summary()
    base = {d: Path(d).resolve() for d in directories}  # replay commands that work from any folder
    if html_out is not None:
        write_output(html_out, render(s, list(directories), base), "--html")
    if as_json:
        click.echo(json.dumps(s, indent=2, sort_keys=True))
        return 0
    _print(s, directories, base)
    if html_out is not None:
        click.echo(f"report written to {html_out}")
    return 0


def _print(s: dict[str, Any], directories: tuple[str, ...], base: dict[str, Path]) -> None:
    click.echo(f"{counted(s['runs'], 'run')}, {s['failed']} failed" + (f" in {len(directories)} campaigns" if len(directories) > 1 else ""))
    for kind, k in s["kinds"].items():
        click.echo(f"  {kind}: {counted(k['runs'], 'run')}, {k['failed']} failed, {k['seconds']:.1f} s of work")
    cov = s.get("coverage", {})
    focus = {f: n for f, n in s.get("focus", {}).items() if f != "none"}
    if focus:
        click.echo("focus: " + "; ".join(f"{f} ({counted(n, 'run')})" for f, n in focus.items())
                   + (f"; not aimed: {counted(s['focus']['none'], 'run')}" if s["focus"].get("none") else ""))
    shares = operation_shares(cov.get("operations", {}))
    if shares:
        click.echo("operations started: " + ", ".join(f"{op} {n} ({share:.0%})" for op, (n, share) in shares.items()))
    if cov.get("operations_ended"):
        click.echo("operations the sim nodes ended: "
                   + ", ".join(f"{name} {n}" for name, n in cov["operations_ended"].items()))
    if cov.get("paths"):
        click.echo("protocol paths (runs that took each, times taken):")
        for name, p in cov["paths"].items():
            click.echo(f"  {name}: {counted(p['runs'], 'run')}, {counted(p['times'], 'time')}")
    if cov.get("paths_never_reached"):
        click.echo("protocol paths never reached: " + ", ".join(cov["paths_never_reached"]))
    if s["causes"]:
        click.echo("causes:")
        for cause, n in s["causes"].items():
            finding = next((f for f in s["failures"] if f["cause_class"] == cause and f["known"]), None)
            tag = f" [known: {finding['known']}, {finding['known_class']}]" if finding else ""
            click.echo(f"  {n} × {cause}{tag}")
    if s["failures"]:
        click.echo("failures:")
        for f in s["failures"]:
            tag = f" [known: {f['known']}, {f.get('known_class')}]" if f["known"] else ""
            where = f"{f['dir']}: " if len(directories) > 1 else ""
            click.echo(f"  {where}{f['kind']} seed {f['seed']}: {f['cause']}{tag}")
            click.echo(f"    {replay_of(f, base)}")


__all__ = ["report", "summarize"]
