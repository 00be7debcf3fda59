"""`tcmcheck simulate` (placeholder until its issue lands)."""

from __future__ import annotations

import click

from campaign.errors import BadInput


@click.command(name="simulate", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def simulate(args: tuple[str, ...]) -> int:
    """Not implemented yet."""
    raise BadInput("simulate is not implemented yet")
