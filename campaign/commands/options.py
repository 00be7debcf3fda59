"""Options several commands share, checked once here before any work: `--fix`, `--mutant`, and
`--engine`/`--master` of report and check-history. Light on purpose (spec and impl/bugs.py
only): `placements` and `report` use it. A campaign's options are in campaign_options.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import click

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


BACKENDS = ("local", "spark")
"""Where `report` tallies and `check-history` searches: in this process, or as Spark tasks."""


def backend_options(help_engine: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--engine local|spark` and `--master URL` (a cluster; implies spark) of report and
    check-history (a campaign's engines are campaign/engines/registry.py's)."""

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option("--master", default=None,
                         help="Spark master URL (default: embedded local[*]); implies --engine spark.")(f)
        return click.option("--engine", type=click.Choice(BACKENDS), default="local", show_default=True,
                            help=help_engine)(f)

    return decorate


__all__ = ["BACKENDS", "backend_options", "check_mutant", "parse_fixes"]
