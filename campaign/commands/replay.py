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


def replay_doc(kind: str, seed: int, case: dict[str, Any], mutant: str | None, where: str) -> dict[str, Any]:
    """The verdict of one case; malformed cases (hand-edited files) are BadInput."""
    from campaign.runs import checked
    from impl.metadata import InvalidTopology

    try:
        check_case(kind, case)
    except BadInput as e:  # a case edited by hand: the input's fault, never a found bug
        raise BadInput(f"{where}: {e}") from None
    try:
        outcome = checked(kind, case, seed, mutant=mutant)
    except InvalidTopology as e:  # impl refusing the topology is the input's fault
        raise BadInput(f"{where}: {e}") from None
    out = {"kind": kind, "seed": seed, **outcome.to_json()}
    if mutant is not None:
        out["mutant"] = mutant
    return out


@click.command(name="replay")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--kind", default=None, help="Regenerate a run of this kind from --seed (sim or refine).")
@click.option("--seed", type=int, default=None, help="The run's seed (as in runs.parquet).")
@click.option("--mutant", default=None, help="Regenerate against this mutant (see tcmcheck fuzz).")
@click.option("--indent", type=click.IntRange(0, 16), default=2, show_default=True, help="JSON indentation.")
def replay(file: str | None, kind: str | None, seed: int | None, mutant: str | None, indent: int) -> int:
    """Re-run one failure file, or one run regenerated from its seed; print the verdict."""
    from campaign.commands.fuzz import check_mutant
    from campaign.runs import KINDS, generate_case

    if file is not None:
        if kind is not None or seed is not None or mutant is not None:
            raise BadInput("replay: give either FILE or --kind/--seed, not both")
        doc = load_failure(file)
        verdict = replay_doc(doc["kind"], doc["seed"], doc["case"], doc.get("mutant"), file)
    else:
        if kind is None or seed is None:
            raise BadInput("replay: give a failure FILE, or both --kind and --seed")
        if kind not in KINDS:
            raise BadInput(f"--kind: unknown run kind {kind!r} (known: {', '.join(KINDS)})")
        check_mutant(mutant)
        case = generate_case(kind, seed)
        verdict = replay_doc(kind, seed, case, mutant, f"{kind} seed {seed}")
    click.echo(json.dumps(verdict, indent=indent, sort_keys=True))
    return 0 if verdict["valid"] else 1


__all__ = ["replay", "load_failure", "replay_doc"]
