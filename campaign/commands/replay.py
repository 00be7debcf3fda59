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


def load_failure(path: str) -> dict[str, Any]:
    from campaign.formats.jsonio import load_json
    from campaign.runs import KINDS, MUTANTS

    doc = load_json(path, "failure file")
    if not isinstance(doc, dict) or "case" not in doc or "kind" not in doc or "seed" not in doc:
        raise BadInput(f"{path}: not a tcmcheck failure file (needs kind, seed and case)")
    if doc["kind"] not in KINDS:
        raise BadInput(f"{path}: unknown run kind {doc['kind']!r} (known: {', '.join(KINDS)})")
    if isinstance(doc["seed"], bool) or not isinstance(doc["seed"], int):
        raise BadInput(f"{path}: seed must be an integer")
    if not isinstance(doc["case"], dict):
        raise BadInput(f"{path}: case must be a JSON object")
    if doc.get("mutant") is not None and doc["mutant"] not in MUTANTS:
        raise BadInput(f"{path}: unknown mutant {doc['mutant']!r}")
    return doc


def replay_doc(kind: str, seed: int, case: dict[str, Any], mutant: str | None, where: str,
               fixes: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The verdict of one case; malformed cases (hand-edited files) are BadInput."""
    from campaign.runs import checked
    from impl.metadata import InvalidTopology

    if kind == "refine" and not (isinstance(case.get("topology"), dict)
                                 and isinstance(case.get("transformations"), list)):
        raise BadInput(f"{where}: a refine case needs a topology object and a transformations list")
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
@click.option("--kind", default=None, help="Regenerate a run of this kind from --seed (sim, refine).")
@click.option("--seed", type=int, default=None, help="The run's seed (as in runs.parquet).")
@click.option("--mutant", default=None, help="Regenerate against this mutant (see tcmcheck fuzz).")
@click.option("--indent", type=int, default=2, show_default=True, help="JSON indentation.")
@click.option("--fix", "fix_names", multiple=True,
              help="Re-run with a finding's proposed fix (repeatable; see docs/findings.md).")
def replay(file: str | None, kind: str | None, seed: int | None, mutant: str | None, indent: int,
           fix_names: tuple[str, ...] = ()) -> int:
    """Re-run one failure file, or one run regenerated from its seed; print the verdict."""
    from campaign.commands.fuzz import check_mutant, parse_kinds
    from campaign.known_findings import parse_fixes
    from campaign.runs import generate_case

    fixes = parse_fixes(fix_names)
    if fixes and mutant is not None:
        raise BadInput("--fix: not with --mutant")

    if file is not None:
        if kind is not None or seed is not None or mutant is not None:
            raise BadInput("replay: give either FILE or --kind/--seed, not both")
        doc = load_failure(file)
        if fixes and doc.get("mutant") is not None:
            raise BadInput("--fix: not with a mutant's failure file")
        verdict = replay_doc(doc["kind"], doc["seed"], doc["case"], doc.get("mutant"), file, fixes)
    else:
        if kind is None or seed is None:
            raise BadInput("replay: give a failure FILE, or both --kind and --seed")
        (kind,) = parse_kinds(kind)[:1]
        case = generate_case(kind, seed)
        verdict = replay_doc(kind, seed, case, check_mutant(mutant), f"{kind} seed {seed}", fixes)
    click.echo(json.dumps(verdict, indent=indent, sort_keys=True))
    return 0 if verdict["valid"] else 1


__all__ = ["replay", "load_failure", "replay_doc"]
