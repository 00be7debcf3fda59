"""Options of the commands that run campaigns (`fuzz`, `mutants`, `replay`): `--kinds` from the
run kinds' registry and `--engine`/`--master` from the engine registry, so a new kind or engine
is offered everywhere at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from campaign.engines.registry import DEFAULT_ENGINE, ENGINES
from campaign.errors import BadInput
from campaign.kinds import KINDS


def parse_kinds(value: str) -> tuple[str, ...]:
    kinds = tuple(k.strip() for k in value.split(",") if k.strip())
    if not kinds:
        raise BadInput(f"--kinds: name at least one run kind ({', '.join(KINDS)})")
    for k in kinds:
        if k not in KINDS:
            raise BadInput(f"--kinds: unknown run kind {k!r} (known: {', '.join(KINDS)})")
    if len(set(kinds)) != len(kinds):
        raise BadInput(f"--kinds: a run kind is listed twice in {value!r}")
    return kinds


def engine_options(help_engine: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--engine NAME` (every registered engine) and `--master URL` (a cluster; implies spark)."""

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option("--master", default=None,
                         help="Spark master URL (spark://HOST:PORT, yarn, ...); implies --engine spark.")(f)
        return click.option("--engine", type=click.Choice(sorted(ENGINES)), default=DEFAULT_ENGINE,
                            show_default=True, help=help_engine)(f)

    return decorate


__all__ = ["engine_options", "parse_kinds"]
