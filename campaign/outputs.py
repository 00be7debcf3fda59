"""Checking where a command will write, before it does any work.

A run that takes minutes must not end with "cannot write": every output a command names is
checked up front (`check_output_file`: `BadInput`, exit 2), and the write itself turns an
`OSError` into `IOFailure` (exit 4) for what no check can foresee (a full disk, a folder that
vanished). Writes go through a temporary file and a rename, so a failed write leaves the file
as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from campaign.errors import DEVICE_ERRORS, BadInput, IOFailure


def check_output_file(path: str | Path, option: str, *, inputs: tuple[str | Path, ...] = ()) -> Path:
    """`path` can be created or overwritten as a file: its directory exists and takes new
    files (probed with a temporary file, removed at once), it is not a directory, and it is
    none of the command's `inputs` (an output never overwrites what the user gave to read)."""
    if str(path) == "":
        raise BadInput(f"{option}: empty path")
    p = Path(path)
    try:
        for other in inputs:
            if str(other) and _same(p, Path(other)):
                raise BadInput(f"{option}: {p} is also an input of this command; name another file")
        if p.is_dir():
            raise BadInput(f"{option}: {p} is a directory")
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.exists():
            raise BadInput(f"{option}: directory {parent} does not exist (for {p})")
        if not parent.is_dir():
            raise BadInput(f"{option}: {parent} is not a directory (for {p})")
        if p.exists():
            if not os.access(p, os.W_OK):
                raise BadInput(f"{option}: cannot write {p}")
        else:
            # why a probe: os.access says yes to root everywhere, even in /proc
            with tempfile.NamedTemporaryFile(dir=parent, prefix=".tcmcheck-probe-"):
                pass
    except BadInput:
        raise
    except OSError as e:
        if e.errno in DEVICE_ERRORS:
            raise IOFailure(p, e) from None
        raise BadInput(f"{option}: cannot write {p}: {e.strerror or e}") from None
    except ValueError as e:
        raise BadInput(f"{option}: cannot write {p}: {getattr(e, 'strerror', None) or e}") from None
    return p


def _same(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def check_distinct(outputs: dict[str, str | Path | None]) -> None:
    """No two options name the same output file."""
    seen: dict[Path, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        key = Path(path).resolve()
        if key in seen:
            raise BadInput(f"{option}: {path} is also given to {seen[key]}")
        seen[key] = option


def write_output(path: str | Path, text: str, option: str) -> None:
    """Write `text` to the output `option` names; `IOFailure` (exit 4) if the write fails, and
    then a file that was there is left as it was (a regular file is replaced by a rename; a
    device or pipe such as /dev/stdout is written in place)."""
    p = Path(path)
    data = text.encode("utf-8")
    try:
        if p.exists() and not p.is_file():
            with open(p, "wb") as f:
                f.write(data)
            return
        atomic_write(p.resolve() if p.is_symlink() else p, data)
    except OSError as e:
        raise IOFailure(path, e) from None


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temporary file beside `path` and a rename: a kill or a full disk never leaves
    half a file, and `replace` swaps the path without following a symlink someone put there.
    The temporary file is removed when the write fails; the OSError is the caller's."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


__all__ = ["atomic_write", "check_distinct", "check_output_file", "write_output"]
