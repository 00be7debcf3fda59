"""`tcmcheck placements TOPOLOGY.json [--ops OPS.json]`: the spec's placements at every epoch."""

from __future__ import annotations

import json

import click

from campaign.commands.common import check_replicas, load_inputs, rejection
from campaign.commands.options import parse_fixes
from campaign.errors import BadInput
from campaign.formats.placements import run_json
from spec.operations import run_operations

MAX_INDENT = 16


@click.command(name="placements")
@click.argument("topology", type=click.Path(dir_okay=False))
@click.option("--ops", "ops_path", type=click.Path(dir_okay=False), help="OPS.json: operations to run in order.")
@click.option("--indent", type=int, default=None, help="Pretty-print the JSON with this indent.")
@click.option("--fix", "fix_names", multiple=True,
              help="Run with a finding's proposed fix (repeatable; see docs/findings.md).")
def placements(topology: str, ops_path: str | None, indent: int | None, fix_names: tuple[str, ...] = ()) -> int:
    """Print the read and write placements of every epoch as JSON.

    The first entry is the initial topology, then one entry per committed transformation. A
    step the spec rejects is bad input: the epochs committed so far are printed, the reason
    goes to stderr and the exit status is 2 (as for prove).
    """
    if indent is not None and not 0 <= indent <= MAX_INDENT:
        raise BadInput(f"--indent: expected 0 to {MAX_INDENT}, got {indent}")

    fixes = parse_fixes(fix_names)
    topo, ops = load_inputs(topology, ops_path)
    run = run_operations(topo, ops, fixes)
    check_replicas(run, ops_path)
    click.echo(json.dumps(run_json(run), indent=indent))
    rejected = rejection(run, ops_path)
    if rejected is not None:
        raise rejected
    return 0
