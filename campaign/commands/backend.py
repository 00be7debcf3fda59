"""`--engine local|spark` and `--master URL` of `report` and `check-history`: where a report
tallies and a history check searches (a campaign's engines are campaign/engines/registry.py's).
Light on purpose: `report` loads neither the simulator nor the prover."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from campaign import spark_session

BACKENDS = ("local", "spark")
"""In this process, or as Spark tasks (embedded local[*], or --master)."""


def backend_options(help_engine: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option("--master", default=None,
                         help="Spark master URL (default: embedded local[*]); implies --engine spark.")(f)
        return click.option("--engine", type=click.Choice(BACKENDS), default="local", show_default=True,
                            help=help_engine)(f)

    return decorate


def spark_asked(engine: str, master: str | None) -> bool:
    """Whether the command runs on Spark (`--engine spark`, or any `--master`); if so, that
    pyspark and Java are here is checked now, before the command reads or writes anything."""
    if engine != "spark" and master is None:
        return False
    spark_session.check_spark()
    return True


__all__ = ["BACKENDS", "backend_options", "spark_asked"]
