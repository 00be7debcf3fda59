"""`tcmcheck mutants [--budget S] [--only NAME] [--json] [--out DIR]`: the bug-finding matrix.

A campaign per known-bug switch (impl/bugs.py, campaign/mutants.py), each for at most S
wall-clock seconds: switch, detected, seconds to first detection, cause, shrunk size, replay
command. `--json` prints {"mutants": [{"name", "detected", "seconds", "cause", "shrunk_size"}]},
`shrunk_size` being {"steps": [before, after], "events": [before, after]} (sim; refine: steps
only, transformations and nodes; docs/shrink.md). Exit 0 iff every switch was detected.
Each detecting run's failure file is kept in `--out DIR` (default `mutants-out`), shrunk unless
--no-shrink, and the replay command names it (`tcmcheck replay DIR/NAME.json`): a switch's
campaign reshapes its cases (campaign/mutants/bias.py), so a bare `--kind --seed` replay would
regenerate the unreshaped case and not reproduce the detection.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from campaign.errors import BadInput
from campaign.mutants.matrix import campaign
from campaign.outputs import write_output
from impl.bugs import NAMES, check_names


@click.command(name="mutants")
@click.option("--budget", type=float, default=60.0, show_default=True,
              help="Seconds of campaign per switch (stops at the first detection).")
@click.option("--only", "only", multiple=True, help="Run only this switch (repeatable).")
@click.option("--json", "as_json", is_flag=True, default=False, help="Print JSON instead of a table.")
@click.option("--out", "out", type=click.Path(file_okay=False), default="mutants-out", show_default=True,
              help="Write each detecting run's failure file here (DIR/NAME.json); the replay "
                   "commands printed name these files.")
@click.option("--no-shrink", is_flag=True, default=False, help="Skip shrinking detected cases.")
def mutants(budget: float, only: tuple[str, ...], as_json: bool, out: str, no_shrink: bool) -> int:
    """Run a campaign per known-bug switch and report which ones the harness detects."""
    if not budget > 0:
        raise BadInput("--budget: must be a positive number of seconds")
    try:
        names = sorted(check_names(only)) if only else list(NAMES)
    except ValueError as e:
        raise BadInput(f"--only: {e}") from None
    out_dir = Path(out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"--out: cannot create {out}: {e.strerror}") from None
    rows = []
    for name in names:
        d, _ = campaign(name, budget, shrink_found=not no_shrink)
        path = None
        if d.failure is not None:
            path = str((out_dir / f"{name}.json").resolve())  # a replay command that works from anywhere
            write_output(path, d.failure, "--out")
        rows.append((d, d.replay(path)))
        if not as_json:
            click.echo(f"{name:38} {'yes' if d.detected else 'NO':3} "
                       f"{'' if d.seconds is None else f'{d.seconds:6.1f}s':>7} "
                       f"{d.sizes_text():>30}  "
                       f"{(d.cause or '')[:70]}  {rows[-1][1]}")
    if as_json:
        click.echo(json.dumps({"mutants": [{k: d.to_json()[k] for k in
                                            ("name", "detected", "seconds", "cause", "shrunk_size")}
                                           | {"replay": r} for d, r in rows]}, indent=1))
    else:
        found = sum(1 for d, _ in rows if d.detected)
        click.echo(f"{found}/{len(rows)} switches detected")
    return 0 if all(d.detected for d, _ in rows) else 1


__all__ = ["mutants"]
