"""Reading JSON files with one-line errors, and small typed accessors for their fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from campaign.errors import BadInput


def load_json(path: str | Path, what: str) -> Any:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInput(f"{what} file not found: {p}") from None
    except IsADirectoryError:
        raise BadInput(f"{what} path is a directory: {p}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"cannot read {what} file {p}: {e}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{p}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None


def field(obj: Any, key: str, kind: type | tuple[type, ...], where: str, default: Any = ...) -> Any:
    """`obj[key]`, checked to be of `kind` (bool is never accepted as int)."""
    if not isinstance(obj, dict):
        raise BadInput(f"{where}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        if default is ...:
            raise BadInput(f"{where}: missing field {key!r}")
        return default
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise BadInput(f"{where}: field {key!r} must be {_names(kinds)}, got {value!r}")
    if not isinstance(value, kinds):
        raise BadInput(f"{where}: field {key!r} must be {_names(kinds)}, got {type(value).__name__}")
    return value


def _names(kinds: tuple[type, ...]) -> str:
    names = {int: "an integer", str: "a string", list: "a list", dict: "an object", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)
