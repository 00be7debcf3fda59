"""`tcmcheck placements TOPOLOGY.json [--ops OPS.json]`: the spec's placements at every epoch."""

from __future__ import annotations

import json

import click

from campaign.formats.ops import load_operations
from campaign.formats.placements import run_json
from campaign.formats.topology import load_topology
from spec.operations import run_operations


@click.command(name="placements")
@click.argument("topology", type=click.Path(dir_okay=False))
@click.option("--ops", "ops_path", type=click.Path(dir_okay=False), help="OPS.json: operations to run in order.")
@click.option("--indent", type=int, default=None, help="Pretty-print the JSON with this indent.")
@click.option("--fix", "fix_names", multiple=True,
              help="Run with a finding's proposed fix (repeatable; see docs/findings.md).")
def placements(topology: str, ops_path: str | None, indent: int | None, fix_names: tuple[str, ...] = ()) -> int:
    """Print the read and write placements of every epoch as JSON.

    The first entry is the initial topology, then one entry per committed transformation. A
    rejected step prints its reason on stderr and exits 1 after the epochs committed so far.
    """
    from campaign.known_findings import parse_fixes

    fixes = parse_fixes(fix_names)
    topo = load_topology(topology)
    ops = load_operations(ops_path, topo) if ops_path else ()
    run = run_operations(topo, ops, fixes)
    click.echo(json.dumps(run_json(run), indent=indent))
    if run.rejection is not None:
        kind = run.rejected.kind if run.rejected is not None else "?"
        click.echo(f"tcmcheck: rejected {kind}: {run.rejection}", err=True)
        return 1
    return 0
