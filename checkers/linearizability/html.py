"""A self-contained HTML page for a linearizability verdict: one SVG timeline per part.

Each process is a row; each operation a bar from its call to its return (to the right edge
when the outcome is unknown), on an axis of event order (the order that decides precedence;
times, when recorded, are in the tooltips). Bars carry their position in the linearization
found; the failing operation is red and the ops of the minimal failing window are outlined.
No script, no external resource. The page is capped at `max_ops` bars (a window around the
failing op when a part is larger), so a long history still makes a page of a few hundred KB.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.model import SequentialModel
from checkers.linearizability.verdict import PartitionResult, Verdict

STEP = 14  # px per event
ROW = 28  # px per process
LEFT = 90  # px for process labels
LABEL_CHARS = 28

_CSS = """
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px} h2{font-size:15px;margin-top:24px}
.verdict-true{color:#176317} .verdict-false{color:#b00020} .verdict-unknown{color:#8a5a00}
.scroll{overflow-x:auto;border:1px solid #ccc;background:#fafafa}
rect.op{fill:#cfe3fb;stroke:#5b8bd0} rect.op.linearized{fill:#c8ecc8;stroke:#3b8b3b}
rect.op.failing{fill:#f8c0c0;stroke:#b00020;stroke-width:3}
rect.op.window{stroke:#e07b00;stroke-width:2;stroke-dasharray:4 2}
rect.op.failing.window{stroke:#b00020;stroke-width:3;stroke-dasharray:none}
text{font:11px monospace} text.lin{fill:#176317;font-weight:bold}
text.fail{fill:#b00020;font-weight:bold}
table{border-collapse:collapse;margin-top:8px} td,th{border:1px solid #ddd;padding:2px 6px;font:12px monospace}
tr.failing td{background:#f8c0c0}
.legend span{display:inline-block;padding:1px 6px;margin-right:8px;border:1px solid #888}
"""


def _generic_op(op: Operation) -> str:
    arg = "" if op.input is None else repr(op.input)
    out = "?" if op.ret is None else repr(op.output)
    return f"{op.f}({arg}) -> {out}"


def render_html(
    verdict: Verdict,
    model: SequentialModel | None = None,
    *,
    title: str = "linearizability",
    max_ops: int = 2000,
    max_rows: int = 100,
) -> str:
    """The page as a string (the CLI writes it). At most `max_ops` bars in all."""
    describe_op: Callable[[Operation], str] = model.describe_op if model else _generic_op
    describe_state: Callable[[Any], str] = model.describe_state if model else repr
    ev = verdict.evidence
    valid = verdict.valid
    label = _status(valid, "NOT linearizable", f"unknown ({verdict.cause})")
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{escape(title)}: {escape(label)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(title)}: <span class='verdict-{str(valid).lower()}'>{escape(label)}</span></h1>",
        f"<p>model <b>{escape(ev.model)}</b>, {len(ev.partitions)} part(s), "
        f"{sum(len(p.operations) for p in ev.partitions)} operations. Bars span call to return "
        "in event order; numbers are positions in the linearization found.</p>",
        "<p class='legend'><span style='background:#c8ecc8'>linearized</span>"
        "<span style='background:#cfe3fb'>not in the linearization</span>"
        "<span style='background:#f8c0c0;border-color:#b00020'>failing operation</span>"
        "<span style='border:2px dashed #e07b00'>minimal failing window</span></p>",
    ]
    window = {o.id for o in ev.window}
    failing_id = ev.failing_op.id if ev.failing_op is not None else None
    parts = list(ev.partitions)
    if valid is False:
        # the failing part first
        parts.sort(key=lambda p: p.key != ev.key or p.failing is None)
    budget = max_ops
    omitted_parts = 0
    for part in parts:
        if budget <= 0:
            omitted_parts += 1
            continue
        shown = _select(part, budget, failing_id)
        budget -= len(shown)
        out.append(_part(part, shown, window, failing_id, describe_op, describe_state, max_rows))
    if omitted_parts:
        out.append(f"<p>{omitted_parts} more part(s) not drawn (page capped at {max_ops} operations).</p>")
    out.append("</body></html>")
    return "\n".join(out)


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


def _part(
    part: PartitionResult,
    ops: list[Operation],
    window: set[int],
    failing_id: int | None,
    describe_op: Callable[[Operation], str],
    describe_state: Callable[[Any], str],
    max_rows: int,
) -> str:
    position = {op_id: n for n, op_id in enumerate(part.linearization, start=1)}
    ids = {o.id for o in ops}
    events = sorted({o.call for o in ops} | {o.ret for o in ops if o.ret is not None})
    # wide steps for short histories (readable bars), narrow ones for long histories (small page)
    step = max(STEP, min(64, 1400 // max(len(events), 1)))
    x_of = {e: LEFT + 10 + i * step for i, e in enumerate(events)}
    right = LEFT + 10 + len(events) * step + 40
    width = right + 8 * LABEL_CHARS
    processes: list[Any] = []
    for o in ops:
        if o.process not in processes:
            processes.append(o.process)
    row = {p: i for i, p in enumerate(processes)}
    height = 34 + ROW * len(processes)
    status = _status(part.valid, "not linearizable", "unknown")
    key = "(single part)" if part.key is None else f"key {part.key!r}"
    out = [
        f"<h2>{escape(key)}: {escape(status)}, {len(part.operations)} operations"
        + (f" ({len(part.operations) - len(ops)} not drawn)" if len(ops) < len(part.operations) else "")
        + "</h2>",
        f"<div class='scroll'><svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}'>",
    ]
    # the axis: event positions (the order that decides precedence), with recorded times
    times: dict[int, int] = {}
    for o in ops:
        if o.call_time is not None:
            times[o.call] = o.call_time
        if o.ret is not None and o.ret_time is not None:
            times[o.ret] = o.ret_time
    every = max(1, 120 // step)
    out.append("<text x='4' y='12' fill='#777'>event →</text>")
    for i, e in enumerate(events):
        if i % every == 0:
            tick = f"{e}" + (f" ({times[e]} ns)" if e in times and every > 1 else "")
            out.append(f"<text x='{x_of[e]}' y='12' fill='#777'>{escape(tick)}</text>")
    for p, r in row.items():
        y = 24 + r * ROW
        out.append(f"<text x='4' y='{y + 14}'>p {escape(str(p))}</text>")
        out.append(f"<line x1='{LEFT}' x2='{width}' y1='{y + ROW - 4}' y2='{y + ROW - 4}' stroke='#eee'/>")
    for o in ops:
        x0 = x_of[o.call]
        x1 = x_of[o.ret] if o.ret is not None else right - 10
        y = 24 + row[o.process] * ROW
        classes = ["op"]
        if o.id in position:
            classes.append("linearized")
        if o.id in window:
            classes.append("window")
        if o.id == failing_id:
            classes.append("failing")
        text = describe_op(o)
        tip = f"#{o.id} process {o.process}: {text}; call at event {o.call}" + (
            f", return at event {o.ret}" if o.ret is not None else ", outcome unknown"
        )
        if o.call_time is not None:
            tip += f"; time {o.call_time}..{o.ret_time if o.ret_time is not None else '?'} ns"
        if o.id in position:
            tip += f"; linearized {position[o.id]}"
        short = text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"
        out.append(
            f"<g data-op='{o.id}'><title>{escape(tip)}</title>"
            f"<rect class='{' '.join(classes)}' x='{x0}' y='{y}' width='{max(x1 - x0, 6)}' "
            f"height='{ROW - 8}' rx='3'/>"
            f"<text x='{x0 + 3}' y='{y + 14}'>{escape(short)}</text>"
        )
        if o.id in position:
            out.append(f"<text class='lin' x='{x0 + 3}' y='{y - 1}'>{position[o.id]}</text>")
        if o.id == failing_id:
            out.append(f"<text class='fail' x='{x0 + 14}' y='{y - 1}'>✗ failing</text>")
        out.append("</g>")
    out.append("</svg></div>")
    # the linearization found, as a table
    by_id = {o.id: o for o in part.operations}
    rows = list(zip(part.linearization, part.states, strict=False))
    caption = "Linearization" if part.valid is True else "Longest partial linearization found"
    out.append(f"<details{' open' if part.valid is False else ''}><summary>{caption} ({len(rows)} operations)</summary>")
    out.append("<table><tr><th>#</th><th>process</th><th>operation</th><th>state after</th></tr>")
    for n, (op_id, state) in enumerate(rows[:max_rows], start=1):
        o = by_id[op_id]
        mark = " style='font-weight:bold'" if op_id in ids else ""
        out.append(
            f"<tr{mark}><td>{n}</td><td>{escape(str(o.process))}</td>"
            f"<td>{escape(describe_op(o))}</td><td>{escape(describe_state(state))}</td></tr>"
        )
    if len(rows) > max_rows:
        out.append(f"<tr><td colspan='4'>… {len(rows) - max_rows} more</td></tr>")
    if part.failing is not None and part.failing in by_id:
        o = by_id[part.failing]
        out.append(
            f"<tr class='failing'><td>✗</td><td>{escape(str(o.process))}</td>"
            f"<td>{escape(describe_op(o))}</td><td>cannot be linearized here</td></tr>"
        )
    out.append("</table></details>")
    return "\n".join(out)
