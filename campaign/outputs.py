"""Checking where a command will write, before it does any work.

A run that takes minutes must not end with "cannot write": every output a command names is
checked up front (`check_output_file`), and the write itself still turns an `OSError` into
`BadInput` (`write_output`) for what no check can foresee (a full disk).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from campaign.errors import BadInput


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
    except (OSError, ValueError) as e:
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
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{option}: cannot write {path}: {e.strerror or e}") from None


__all__ = ["check_distinct", "check_output_file", "write_output"]
