"""Failure files (`tcmcheck fuzz` writes them; `replay` and `shrink` read them).

`{"tcmcheck_failure": 1, "kind": "sim"|"refine"|"stateful", "seed": int, "case": {...}, "verdict": {...},
"mutant"?: str}`. `load_failure` checks the envelope *and* parses the case with the same
parsers a run uses, so that a hand-edited case is bad input (exit 2) before it runs — not a
"crash" verdict that looks like a found bug.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from campaign.errors import BadInput
from campaign.formats.fields import describe, integer, lst, obj
from campaign.formats.jsonio import in_file, load_json, parsing


def load_failure(path: str | Path) -> dict[str, Any]:
    from campaign.runs import KINDS, MUTANTS

    doc = load_json(path, "failure")
    if not isinstance(doc, dict) or not {"case", "kind", "seed"} <= set(doc):
        raise BadInput(f"{path}: not a tcmcheck failure file (needs kind, seed and case)")
    if doc["kind"] not in KINDS:
        raise BadInput(f"{path}: unknown run kind {describe(doc['kind'])} (known: {', '.join(KINDS)})")
    integer(doc["seed"], f"{path}: seed")
    obj(doc["case"], f"{path}: case")
    if doc.get("mutant") is not None and doc["mutant"] not in MUTANTS:
        raise BadInput(f"{path}: unknown mutant {describe(doc['mutant'])} (known: {', '.join(MUTANTS)})")
    try:
        with parsing(str(path)):
            check_case(doc["kind"], doc["case"])
    except BadInput as e:
        raise in_file(e, path) from None
    return doc


def check_case(kind: str, case: Any) -> None:
    """Parse a run's case as the run will: BadInput for anything a run could not take."""
    from campaign.formats.scenario import parse_scenario
    from campaign.formats.topology import parse_topology
    from campaign.formats.transformations import parse_transformation

    if kind == "sim":
        parse_scenario(obj(case, "case"))
        return
    if kind == "stateful":
        from campaign.stateful import parse_case

        parse_case(case)
        return
    case = obj(case, "case")
    if not isinstance(case.get("topology"), dict) or not isinstance(case.get("transformations"), list):
        raise BadInput("a refine case needs a topology object and a transformations list")
    parse_topology(case["topology"], "case.topology")
    for i, t in enumerate(lst(case["transformations"], "case.transformations")):
        parse_transformation(t, f"case.transformations[{i}]")


__all__ = ["check_case", "load_failure"]
