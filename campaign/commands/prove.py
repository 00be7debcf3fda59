"""`tcmcheck prove` (placeholder until its issue lands)."""

from __future__ import annotations

import click

from campaign.errors import BadInput


@click.command(name="prove", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def prove(args: tuple[str, ...]) -> int:
    """Not implemented yet."""
    raise BadInput("prove is not implemented yet")
