"""`tcmcheck check-history` (placeholder until its issue lands)."""

from __future__ import annotations

import click

from campaign.errors import BadInput


@click.command(name="check-history", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def check_history(args: tuple[str, ...]) -> int:
    """Not implemented yet."""
    raise BadInput("check-history is not implemented yet")
