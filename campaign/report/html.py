"""`tcmcheck report --html OUT`: one self-contained page (no network, no script) with plots.

The plots are drawn by matplotlib as SVG and inlined, each in a `<figure data-plot=NAME>`:
`causes` (failures by cause class, new and known), `groups` (failures by mutant or fix; their
causes in a table under it, not drawn in the chart), `transformations`, `steps`, `faults`,
`operations` (started, with shares) and `operations_ended` (what the campaign covered), `rate` (runs per second over the campaign) and one `timeline` per
cause class (campaign/report/timelines.py: the first counterexample of that class, shrunk when
its `.min.json` is beside it), each followed by that failure's `evidence` (a per-key timeline of a
client anomaly beside the topology steps, and the evidence's text: campaign/report/evidence_view.py).
The header says what the campaigns focused on. Sizes, wrapping and legends: campaign/report/plotting.py.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from campaign.formats.text import counted
from campaign.report import plotting as P
from campaign.report.aggregate import operation_shares
from campaign.report.plotting import KNOWN, NEW, OK
from campaign.report.timelines import timelines
from campaign.run.findings import known_finding
from campaign.run.record import replay_file_command

MAX_CAUSES = 25
"""Cause classes in the causes chart (the most frequent; the table below lists them all)."""


def _integer_axis(axis: Any) -> None:
    from matplotlib.ticker import MaxNLocator  # heavy optional dependency (see plotting.figure)

    axis.set_major_locator(MaxNLocator(integer=True))


def plot_causes(s: dict[str, Any]) -> Any:
    causes = list(s["causes"].items())[:MAX_CAUSES]
    labels = [P.wrap(c, 48) for c, _ in causes]
    fig = P.figure(P.rows_height(labels or ["x", "x"]))
    ax = fig.subplots()
    if not causes:
        P.empty(ax, "no failing run")
    else:
        ax.barh(range(len(causes)), [n for _, n in causes],
                color=[KNOWN if known_finding(c) else NEW for c, _ in causes])
        ax.set_yticks(range(len(causes)), labels, fontsize=8)
        ax.set_ylim(-0.6, len(causes) - 0.4)
        ax.invert_yaxis()
        ax.set_xlabel("failing runs")
        _integer_axis(ax.xaxis)
        from matplotlib.patches import Patch  # heavy optional dependency (see plotting.figure)

        P.legend_below(fig, [Patch(color=NEW, label="new"), Patch(color=KNOWN, label="known finding")])
    more = len(s["causes"]) - len(causes)
    ax.set_title("Failures by cause class" + (f" (the {len(causes)} most frequent; {more} more below)" if more > 0 else ""))
    return fig


def plot_groups(s: dict[str, Any]) -> Any:
    """Runs of each mutant or fix, valid and failed stacked (a linear axis: the bars add up);
    each group's causes are in the table under the chart, not drawn in it."""
    groups = s["groups"]
    names = list(groups)
    labels = [P.wrap(g, 40) for g in names]
    fig = P.figure(P.rows_height(labels or ["x", "x"], per_row=0.16))
    ax = fig.subplots()
    failed = [groups[g]["failed"] for g in names]
    passed = [groups[g]["runs"] - groups[g]["failed"] for g in names]
    ys = range(len(names))
    ax.barh(ys, passed, color=OK, label="valid")
    ax.barh(ys, failed, left=passed, color=NEW, label="failed")
    ax.set_yticks(ys, labels, fontsize=8)
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("runs")
    _integer_axis(ax.xaxis)
    P.legend_below(fig)
    ax.set_title("Runs and failures by mutant or fix")
    return fig


def plot_transformations(s: dict[str, Any]) -> Any:
    """Transformations generated per kind, one bar per run kind side by side (grouped, never
    stacked: the axis is logarithmic so that rare kinds show, and stacked lengths do not add up
    on a log axis)."""
    per_kind = {k: v for k, v in sorted(s["coverage"]["transformations"].items()) if v}
    names = sorted({t for kinds in per_kind.values() for t in kinds})
    rows = max(len(per_kind), 1)
    fig = P.figure(max(len(names), 3) * max(P.LINE + 0.06, 0.13 * rows) + 1.6)
    ax = fig.subplots()
    if not names:
        P.empty(ax, "no coverage recorded (a campaign from before coverage_json)")
    else:
        height = 0.8 / rows
        for i, (kind, counts) in enumerate(per_kind.items()):
            ys = [n - 0.4 + height * (i + 0.5) for n in range(len(names))]
            ax.barh(ys, [counts.get(n, 0) for n in names], height=height, label=kind,
                    color=P.KIND_COLOURS[i % len(P.KIND_COLOURS)])
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.invert_yaxis()
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel("transformations generated (log scale)")
        P.legend_below(fig)
    ax.set_title("Coverage: transformation kinds")
    return fig


