"""A self-contained HTML page for a linearizability verdict: one SVG timeline per part.

Each row is a process (or, when there are more than `MAX_PROCESS_ROWS` processes — a simulator
gives each request its own — a lane that ops are packed into, first free lane first); each
operation a bar from its call to its return (to the right edge when the outcome is unknown), on
an axis of event order (the order that decides precedence), each k-th event named with its
recorded time under it, k chosen so that the names never touch. Bars carry their position in
the linearization found; the failing operation is red and the ops of the minimal failing window
are outlined. Labels are never cut: one is drawn only where it has room before the next bar of
its row, and every bar's tooltip has it all. Values are written by `show_value` (the CLI passes
the input format's: JSON `null`, EDN `nil`; the default is JSON).

An inline script (html_script.py; no external resource) fits each timeline to the window,
zooms in and out, jumps to the failing op and filters the parts by key. The page is capped at
`max_ops` bars (a window around the failing op when a part is larger), so a long history still
makes a page of a few hundred KB.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from html import escape
from typing import Any

import attrs

from checkers.linearizability.frozen import thaw
from checkers.linearizability.history import Operation
from checkers.linearizability.html_script import CHAR_PX, CSS, script
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.values import value_state
from checkers.linearizability.verdict import PartitionResult, Verdict

ROW = 28  # px per row
TOP = 34  # px above the first row: the axis (event, then time)
LEFT = 90  # px for row labels
PAGE_PX = 1000  # the width a timeline is laid out at without script (the script fits the window)
MAX_PROCESS_ROWS = 24
DEFAULT_DESCRIBE_OP = attrs.fields(SequentialModel).describe_op.default
"""The models' own `describe_op` (Python's repr of values): the page writes ops itself unless a
model brings its own words."""


def json_value(value: Any) -> str:
    """A value as JSON writes it (`null`, `"k"`, `[1, 2]`)."""
    return json.dumps(thaw(value), ensure_ascii=False, default=str)


class _Show:
    """How ops and states read on the page, values written by `show`."""

    def __init__(self, model: SequentialModel | None, show: Callable[[Any], str]) -> None:
        self.model, self.show = model, show
        self.reads = model.tactics.read_only if model is not None else frozenset({"read", "get"})

    def op(self, o: Operation) -> str:
        if self.model is not None and self.model.describe_op is not DEFAULT_DESCRIBE_OP:
            return self.model.describe_op(o)  # a model of the caller's, with its own words
        arg = "" if o.input is None and o.f in self.reads else self.show(o.input)
        return f"{o.f}({arg}) -> {'?' if o.ret is None else self.show(o.output)}"

    def state(self, state: Any) -> str:
        if self.model is None or self.model.describe_state is value_state:
            return self.show(state[0] if isinstance(state, tuple) and len(state) == 1 else state)
        return self.model.describe_state(state)

    def key(self, key: Any) -> str:
        return "(single part)" if key is None else f"key {self.show(key)}"


def render_html(
    verdict: Verdict,
    model: SequentialModel | None = None,
    *,
    title: str = "linearizability",
    max_ops: int = 2000,
    max_rows: int = 100,
    show_value: Callable[[Any], str] = json_value,
) -> str:
    """The page as a string (the CLI writes it). At most `max_ops` bars in all."""
    show = _Show(model, show_value)
    ev = verdict.evidence
    valid = verdict.valid
    label = _status(valid, "NOT linearizable", f"unknown ({verdict.cause})")
    window = {o.id for o in ev.window}
    failing_id = ev.failing_op.id if ev.failing_op is not None else None
    parts = list(ev.partitions)
    if valid is False:
        # the failing part first
        parts.sort(key=lambda p: p.key != ev.key or p.failing is None)
    budget = max_ops
    omitted_parts = 0
    drawn = []
    for part in parts:
        if budget <= 0:
            omitted_parts += 1
            continue
        shown = _select(part, budget, failing_id)
        budget -= len(shown)
        drawn.append(_part(part, shown, window, failing_id, show, max_rows))
    keys = [show.key(p.key) for p in parts[: len(drawn)]]
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{escape(title)}: {escape(label)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}: <span class='verdict-{str(valid).lower()}'>{escape(label)}</span></h1>",
        f"<p>model <b>{escape(ev.model)}</b>, {len(ev.partitions)} part(s), "
        f"{sum(len(p.operations) for p in ev.partitions)} operations. Bars span call to return "
        "in event order; numbers are positions in the linearization found. Hover over a bar for "
        "its operation, events and times.</p>",
        "<p class='legend'><span style='background:#c8ecc8'>linearized</span>"
        "<span style='background:#cfe3fb'>not in the linearization</span>"
        "<span style='background:#f8c0c0;border-color:#b00020'>failing operation</span>"
        "<span style='border:2px dashed #e07b00'>minimal failing window</span></p>",
        _controls(keys, failing_id is not None),
        *drawn,
    ]
    if omitted_parts:
        out.append(f"<p>{omitted_parts} more part(s) not drawn (page capped at {max_ops} operations).</p>")
    out.append(f"<script>{script()}</script></body></html>")
    return "\n".join(out)


def _controls(keys: list[str], failing: bool) -> str:
    buttons = ["<div class='controls'>zoom: <button onclick=\"tcmZoom('fit')\">fit</button>",
               "<button onclick='tcmZoom(0.5)'>−</button><button onclick='tcmZoom(2)'>+</button>"]
    if failing:
        buttons.append("<button onclick='tcmFailing()'>failing op</button>")
    if len(keys) > 1:
        options = "".join(f"<option value='{escape(k)}'>{escape(k)}</option>" for k in keys)
        buttons.append(f"part: <select onchange='tcmKey(this.value)'><option value=''>all</option>{options}</select>")
    return "".join(buttons) + "</div>"


def _status(valid: object, invalid: str, unknown: str) -> str:
    if valid is True:
        return "linearizable"
    return invalid if valid is False else unknown


def _select(part: PartitionResult, budget: int, failing_id: int | None) -> list[Operation]:
    ops = sorted(part.operations, key=lambda o: o.call)
    if len(ops) <= budget:
        return ops
    centre = next((i for i, o in enumerate(ops) if o.id == failing_id), len(ops) - 1)
    lo = max(0, min(centre - budget // 2, len(ops) - budget))
    return ops[lo : lo + budget]


def _rows(ops: list[Operation], at: dict[int, int], n: int) -> tuple[dict[int, int], list[str]]:
    """Each op's row, and the rows' labels: one per process when they are few, else lanes that
    ops are packed into (an op goes in the first lane free since its call)."""
    processes = list(dict.fromkeys(o.process for o in ops))
    if len(processes) <= MAX_PROCESS_ROWS:
        index = {p: i for i, p in enumerate(processes)}
        return {o.id: index[o.process] for o in ops}, [f"p {p}" for p in processes]
    ends: list[int] = []  # per lane: the event index its last op returns at
    row = {}
    for o in ops:
        lane = next((i for i, end in enumerate(ends) if end < at[o.call]), len(ends))
        end = at[o.ret] if o.ret is not None else n
        if lane == len(ends):
            ends.append(end)
        else:
            ends[lane] = end
        row[o.id] = lane
    return row, [f"lane {i + 1}" for i in range(len(ends))]


def _part(
    part: PartitionResult,
    ops: list[Operation],
    window: set[int],
    failing_id: int | None,
    show: _Show,
    max_rows: int,
) -> str:
    position = {op_id: n for n, op_id in enumerate(part.linearization, start=1)}
    ids = {o.id for o in ops}
    events = sorted({o.call for o in ops} | {o.ret for o in ops if o.ret is not None})
    n = len(events)
    at = {e: i for i, e in enumerate(events)}
    step = min(64.0, (PAGE_PX - LEFT - 60) / max(n, 1))
    x0 = LEFT + 10
    right = x0 + n * step + 40
    width = right + 8
    row, labels = _rows(ops, at, n)
    # room: events until the next op of the row starts (its label must end before it)
    room: dict[int, int] = {}
    last: dict[int, Operation] = {}
    for o in ops:
        prev = last.get(row[o.id])
        if prev is not None:
            room[prev.id] = at[o.call] - at[prev.call]
        last[row[o.id]] = o
    height = TOP + ROW * len(labels)
    status = _status(part.valid, "not linearizable", "unknown")
    key = show.key(part.key)
    times: dict[int, int] = {}
    for o in ops:
        if o.call_time is not None:
            times[o.call] = o.call_time
        if o.ret is not None and o.ret_time is not None:
            times[o.ret] = o.ret_time
    axis = [[e, times.get(e)] for e in events]
    out = [
        f"<section class='part' data-key='{escape(key)}'>",
        f"<h2>{escape(key)}: {escape(status)}, {len(part.operations)} operations"
        + (f" ({len(part.operations) - len(ops)} not drawn)" if len(ops) < len(part.operations) else "")
        + (f", drawn in {len(labels)} lane{'s' if len(labels) > 1 else ''} (more processes than rows: "
           "a bar's tooltip names its process)" if not labels[0].startswith("p ") else "")
        + "</h2>",
        f"<div class='scroll'><svg class='timeline' xmlns='http://www.w3.org/2000/svg' width='{width:.1f}' "
        f"height='{height}' data-n='{n}' data-left='{LEFT}' data-events='{escape(json.dumps(axis))}'>",
    ]
    out += _axis(axis, step, x0, width)
    for r, text in enumerate(labels):
        y = TOP + r * ROW
        out.append(f"<text x='4' y='{y + 14}'>{escape(text)}</text>")
        out.append(f"<line class='lane' x1='{LEFT}' x2='{width:.1f}' y1='{y + ROW - 4}' y2='{y + ROW - 4}' stroke='#eee'/>")
    for o in ops:
        out += _bar(o, at, row[o.id], room.get(o.id, n + 4 - at[o.call]), step, x0, right,
                    position, window, failing_id, show)
    out.append("</svg></div>")
    out += _table(part, ids, show, max_rows)
    out.append("</section>")
    return "\n".join(out)


def _axis(axis: list[list[Any]], step: float, x0: float, width: float) -> list[str]:
    """Every k-th event's number, its time (when recorded) under it: k so that none touch, and
    none past the right edge (where it would be cut)."""
    longest = max((max(len(str(e)), 0 if t is None else len(f"{t} ns")) for e, t in axis), default=1)
    every = max(1, math.ceil((longest * CHAR_PX + 12) / step))
    out = ["<text class='tick' x='4' y='12'>event</text>", "<text class='tick' x='4' y='24'>time</text>"]
    for i in range(0, len(axis), every):
        if x0 + i * step + longest * CHAR_PX > width:
            break
        e, t = axis[i]
        out.append(f"<text class='tick' x='{x0 + i * step:.1f}' y='12'>{e}</text>")
        if t is not None:
            out.append(f"<text class='tick' x='{x0 + i * step:.1f}' y='24'>{t} ns</text>")
    return out


def _bar(o: Operation, at: dict[int, int], r: int, room: int, step: float, x0: float, right: float,
         position: dict[int, int], window: set[int], failing_id: int | None, show: _Show) -> list[str]:
    a = x0 + at[o.call] * step
    b = x0 + at[o.ret] * step if o.ret is not None else right - 10
    y = TOP + r * ROW
    classes = ["op"]
    if o.id in position:
        classes.append("linearized")
    if o.id in window:
        classes.append("window")
    if o.id == failing_id:
        classes.append("failing")
    text = show.op(o)
    tip = f"#{o.id} process {o.process}: {text}; call at event {o.call}" + (
        f", return at event {o.ret}" if o.ret is not None else ", outcome unknown"
    )
    if o.call_time is not None:
        tip += f"; time {o.call_time}..{o.ret_time if o.ret_time is not None else '?'} ns"
    if o.id in position:
        tip += f"; linearized {position[o.id]}"

    def fits(label: str, shift: int) -> str:
        return "" if len(label) * CHAR_PX + shift + 4 <= room * step else " style='display:none'"

    ret = "" if o.ret is None else str(at[o.ret])
    out = [
        f"<g data-op='{o.id}' data-call='{at[o.call]}' data-ret='{ret}' data-room='{room}'>"
        f"<title>{escape(tip)}</title>"
        f"<rect class='{' '.join(classes)}' x='{a:.1f}' y='{y}' width='{max(b - a, 4):.1f}' "
        f"height='{ROW - 8}' rx='3'/>"
        f"<text class='label' x='{a + 3:.1f}' y='{y + 14}'{fits(text, 3)}>{escape(text)}</text>"
    ]
    if o.id in position:
        number = str(position[o.id])
        out.append(f"<text class='lin' x='{a + 3:.1f}' y='{y - 1}'{fits(number, 3)}>{number}</text>")
    if o.id == failing_id:
        out.append(f"<text class='fail' x='{a + 14:.1f}' y='{y - 1}'>✗ failing</text>")
    out.append("</g>")
    return out


def _table(part: PartitionResult, ids: set[int], show: _Show, max_rows: int) -> list[str]:
    """The linearization found (or the longest partial one), with the state after each op."""
    by_id = {o.id: o for o in part.operations}
    rows = list(zip(part.linearization, part.states, strict=False))
    caption = "Linearization" if part.valid is True else "Longest partial linearization found"
    out = [f"<details{' open' if part.valid is False else ''}><summary>{caption} ({len(rows)} operations)</summary>",
           "<table><tr><th>#</th><th>process</th><th>operation</th><th>state after</th></tr>"]
    for n, (op_id, state) in enumerate(rows[:max_rows], start=1):
        o = by_id[op_id]
        mark = " style='font-weight:bold'" if op_id in ids else ""
        out.append(
            f"<tr{mark}><td>{n}</td><td>{escape(str(o.process))}</td>"
            f"<td>{escape(show.op(o))}</td><td>{escape(show.state(state))}</td></tr>"
        )
    if len(rows) > max_rows:
        out.append(f"<tr><td colspan='4'>… {len(rows) - max_rows} more</td></tr>")
    if part.failing is not None and part.failing in by_id:
        o = by_id[part.failing]
        out.append(
            f"<tr class='failing'><td>✗</td><td>{escape(str(o.process))}</td>"
            f"<td>{escape(show.op(o))}</td><td>cannot be linearized here</td></tr>"
        )
    out.append("</table></details>")
    return out
