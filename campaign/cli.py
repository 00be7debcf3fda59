"""`tcmcheck`: the command-line shell. Each command lives in `campaign/commands/<name>.py`.

Commands are imported lazily so that `tcmcheck placements` does not pay for z3 or pyspark.
`BadInput` from any command, and every usage error click finds (unknown option, bad choice,
missing argument, no command at all), becomes one line on stderr and exit status 2, and an
`IOFailure` (the disk full, a file vanished) one line and exit status 4, in this one place
(`main`). The line is made printable here: control characters and newlines a user's
value may carry are escaped, and it is cut at `MAX_MESSAGE` characters.
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import Any

import click

from campaign.errors import IO_ERROR_STATUS, BadInput, IOFailure

# command name -> "module:attribute" of a click.Command
COMMANDS: dict[str, str] = {
    "placements": "campaign.commands.placements:placements",
    "prove": "campaign.commands.prove:prove",
    "check-history": "campaign.commands.check_history:check_history",
    "simulate": "campaign.commands.simulate:simulate",
    "fuzz": "campaign.commands.fuzz:fuzz",
    "replay": "campaign.commands.replay:replay",
    "report": "campaign.commands.report:report",
    "shrink": "campaign.commands.shrink:shrink",
    "mutants": "campaign.commands.mutants:mutants",
    "topology": "campaign.commands.topology:topology",
    "plan": "campaign.commands.plan:plan",
}


MAX_MESSAGE = 400
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(message: str) -> str:
    """`message` as one printable line: control characters escaped, at most MAX_MESSAGE long."""
    text = _CONTROL.sub(lambda m: repr(m.group())[1:-1], message)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # lone surrogates
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def error(message: str, status: int = 2, *, hint: str | None = None) -> int:
    """One line on stderr; `hint` (a command to run next) follows the message, cut on its own."""
    tail = f"; {one_line(hint)}" if hint else ""
    click.echo(f"tcmcheck: error: {one_line(message)}{tail}", err=True)
    return status


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tcmcheck")
def cli() -> None:
    """Prove and fuzz Transactional Cluster Metadata (Cassandra CEP-21)."""


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: click's usage errors and BadInput both exit 2 with one line.

    Commands report their verdict by returning an int exit status (or via `ctx.exit`).
    `tcmcheck` with no command is a usage error too (exit 2, one line pointing at --help):
    a script that forgot its command must not look like it succeeded."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        return error(f"missing command (one of: {', '.join(sorted(COMMANDS))}); "
                     "see tcmcheck --help")
    try:
        result: Any = cli.main(args=args, prog_name="tcmcheck", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except BadInput as e:
        return error(str(e))
    except IOFailure as e:
        return error(str(e), IO_ERROR_STATUS, hint=e.hint)
    except OSError as e:
        # why: an I/O error no command foresaw (a file vanishing under a read) is still the
        # machine's, not a bug of ours: one line, the I/O status
        where = f" {e.filename}" if e.filename else ""
        return error(f"I/O error{where}: {e.strerror or e}", IO_ERROR_STATUS)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("tcmcheck: aborted", err=True)
        return 130
    except click.ClickException as e:
        # usage errors (unknown option, missing file argument, bad choice): one line, exit 2
        return error(e.format_message())


if __name__ == "__main__":
    sys.exit(main())
