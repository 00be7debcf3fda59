"""`--engine local|spark` and `--master URL` of `report` and `check-history`: where a report
tallies and a history check searches (a campaign's engines are campaign/engines/registry.py's).
Light on purpose: `report` loads neither the simulator nor the prover."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

BACKENDS = ("local", "spark")
"""In this process, or as Spark tasks (embedded local[*], or --master)."""


def backend_options(help_engine: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option("--master", default=None,
                         help="Spark master URL (default: embedded local[*]); implies --engine spark.")(f)
        return click.option("--engine", type=click.Choice(BACKENDS), default="local", show_default=True,
                            help=help_engine)(f)

    return decorate


__all__ = ["BACKENDS", "backend_options"]
