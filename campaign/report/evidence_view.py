"""A sim failure's evidence on the report page (issue 23: "`report --html` shows it as a per-key
timeline beside the topology steps"), drawn from the failure file's `evidence`
(campaign/judge/evidence.py, as JSON: the report loads no simulator).

The timeline has one lane per operation of the evidence (the key's smallest failing sub-history
and the write the stale read missed), a bar from its invocation to its completion labelled with
its coordinator, level, the coordinator's epoch when it planned, and the replicas' answers; the
stale read and the missed write in their own colours; each committed topology step a vertical
epoch marker on the same time axis, numbered on the axis above the chart (steps too close to be
numbered apart share one label, `28-30`), and named in a list under it. A liveness failure's
stuck operations and a durability failure's writes (where each was stored, what the replicas
hold at the end, the streams and hints) are text under it.
"""

from __future__ import annotations

import html
from typing import Any

from campaign.judge.evidence import Evidence
from campaign.report import plotting as P

STALE = P.NEW
MISSED = P.KNOWN
OTHER = "#aab7c4"
MIN_LABEL_GAP = 0.06
"""Fraction of the time axis between two epoch labels: about 36 px of a 600 px axis, room for
`123-140` in 7 points."""


def _op_label(o: dict[str, Any]) -> str:
    what = f"write {o['value']}" if o["f"] == "write" else f"read -> {_value(o['value'])}"
    parts = [f"{what} ({o['outcome']})", f"coordinator {o['coordinator']}"]
    if o.get("level"):
        parts.append(o["level"])
    if o.get("plan_epoch") is not None:
        parts.append(f"epoch {o['plan_epoch']}")
    answers = o.get("answers") or []
    if answers:
        parts.append("answers " + ", ".join(
            a["replica"] + (f"={_value(a['value'])}" if o["f"] == "read" else "")
            + (f"@{a['epoch']}" if a.get("epoch") is not None else "") for a in answers))
    return P.wrap("; ".join(parts), 46)


def _epoch_groups(steps: list[dict[str, Any]], lo: float, hi: float) -> list[tuple[float, str]]:
    """(time, label) of the epoch markers' labels: steps closer than `MIN_LABEL_GAP` of the axis
    to the group's first share its label (`28-30`), so that no two labels touch."""
    gap = (hi - lo) * MIN_LABEL_GAP
    groups: list[list[dict[str, Any]]] = []
    for s in sorted(steps, key=lambda s: s["time_ns"]):
        if groups and s["time_ns"] / 1e9 - groups[-1][0]["time_ns"] / 1e9 < gap:
            groups[-1].append(s)
        else:
            groups.append([s])
    return [(g[0]["time_ns"] / 1e9, str(g[0]["epoch"]) if len(g) == 1 else f"{g[0]['epoch']}-{g[-1]['epoch']}")
            for g in groups]


def plot_evidence(ev: dict[str, Any], heading: str) -> Any | None:
    """The per-key timeline of a client anomaly's evidence (None without operations)."""
    ops = ev.get("operations") or []
    if not ops:
        return None
    steps = ev.get("steps") or []
    times = [o["invoked_ns"] / 1e9 for o in ops] + [o["completed_ns"] / 1e9 for o in ops if o.get("completed_ns")]
    times += [s["time_ns"] / 1e9 for s in steps]
    lo, hi = min(times), max(times)
    pad = max((hi - lo) * 0.03, 0.001)
    lo, hi = lo - pad, hi + pad
    labels = [_op_label(o) for o in ops]
    title = P.wrap(heading, 110)
    fig = P.figure(P.rows_height(labels, per_row=0.16, extra=1.9) + P.LINE * title.count("\n"), width=10)
    ax = fig.subplots()
    least = (hi - lo) * 0.004  # an operation of a few ms on an axis of a minute still shows
    for i, o in enumerate(ops):
        start = o["invoked_ns"] / 1e9
        end = o["completed_ns"] / 1e9 if o.get("completed_ns") else hi
        colour = STALE if i == ev.get("stale_read") else MISSED if i == ev.get("missed_write") else OTHER
        ax.broken_barh([(start, max(end - start, least))], (i - 0.3, 0.6), color=colour,
                       hatch=None if o.get("completed_ns") else "//")
    for s in steps:
        ax.axvline(s["time_ns"] / 1e9, color="#1b4f72", linewidth=0.8, linestyle=":")
    ax.set_yticks(range(len(ops)), labels, fontsize=7)
    ax.set_ylim(-0.6, len(ops) - 0.4)
    ax.invert_yaxis()
    ax.set_xlim(lo, hi)
    ax.set_xlabel(f"virtual time (s); {ev.get('key') or 'the key'}: each bar from invocation to completion")
    if steps:
        top = ax.secondary_xaxis("top")
        marks = _epoch_groups(steps, lo, hi)
        top.set_xticks([t for t, _ in marks], [label for _, label in marks], fontsize=7)
        top.set_xlabel("epoch committed (dotted lines)", fontsize=8)
    from matplotlib.patches import Patch  # heavy optional dependency (see plotting.figure)

    handles = [Patch(color=STALE, label="stale read"), Patch(color=MISSED, label="missed write"),
               Patch(color=OTHER, label="other operation")]
    P.legend_below(fig, handles)
    ax.set_title(title, fontsize=9)
    return fig


def evidence_lines(ev: dict[str, Any]) -> list[str]:
    """The evidence's text for a person: the steps by epoch, what was stuck, the writes' fates."""
    return Evidence.from_json(ev).lines()  # as replay prints them


def evidence_html(doc: dict[str, Any], heading: str) -> tuple[Any | None, str]:
    """(the timeline figure or None, the text under it as HTML) of a failure document."""
    ev = doc.get("evidence")
    if not isinstance(ev, dict):
        return None, ""
    try:
        fig = plot_evidence(ev, heading)
        lines = evidence_lines(ev)
    except (KeyError, TypeError, ValueError):  # a hand-edited file: the rest of the page still draws
        return None, ""
    text = "\n".join(lines)
    return fig, f"<pre class=evidence>{html.escape(text)}</pre>" if text else ""


def _value(v: Any) -> str:
    return "nothing" if v is None else str(v)


__all__ = ["evidence_html", "evidence_lines", "plot_evidence"]
