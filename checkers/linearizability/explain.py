"""`explain(verdict)`: one screen of text about a linearizability verdict. Rendering only.

A model (for its `describe_op` / `describe_state`) is optional; without one, ops and states
are shown with a generic description.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from checkers.linearizability.bounds import BYTES_PER_ENTRY, DEFAULT_MAX_CACHE
from checkers.linearizability.history import Operation
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.verdict import CACHE_LIMIT, TIMEOUT, Verdict

MAX_LINES = 12
"""Ops listed per section, so that the whole explanation fits on one screen."""


def _generic_op(op: Operation) -> str:
    key = "" if op.key is None else f"{op.key}: "
    arg = "" if op.input is None else repr(op.input)
    out = "?" if op.ret is None else repr(op.output)
    return f"{key}{op.f}({arg}) -> {out}"


def _event(position: int) -> str:
    return f"event {position}"


def explain(
    verdict: Verdict,
    model: SequentialModel | None = None,
    *,
    locate: Callable[[int], str] = _event,
) -> str:
    """The verdict in words. `locate(position)` names an event's place in the history (the CLI
    passes "line N" of the file); by default "event N", its 0-based position."""

    def _when(op: Operation) -> str:
        end = "outcome unknown" if op.ret is None else f"returned at {locate(op.ret)}"
        return f"process {op.process}, called at {locate(op.call)}, {end}"

    describe_op: Callable[[Operation], str] = model.describe_op if model else _generic_op
    describe_state: Callable[[Any], str] = model.describe_state if model else repr
    ev = verdict.evidence
    parts = ev.partitions
    ops = sum(len(p.operations) for p in parts)
    lines: list[str] = []
    if verdict.valid is True:
        lines.append(f"Linearizable: {ops} operations in {len(parts)} part(s), model {ev.model}.")
        return "\n".join(lines)
    if verdict.valid == "unknown":
        why = {
            TIMEOUT: "the time limit ran out",
            CACHE_LIMIT: "the search memo reached its size limit",
        }.get(verdict.cause, verdict.cause)
        done = sum(1 for p in parts if p.valid is True)
        lines.append(f"Unknown: {why} before a verdict ({done} of {len(parts)} parts linearizable,")
        if verdict.cause == CACHE_LIMIT:
            lines.append(
                "none shown not linearizable). Raise --max-states (memo entries, about "
                f"{BYTES_PER_ENTRY} bytes each; the default, {DEFAULT_MAX_CACHE:,}, is a quarter "
                "of this machine's memory) if there is memory to spare, or check fewer operations."
            )
        else:
            lines.append("none shown not linearizable). Raise --timeout, or check fewer operations.")
        for p in parts:
            if p.valid == "unknown" and p.linearization:
                key = "" if p.key is None else f" of key {p.key!r}"
                lines.append(
                    f"  deepest partial linearization{key}: {len(p.linearization)} of "
                    f"{len(p.operations)} operations"
                )
        return "\n".join(lines[:MAX_LINES * 2])
    key = "" if ev.key is None else f" for key {ev.key!r}"
    lines.append(f"NOT linearizable{key} (model {ev.model}).")
    if ev.failing_op is not None:
        lines.append("No order of the operations before it lets this one complete:")
        lines.append(f"  {describe_op(ev.failing_op)}    [{_when(ev.failing_op)}]")
    if ev.previous_ok is not None:
        lines.append("Last operation to complete before it was called:")
        lines.append(f"  {describe_op(ev.previous_ok)}    [{_when(ev.previous_ok)}]")
    prefix = ev.longest_prefix
    if prefix:
        lines.append(f"Longest linearization found ({len(prefix)} operations), ending:")
    else:  # refuted before any search (`refute`): no order was tried
        lines.append("Shown without a search (no partial linearization tried).")
    shown = list(zip(prefix, ev.prefix_states, strict=False))[-MAX_LINES // 2 :]
    if len(prefix) > len(shown):
        lines.append(f"  ... {len(prefix) - len(shown)} earlier")
    for op, state in shown:
        lines.append(f"  {describe_op(op):<40} => {describe_state(state)}")
    if ev.window:
        size = "A minimal" if ev.window_minimal else "A small"
        lines.append(
            f"{size} set of {len(ev.window)} operations that cannot be linearized, whatever the "
            "others did:"
        )
        for op in ev.window[:MAX_LINES]:
            lines.append(f"  {describe_op(op):<40} [{_when(op)}]")
        if len(ev.window) > MAX_LINES:
            lines.append(f"  ... {len(ev.window) - MAX_LINES} more")
    return "\n".join(lines)
