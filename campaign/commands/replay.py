"""`tcmcheck replay FILE` or `tcmcheck replay --kind K --seed N [--mutant M]`.

Re-runs one failure file written by `tcmcheck fuzz` (its stored case, not the generator) or
regenerates a run from its seed, and prints the verdict JSON. Exit 0 valid, 1 still failing,
2 bad input.
"""

from __future__ import annotations

import json
from typing import Any

import click

from campaign.errors import BadInput
from campaign.formats.failure import check_case, load_failure


def replay_doc(kind: str, seed: int, case: dict[str, Any], mutant: str | None, where: str,
               fixes: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The verdict of one case; malformed cases (hand-edited files) are BadInput."""
    from campaign.runs import checked
    from impl.metadata import InvalidTopology

    try:
        check_case(kind, case)
    except BadInput as e:  # a case edited by hand: the input's fault, never a found bug
        raise BadInput(f"{where}: {e}") from None
    try:
        outcome = checked(kind, case, seed, mutant=mutant, fixes=fixes)
    except InvalidTopology as e:  # impl refusing the topology is the input's fault
        raise BadInput(f"{where}: {e}") from None
    out = {"kind": kind, "seed": seed, **outcome.to_json()}
    if mutant is not None:
        out["mutant"] = mutant
    if fixes:
        out["fixes"] = sorted(fixes)
    return out


@click.command(name="replay")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--kind", default=None, help="Regenerate a run of this kind from --seed (sim, refine or stateful).")
@click.option("--seed", type=int, default=None, help="The run's seed (as in runs.parquet).")
@click.option("--mutant", default=None, help="Regenerate against this mutant (see tcmcheck fuzz).")
@click.option("--indent", type=click.IntRange(0, 16), default=2, show_default=True, help="JSON indentation.")
@click.option("--fix", "fix_names", multiple=True,
              help="Re-run with a finding's proposed fix (repeatable; see docs/findings.md).")
def replay(file: str | None, kind: str | None, seed: int | None, mutant: str | None, indent: int,
           fix_names: tuple[str, ...] = ()) -> int:
    """Re-run one failure file, or one run regenerated from its seed; print the verdict."""
    from campaign.commands.fuzz import check_mutant
    from campaign.known_findings import parse_fixes
    from campaign.runs import KINDS, generated

    fixes = parse_fixes(fix_names)
    if fixes and mutant is not None:
        raise BadInput("--fix: not with --mutant")

    if file is not None:
        if kind is not None or seed is not None or mutant is not None:
            raise BadInput("replay: give either FILE or --kind/--seed, not both")
        doc = load_failure(file)
        if fixes and doc.get("mutant") is not None:
            raise BadInput("--fix: not with a mutant's failure file")
        if not fixes and doc.get("fixes") is not None:  # a failure of a --fix campaign replays with its fixes
            recorded = doc["fixes"]
            if not isinstance(recorded, list) or not all(isinstance(f, str) for f in recorded):
                raise BadInput(f"{file}: fixes must be a list of fix names")
            fixes = parse_fixes(recorded)
        verdict = replay_doc(doc["kind"], doc["seed"], doc["case"], doc.get("mutant"), file, fixes)
    else:
        if kind is None or seed is None:
            raise BadInput("replay: give a failure FILE, or both --kind and --seed")
        if kind not in KINDS:
            raise BadInput(f"--kind: unknown run kind {kind!r} (known: {', '.join(KINDS)})")
        check_mutant(mutant)
        case, crashed = generated(kind, seed)
        if crashed is not None:  # the generator (which runs the spec) crashed: that is the verdict
            verdict = {"kind": kind, "seed": seed, **crashed.to_json()}
        else:
            verdict = replay_doc(kind, seed, case, mutant, f"{kind} seed {seed}", fixes)
    click.echo(json.dumps(verdict, indent=indent, sort_keys=True))
    return 0 if verdict["valid"] else 1


__all__ = ["replay", "load_failure", "replay_doc"]
