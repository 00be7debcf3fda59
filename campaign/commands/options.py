"""Options several commands share, checked once here before any work: `--fix` and `--mutant`.
Light (spec/fixes.py and the switch registry impl/bugs.py only): `placements` and `prove` use it.
A campaign's options are in campaign_options.py, report's and check-history's in backend.py."""

from __future__ import annotations

from collections.abc import Iterable

from campaign.errors import BadInput
from impl.bugs import NAMES as MUTANTS
from spec.fixes import FIXES


def parse_fixes(names: Iterable[str]) -> frozenset[str]:
    """`--fix NAME` values (repeatable, or comma-separated), checked before any work."""
    out: set[str] = set()
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if not name:
                continue
            if name not in FIXES:
                raise BadInput(f"--fix: unknown fix {name!r} (known: {', '.join(FIXES)})")
            out.add(name)
    return frozenset(out)


def check_mutant(mutant: str | None) -> str | None:
    if mutant is not None and mutant not in MUTANTS:
        raise BadInput(f"--mutant: unknown mutant {mutant!r} (known: {', '.join(MUTANTS)})")
    return mutant


__all__ = ["check_mutant", "parse_fixes"]