def plot_steps(s: dict[str, Any]) -> Any:
    fig = P.figure(3.4)
    ax = fig.subplots()
    steps = s["coverage"]["steps"]
    if not any(steps.values()):
        P.empty(ax, "no runs")
    for i, (kind, counts) in enumerate(sorted(steps.items())):
        xs = sorted(int(k) for k in counts)
        ax.plot(xs, [counts[str(x)] for x in xs], marker=".", label=kind, color=P.KIND_COLOURS[i % len(P.KIND_COLOURS)])
    if any(steps.values()):
        ax.set_xlabel("steps per run (refine: transformations; sim: requests submitted)")
        ax.set_ylabel("runs")
        _integer_axis(ax.yaxis)
        P.legend_below(fig)
    ax.set_title("Coverage: steps per run")
    return fig


def plot_faults(s: dict[str, Any]) -> Any:
    faults = s["coverage"]["faults"]
    sim_runs = s["kinds"].get("sim", {}).get("runs", 0)
    labels = [P.wrap(f, 40) for f in faults]
    fig = P.figure(P.rows_height(labels or ["x", "x"], per_row=0.08, extra=1.2))
    ax = fig.subplots()
    if not faults:
        P.empty(ax, "no sim runs with faults")
    else:
        ax.barh(range(len(labels)), list(faults.values()), color="#8e44ad")
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylim(-0.6, len(labels) - 0.4)
        ax.invert_yaxis()
        ax.set_xlabel(f"sim runs with the fault (of {sim_runs})")
        _integer_axis(ax.xaxis)
    ax.set_title("Coverage: fault kinds")
    return fig


def plot_operations(s: dict[str, Any]) -> Any:
    """Topology operations started over every run kind, each with its share (what `--focus`
    aims at: most of a `--focus replace` campaign's operations are replaces)."""
    shares = operation_shares(s["coverage"].get("operations", {}))
    fig = P.figure(P.rows_height(list(shares) or ["x", "x"], extra=1.2))
    ax = fig.subplots()
    if not shares:
        P.empty(ax, "no operation recorded (a campaign from before the operations coverage)")
    else:
        counts = [n for n, _ in shares.values()]
        ax.barh(range(len(shares)), counts, color=P.OK)
        for y, (n, share) in enumerate(shares.values()):
            ax.text(n, y, f" {n} ({share:.0%})", va="center", fontsize=8)
        ax.set_yticks(range(len(shares)), list(shares), fontsize=8)
        ax.set_ylim(-0.6, len(shares) - 0.4)
        ax.set_xlim(0, max(counts) * 1.3)  # room for the count and share after the longest bar
        ax.invert_yaxis()
        ax.set_xlabel("operations started")
        _integer_axis(ax.xaxis)
    ax.set_title("Coverage: operations started (share of all)")
    return fig


def plot_ended(s: dict[str, Any]) -> Any:
    """How the sim nodes' operations ended (`coverage.operations_ended`: `KIND OUTCOME` -> n),
    per kind, the outcomes stacked (a linear axis: the lengths add up)."""
    ended = s["coverage"].get("operations_ended", {})
    per: dict[str, dict[str, int]] = {}
    for name, n in ended.items():
        op, _, outcome = name.partition(" ")
        per.setdefault(op, {})[outcome or "?"] = n
    outcomes = sorted({o for v in per.values() for o in v})
    names = sorted(per, key=lambda op: -sum(per[op].values()))
    fig = P.figure(P.rows_height(names or ["x", "x"], extra=1.5))
    ax = fig.subplots()
    if not names:
        P.empty(ax, "no sim operation ended")
    else:
        left = [0] * len(names)
        colours = {"completed": P.OK, "refused": "#7f8c8d", "rejected": "#b2babb", "failed": P.NEW,
                   "cancelled": P.KNOWN}
        for i, outcome in enumerate(outcomes):
            counts = [per[op].get(outcome, 0) for op in names]
            ax.barh(range(len(names)), counts, left=left, label=outcome,
                    color=colours.get(outcome, P.KIND_COLOURS[i % len(P.KIND_COLOURS)]))
            left = [a + b for a, b in zip(left, counts, strict=True)]
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.invert_yaxis()
        ax.set_xlabel("operations the sim nodes ended, by how they ended")
        _integer_axis(ax.xaxis)
        P.legend_below(fig)
    ax.set_title("Coverage: how operations ended")
    return fig


