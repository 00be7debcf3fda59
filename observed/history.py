"""A history event: DESIGN's JSONL shape, one field each — the one op shape from a simulated
run's clients and commit requests (observed/calls.py) to the linearizability checker
(checkers/linearizability/), and of the histories users bring in files.

A history is a tuple of `Op`s in the order they were observed; that order is real time for the
checker (virtual or client clocks tie and drift, the recorded order does not), and `time` is
carried for display.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

from attrs import frozen

EventType = Literal["invoke", "ok", "fail", "info"]
EVENT_TYPES: frozenset[str] = frozenset({"invoke", "ok", "fail", "info"})


@frozen(kw_only=True)
class Op:
    """One history event: `{"process", "type", "f", "key", "value", "time"}` in DESIGN's JSONL
    (`value` a frozen JSON value, observed/frozen.py)."""

    process: Hashable
    type: EventType
    f: str
    key: Hashable = None
    value: Any = None
    time: int | None = None


__all__ = ["EVENT_TYPES", "EventType", "Op"]
