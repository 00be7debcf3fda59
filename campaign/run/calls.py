"""A run's client history as calls: each invoke paired with its completion.

Apart from `histories.py` because the report's evidence reads it too, and a report must not
load impl/ (its RunResult, its simulator): this module imports nothing of impl at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from impl.history import Op as ImplOp


def completed_calls(ops: Sequence[ImplOp]) -> list[tuple[ImplOp, ImplOp]]:
    """Each client call that completed (ok, fail or info) as (its invoke, its completion), in
    the order they completed; a completion with no invoke before it is left out. (A client
    process has one call open at a time: the next event of its process completes it.)"""
    opened: dict[int, ImplOp] = {}
    out: list[tuple[ImplOp, ImplOp]] = []
    for op in ops:
        if op.type == "invoke":
            opened[op.process] = op
            continue
        start = opened.pop(op.process, None)
        if start is not None:
            out.append((start, op))
    return out
