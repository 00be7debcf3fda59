"""`--focus`, `--faults`, `--levels`: what a campaign's generators are aimed at
(campaign/run/focus.py), for `fuzz` and for `replay --kind K --seed N` (which regenerates the
same case only with the same focus)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from campaign.run.focus import FAULTS, LEVELS, OPERATIONS


def focus_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--levels", default=None, metavar="CL,...",
                     help=f"Client levels of sim runs: only read/write pairs naming one of these "
                          f"({', '.join(LEVELS)}).")(f)
    f = click.option("--faults", default=None, metavar="FAULT,...",
                     help=f"Random faults of sim runs: these in every run, the others in none "
                          f"({', '.join(FAULTS)}).")(f)
    return click.option("--focus", default=None, metavar="OP,...",
                        help=f"Operation kinds the runs start: only these ({', '.join(OPERATIONS)}; "
                             "cancel: most operations cancelled).")(f)


__all__ = ["focus_options"]
