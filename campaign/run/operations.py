"""Which operation a transformation starts: the coverage's `operations` (kind -> count), what
`tcmcheck report` counts to show what a campaign (and its `--focus`) exercised."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

_STARTS = {"PREPARE_JOIN": "join", "PREPARE_MOVE": "move", "PREPARE_REPLACE": "replace",
           "UNREGISTER": "unregister", "CANCEL_SEQUENCE": "cancel", "ASSASSINATE": "assassinate"}


def started(t: Mapping[str, Any]) -> str | None:
    """The operation kind a transformation (wire shape) starts, or None (a later step, a
    registration, a schema change): a PREPARE, an Unregister, a cancel, an assassinate;
    PREPARE_LEAVE is a removenode when it says `remove`, else a decommission."""
    kind = t.get("kind")
    if kind == "PREPARE_LEAVE":
        return "remove" if t.get("remove") else "leave"
    return _STARTS.get(str(kind))


def operations_of(transformations: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The operations `transformations` start, by kind (sorted)."""
    out: dict[str, int] = {}
    for t in transformations:
        op = started(t) if isinstance(t, Mapping) else None
        if op is not None:
            out[op] = out.get(op, 0) + 1
    return dict(sorted(out.items()))


__all__ = ["operations_of", "started"]
