"""The exceptions that mean "stop with one line, no traceback": bad input (exit 2) and an I/O
error while writing (exit 4)."""

from __future__ import annotations

import errno
from pathlib import Path

IO_ERROR_STATUS = 4
"""The exit status of an I/O error (1 is a finding, 2 bad input, 3 unknown)."""


class BadInput(Exception):
    """Malformed file, unknown node, impossible topology or wrong option.

    Raised by parsers and validators in `campaign/`; the CLI turns it into one line on stderr
    and exit status 2. Anything else that escapes is a bug and keeps its traceback.
    """


class IOFailure(Exception):
    """An I/O error once the work has started: the disk full, a file or folder that vanished, a
    permission that changed, a device error. The CLI prints one line naming the path and the
    error, then `hint` (the command that resumes an interrupted campaign), and exits
    `IO_ERROR_STATUS`. (An output the up-front checks refuse, before any work, is `BadInput`.)"""

    def __init__(self, path: str | Path, error: OSError | str, *, action: str = "write",
                 hint: str | None = None) -> None:
        self.path = str(path)
        self.errno = None if isinstance(error, str) else error.errno
        self.error = error if isinstance(error, str) else (error.strerror or str(error))
        self.action = action
        self.hint = hint
        super().__init__(f"cannot {action} {self.path}: {self.error}")

    def with_hint(self, hint: str) -> IOFailure:
        copy = IOFailure(self.path, self.error, action=self.action, hint=hint)
        copy.errno = self.errno
        return copy


DEVICE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG})
"""Errors of the place, not of the path the user named: an I/O error even when an up-front check
meets them."""


__all__ = ["DEVICE_ERRORS", "IO_ERROR_STATUS", "BadInput", "IOFailure"]
