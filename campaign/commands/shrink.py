"""`tcmcheck shrink FILE [--out OUT] [--max-checks N]`: a smaller failure file, same bug.

Greedy minimization, keeping each change that still fails with the same cause class: drop
transformations, topology nodes, tokens and keyspaces (refine, `campaign.shrink.shrink_case`);
shrink the schedule and the scenario (sim, `campaign.shrink.shrink_sim`, docs/shrink.md): the
run's random decisions are recorded and replayed from a decision list carried by the case,
then decisions, faults, submissions, client and schema operations and nodes are deleted.
Writes OUT (default: FILE with `.min.json`), a failure file `tcmcheck replay` reads, and prints
a JSON summary (sim: sizes in steps and events, before and after). Exit 0 written, 1 the file
does not fail (nothing to shrink), 2 bad input.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from campaign.errors import BadInput
from campaign.outputs import check_output_file, write_output


@click.command(name="shrink")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--out", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Where to write the smaller failure file (default: FILE with .min.json).")
@click.option("--max-checks", type=int, default=2000, show_default=True,
              help="Give up after this many runs.")
def shrink(file: str, out_file: str | None, max_checks: int) -> int:
    """Minimize a failure file written by tcmcheck fuzz."""
    from campaign.commands.replay import load_failure, replay_doc
    from campaign.runs import Outcome, failure_doc
    from campaign.shrink import case_size, shrink_case, shrink_sim

    if max_checks < 1:
        raise BadInput(f"--max-checks: expected at least 1, got {max_checks}")
    doc = load_failure(file)
    out = Path(out_file) if out_file is not None else Path(file).with_suffix(".min.json")
    check_output_file(out, "--out", inputs=(file,))  # before minutes of shrinking, not after
    kind, seed, case, mutant = doc["kind"], doc["seed"], doc["case"], doc.get("mutant")
    first = replay_doc(kind, seed, case, mutant, file)  # BadInput for a malformed case
    if first["valid"]:
        click.echo(json.dumps({"file": file, "valid": True, "shrunk": False,
                               "note": "the case does not fail: nothing to shrink"}, indent=2))
        return 1
    sizes: dict[str, int] = {}
    if kind == "sim":
        small, outcome, checks, before, after = shrink_sim(case, seed, mutant=mutant, max_checks=max_checks)
        sizes = {"steps_before": before.steps, "steps_after": after.steps,
                 "events_before": before.events, "events_after": after.events}
    else:
        small, outcome, checks = shrink_case(kind, case, seed, mutant=mutant, max_checks=max_checks)
    assert isinstance(outcome, Outcome)
    write_output(out, json.dumps(failure_doc(kind, seed, small, outcome, mutant), indent=1, sort_keys=True) + "\n",
                 "--out")
    click.echo(json.dumps({"file": str(out), "kind": kind, "seed": seed, "cause": outcome.cause,
                           "size_before": case_size(kind, case), "size_after": case_size(kind, small),
                           **sizes, "checks": checks, "replay": f"tcmcheck replay {out}"},
                          indent=2, sort_keys=True))
    return 0


__all__ = ["shrink"]
