"""`tcmcheck shrink FILE [--out OUT] [--max-checks N]`: a smaller failure file, same bug.

Greedy minimization, keeping each change that still fails with the same cause class: drop
transformations, topology nodes, tokens and keyspaces (refine, campaign/shrink/greedy.py);
shrink the schedule and the scenario (sim, campaign/shrink/schedule.py, docs/shrink.md): the
run's random decisions are recorded and replayed from a decision list carried by the case,
then decisions, faults, submissions, client and schema operations and nodes are deleted. Every
candidate runs with the failure file's mutant and fixes, and OUT records them too. Writes OUT
(default: FILE with `.min.json`), a failure file `tcmcheck replay` reads, and prints a JSON
summary (sim: sizes in steps and events, before and after). Exit 0 written, 1 the file does not
fail (nothing to shrink), 2 bad input.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from campaign.commands.replay import replay_doc
from campaign.errors import BadInput
from campaign.kinds import load_failure
from campaign.outputs import check_output_file, write_output
from campaign.shrink import shrink as shrink_run


@click.command(name="shrink")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--out", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Where to write the smaller failure file (default: FILE with .min.json).")
@click.option("--max-checks", type=int, default=2000, show_default=True,
              help="Give up after this many runs.")
def shrink(file: str, out_file: str | None, max_checks: int) -> int:
    """Minimize a failure file written by tcmcheck fuzz."""
    if max_checks < 1:
        raise BadInput(f"--max-checks: expected at least 1, got {max_checks}")
    spec = load_failure(file)
    out = Path(out_file) if out_file is not None else Path(file).with_suffix(".min.json")
    check_output_file(out, "--out", inputs=(file,))  # before minutes of shrinking, not after
    first = replay_doc(spec, file)  # BadInput for a malformed case
    if first["valid"]:
        click.echo(json.dumps({"file": file, "valid": True, "shrunk": False,
                               "note": "the case does not fail: nothing to shrink"}, indent=2))
        return 1
    small = shrink_run(spec, max_checks=max_checks)
    write_output(out, small.spec.to_text(small.outcome) + "\n", "--out")
    sizes: dict[str, int] = {}
    if small.sim_before is not None and small.sim_after is not None:
        sizes = {"steps_before": small.sim_before.steps, "steps_after": small.sim_after.steps,
                 "events_before": small.sim_before.events, "events_after": small.sim_after.events}
    assert small.outcome.cause is not None
    click.echo(json.dumps({"file": str(out), "kind": spec.kind, "seed": spec.seed, "cause": small.outcome.cause.text,
                           "size_before": small.size_before, "size_after": small.size_after,
                           **sizes, "checks": small.checks, "replay": small.spec.replay_command(out.resolve())},
                          indent=2, sort_keys=True))
    return 0


__all__ = ["shrink"]
