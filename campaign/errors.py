"""The one exception that means "the user's input is wrong" (exit status 2, one line)."""

from __future__ import annotations


class BadInput(Exception):
    """Malformed file, unknown node, impossible topology or wrong option.

    Raised by parsers and validators in `campaign/`; the CLI turns it into one line on stderr
    and exit status 2. Anything else that escapes is a bug and keeps its traceback.
    """
