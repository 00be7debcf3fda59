"""Typed getters for the fields of parsed JSON documents: every format validates through these.

Each returns the value or raises a one-line `BadInput` that names where the value sits
(`where`, e.g. "topo.json: nodes[2] (B)"). The rules are the same everywhere: a bool is never
an integer or a number, numbers are finite and inside the stated bounds, objects have no
fields beyond the known ones, required fields are present.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from campaign.errors import BadInput

MAX_MS = 10**12
"""Longest time (virtual milliseconds, ~31 years) any scenario may name: times stay finite
and their nanoseconds fit a 64-bit integer."""
MAX_GENERATED_REQUESTS = 100_000
"""Most requests (scripted plus generated) one scenario may ask for: 100 times the largest
documented example; a scenario asking for more is bad input, not a run that never ends."""
MISSING: Any = ...


def _names(kinds: tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", list: "a list",
             dict: "an object", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def describe(value: Any) -> str:
    """A short, one-line rendering of a user's value for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadInput(f"{where}: expected an object, got {type(value).__name__}")
    return value


def lst(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadInput(f"{where}: expected a list, got {type(value).__name__}")
    return value


def known_keys(value: dict[str, Any], allowed: Iterable[str], where: str) -> None:
    allowed = set(allowed)
    unknown = sorted(k for k in value if k not in allowed)
    if unknown:
        raise BadInput(f"{where}: unknown field {describe(unknown[0])} (known: {', '.join(sorted(allowed))})")


def field(value: Any, key: str, kind: type | tuple[type, ...], where: str, default: Any = MISSING) -> Any:
    """`value[key]`, checked to be of `kind` (bool is never accepted as int; an int is
    accepted where a float is asked for; a float must be finite)."""
    d = obj(value, where)
    if key not in d:
        if default is MISSING:
            raise BadInput(f"{where}: missing field {key!r}")
        return default
    x = d[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(x, bool) and bool not in kinds:
        raise BadInput(f"{where}: field {key!r} must be {_names(kinds)}, got {x!r}")
    if isinstance(x, int) and not isinstance(x, bool) and float in kinds and int not in kinds:
        x = float(x)
    if not isinstance(x, kinds):
        raise BadInput(f"{where}: field {key!r} must be {_names(kinds)}, got {type(x).__name__}")
    if isinstance(x, float) and not math.isfinite(x):
        raise BadInput(f"{where}: field {key!r} must be finite, got {x!r}")
    return x


def string(value: Any, where: str, *, nonempty: bool = True) -> str:
    if not isinstance(value, str):
        raise BadInput(f"{where}: expected a string, got {describe(value)}")
    if nonempty and not value:
        raise BadInput(f"{where}: must not be empty")
    return value


def integer(value: Any, where: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """An integer (never a bool or a float) in [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{where}: expected an integer, got {describe(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise BadInput(f"{where}: expected an integer {_range(lo, hi)}, got {describe(value)}")
    return value


def number(value: Any, where: str, *, lo: float | None = None, hi: float | None = None) -> float:
    """A finite number (int or float, never a bool) in [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadInput(f"{where}: expected a number, got {describe(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"{where}: expected a finite number, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise BadInput(f"{where}: expected a number {_range(lo, hi)}, got {describe(value)}")
    return float(value)


def choice(value: Any, options: Iterable[str], where: str) -> str:
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        raise BadInput(f"{where}: expected one of {', '.join(options)}, got {describe(value)}")
    return value


def _range(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"in [{lo:g}, {hi:g}]" if isinstance(lo, float) or isinstance(hi, float) else f"in [{lo}, {hi}]"
    if lo is not None:
        return f">= {lo}"
    return f"<= {hi}"


__all__ = ["MAX_GENERATED_REQUESTS", "MAX_MS", "choice", "describe", "field", "integer",
           "known_keys", "lst", "number", "obj", "string"]
