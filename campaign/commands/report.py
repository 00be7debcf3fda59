"""`tcmcheck report DIR [--json]`: a summary of a campaign's `DIR/runs.parquet`.

Runs and failures per kind, then each failure with its cause and replay command. `--json`
prints the same as one JSON object. Exit 0 (the report itself is not a verdict); 2 when the
directory holds no readable runs.parquet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from campaign.errors import BadInput


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from campaign.shrink import cause_class

    kinds: dict[str, dict[str, Any]] = {}
    causes: dict[str, int] = {}
    for r in rows:
        k = kinds.setdefault(r["kind"], {"runs": 0, "failed": 0, "seconds": 0.0})
        k["runs"] += 1
        k["failed"] += not r["valid"]
        k["seconds"] = round(k["seconds"] + (r["duration_s"] or 0.0), 3)
        if not r["valid"]:
            key = cause_class(r["cause"])
            causes[key] = causes.get(key, 0) + 1
    from campaign.known_findings import known_finding

    failures = []
    for r in rows:
        if not r["valid"]:
            finding = known_finding(cause_class(r["cause"]))
            failures.append({"run": r["run"], "kind": r["kind"], "seed": r["seed"], "cause": r["cause"],
                             "replay": r["replay"], "known": finding.id if finding else None})
    return {"runs": len(rows), "failed": len(failures), "kinds": dict(sorted(kinds.items())),
            "causes": dict(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))),
            "failures": failures}


@click.command(name="report")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, default=False, help="Machine-readable output.")
def report(directory: str, as_json: bool) -> int:
    """Summarize a fuzzing campaign's results (DIR/runs.parquet)."""
    from campaign.fuzz import COLUMNS, read_runs

    path = Path(directory) / "runs.parquet"
    if not path.is_file():
        raise BadInput(f"{directory}: no runs.parquet (run tcmcheck fuzz --out {directory} first)")
    try:
        rows = read_runs(path)
    except Exception as e:  # noqa: BLE001 (pyarrow raises several types for a damaged file)
        raise BadInput(f"{path}: not a readable Parquet file ({type(e).__name__})") from None
    if rows and set(COLUMNS) - set(rows[0]):
        raise BadInput(f"{path}: missing columns {sorted(set(COLUMNS) - set(rows[0]))}")
    s = summarize(rows)
    if as_json:
        click.echo(json.dumps(s, indent=2, sort_keys=True))
        return 0
    click.echo(f"{s['runs']} runs, {s['failed']} failed")
    for kind, k in s["kinds"].items():
        click.echo(f"  {kind}: {k['runs']} runs, {k['failed']} failed, {k['seconds']:.1f} s of work")
    if s["causes"]:
        click.echo("causes:")
        for cause, n in s["causes"].items():
            click.echo(f"  {n} × {cause}")
    if s["failures"]:
        click.echo("failures:")
        for f in s["failures"]:
            tag = f" [known: {f['known']}]" if f["known"] else ""
            click.echo(f"  {f['kind']} seed {f['seed']}: {f['cause']}{tag}")
            click.echo(f"    {f['replay']}")
    return 0


__all__ = ["report", "summarize"]
