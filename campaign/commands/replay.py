"""`tcmcheck replay FILE` or `tcmcheck replay --kind K --seed N [--mutant M] [--fix F] [--focus ...]`.

Re-runs one failure file written by `tcmcheck fuzz`, `shrink` or `mutants` (its stored case, not
the generator; with the mutant and fixes it records) or regenerates a run from its seed (aimed by
`--focus/--faults/--levels` as the campaign was: campaign/run/focus.py), and prints the verdict
JSON. Exit 0 valid, 1 still failing, 2 bad input.
"""

from __future__ import annotations

import json
from typing import Any

import click
from attrs import evolve

from campaign.commands.focus_options import focus_options
from campaign.commands.options import check_mutant, parse_fixes
from campaign.errors import BadInput
from campaign.judge.evidence import evidence_lines
from campaign.kinds import KINDS, checked, generated, load_failure
from campaign.run.focus import Focus
from campaign.run.record import Outcome, RunSpec
from impl.metadata import InvalidTopology


def replay_doc(spec: RunSpec, where: str) -> dict[str, Any]:
    """The verdict of one run (its case set); malformed cases (hand-edited files) are BadInput."""
    assert spec.case is not None
    try:
        KINDS[spec.kind].parse(dict(spec.case))
    except BadInput as e:  # a case edited by hand: the input's fault, never a found bug
        raise BadInput(f"{where}: {e}") from None
    try:
        outcome = checked(spec)
    except InvalidTopology as e:  # impl refusing the topology is the input's fault
        raise BadInput(f"{where}: {e}") from None
    return _verdict(spec, outcome)


def _verdict(spec: RunSpec, outcome: Outcome) -> dict[str, Any]:
    out = {**spec.identity(), **outcome.to_json()}
    if outcome.payload is not None:
        out.update(outcome.payload.to_doc())
    return out


@click.command(name="replay")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--kind", default=None, help="Regenerate a run of this kind from --seed (sim, refine or stateful).")
@click.option("--seed", type=int, default=None, help="The run's seed (as in runs.parquet).")
@click.option("--mutant", default=None, help="Regenerate against this mutant (see tcmcheck fuzz).")
@click.option("--indent", type=click.IntRange(0, 16), default=2, show_default=True, help="JSON indentation.")
@click.option("--fix", "fix_names", multiple=True,
              help="Re-run with a finding's proposed fix (repeatable; see docs/findings.md).")
@focus_options
def replay(file: str | None, kind: str | None, seed: int | None, mutant: str | None, indent: int,
           fix_names: tuple[str, ...] = (), focus: str | None = None, faults: str | None = None,
           levels: str | None = None) -> int:
    """Re-run one failure file, or one run regenerated from its seed; print the verdict."""
    fixes = parse_fixes(fix_names)
    if fixes and mutant is not None:
        raise BadInput("--fix: not with --mutant")
    if file is not None:
        if kind is not None or seed is not None or mutant is not None:
            raise BadInput("replay: give either FILE or --kind/--seed, not both")
        if focus is not None or faults is not None or levels is not None:
            raise BadInput("replay: --focus/--faults/--levels regenerate a run from --seed; a FILE holds its case")
        spec = load_failure(file)
        if fixes and spec.mutant is not None:
            raise BadInput("--fix: not with a mutant's failure file")
        if fixes:  # --fix replaces the fixes a file records (a failure of a --fix campaign keeps its own)
            spec = evolve(spec, fixes=fixes)
        verdict = replay_doc(spec, file)
    else:
        if kind is None or seed is None:
            raise BadInput("replay: give a failure FILE, or both --kind and --seed")
        if kind not in KINDS:
            raise BadInput(f"--kind: unknown run kind {kind!r} (known: {', '.join(KINDS)})")
        check_mutant(mutant)
        aim = Focus.parse(focus, faults, levels, kinds=(kind,))
        spec, crashed = generated(RunSpec(kind=kind, seed=seed, mutant=mutant, fixes=fixes, focus=aim))
        if crashed is not None:  # the generator (which runs the spec) crashed: that is the verdict
            verdict = _verdict(spec, crashed)
        else:
            verdict = replay_doc(spec, f"{kind} seed {seed}")
    for line in evidence_lines(verdict.get("evidence")):  # for a person, beside the JSON on stdout
        click.echo(line, err=True)
    click.echo(json.dumps(verdict, indent=indent, sort_keys=True))
    return 0 if verdict["valid"] else 1


__all__ = ["replay", "replay_doc"]