def plot_rate(s: dict[str, Any]) -> Any:
    per = {int(k): v for k, v in s["per_second"].items()}
    fig = P.figure(3)
    ax = fig.subplots()
    if not per:
        P.empty(ax, "no timing recorded")
    else:
        t0, t1 = min(per), max(per)
        width = max(1, (t1 - t0 + 1) // 120)  # at most ~120 points
        buckets: dict[int, int] = {}
        for t, n in per.items():
            buckets[(t - t0) // width] = buckets.get((t - t0) // width, 0) + n
        xs = list(range((t1 - t0) // width + 1))
        ax.plot([x * width for x in xs], [buckets.get(x, 0) / width for x in xs], color=OK, drawstyle="steps-post")
        ax.set_xlabel(P.wrap("seconds since the first run finished (gaps: the campaign was stopped and resumed)", 100))
        ax.set_ylabel("runs per second")
    ax.set_title("Runs per second over the campaign")
    return fig


# ---------------------------------------------------------------- the page

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; } td, th { padding: 2px 10px; text-align: left; border-bottom: 1px solid #eee; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #555; } code { font-size: 0.85em; }
h1, code, figcaption { overflow-wrap: anywhere; }
.new { color: #c0392b; font-weight: bold; } .known { color: #a86f00; }
pre.evidence { white-space: pre-wrap; font-size: 0.8em; background: #f7f7f7; padding: 0.5em; }
"""


def render(s: dict[str, Any], dirs: list[str], base: dict[str, Path]) -> str:
    esc = html.escape
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>tcmcheck campaign report</title><style>{_CSS}</style></head><body>",
             f"<h1>tcmcheck campaign report: {esc(', '.join(dirs))}</h1>",
             f"<p>{counted(s['runs'], 'run')}, {s['failed']} failed.</p>", _focus(s),
             "<table><tr><th>kind</th><th>runs</th><th>failed</th><th>seconds of work</th></tr>"]
    for kind, k in s["kinds"].items():
        parts.append(f"<tr><td>{esc(kind)}</td><td>{k['runs']}</td><td>{k['failed']}</td><td>{k['seconds']:.1f}</td></tr>")
    parts.append("</table>")

    def fig(name: str, drawn: Any, caption: str = "") -> None:
        cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
        svg = drawn if isinstance(drawn, str) else P.svg(drawn)
        parts.append(f"<figure data-plot=\"{name}\">{svg}{cap}</figure>")

    parts.append("<h2>Failures</h2>")
    fig("causes", plot_causes(s))
    fig("groups", plot_groups(s))
    parts.append("<table><tr><th>mutant or fix</th><th>runs</th><th>failed</th><th>causes</th></tr>")
    for g, v in s["groups"].items():
        causes = "; ".join(f"{n} × {c}" for c, n in sorted(v["causes"].items(), key=lambda kv: -kv[1]))
        parts.append(f"<tr><td>{esc(g)}</td><td>{v['runs']}</td><td>{v['failed']}</td><td>{esc(causes)}</td></tr>")
    parts.append("</table>")
    if s["causes"]:
        parts.append("<table><tr><th>cause class</th><th>runs</th><th>first</th><th>replay</th></tr>")
        for cls, n in s["causes"].items():
            first = next(f for f in s["failures"] if f["cause_class"] == cls)
            finding = known_finding(cls)
            tag = (f"<span class=known>known: {esc(finding.id)} ({esc(finding.klass)})</span>" if finding
                   else "<span class=new>new</span>")
            parts.append(f"<tr><td>{esc(cls)} {tag}</td><td>{n}</td><td>{esc(first['kind'])} seed {first['seed']}</td>"
                         f"<td><code>{esc(replay_of(first, base))}</code></td></tr>")
        parts.append("</table>")
    parts.append("<h2>Coverage</h2>")
    fig("transformations", plot_transformations(s))
    fig("steps", plot_steps(s))
    fig("faults", plot_faults(s))
    fig("operations", plot_operations(s))
    fig("operations_ended", plot_ended(s))
    parts.append("<h2>Speed</h2>")
    fig("rate", plot_rate(s))
    lines = timelines(s, base)
    if lines:
        parts.append("<h2>Counterexample timelines</h2>")
        for caption, svg, evidence in lines:
            fig("timeline", svg, caption)
            if evidence:
                parts.append(evidence)
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _focus(s: dict[str, Any]) -> str:
    """What the campaigns were aimed at (`fuzz --focus/--faults/--levels`, as `summary["focus"]`)."""
    focus = s.get("focus") or {}
    aimed = {f: n for f, n in focus.items() if f != "none"}
    if not aimed:
        return "<p class=focus>Focus: none (the generator's own mix).</p>"
    rest = f"; not aimed: {counted(focus['none'], 'run')}" if focus.get("none") else ""
    return "<p class=focus>Focus: " + html.escape("; ".join(f"{f} ({counted(n, 'run')})" for f, n in aimed.items()) + rest) + "</p>"


def replay_of(f: dict[str, Any], base: dict[str, Path]) -> str:
    """The command that replays a failure: its failure file's, or the row's own (older campaigns)."""
    if f.get("failure_file"):
        return replay_file_command(base.get(f.get("dir") or "", Path(".")) / f["failure_file"])
    return str(f.get("replay") or "")
