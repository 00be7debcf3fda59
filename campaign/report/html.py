"""`tcmcheck report --html OUT`: one self-contained page (no network, no script) with plots.

The plots are drawn by matplotlib as SVG and inlined, each in a `<figure data-plot=NAME>`:
`causes` (failures by cause class, new and known), `groups` (failures by mutant or fix),
`transformations`, `steps` and `faults` (what the campaign covered), `rate` (runs per second over
the campaign) and one `timeline` per cause class (the first counterexample of that class, read
from its failure file: refine, the transformations by step and epoch with the failing step or the
disjoint read and write epochs marked; sim, submissions, crashes, partitions and workloads over
virtual time).
"""

from __future__ import annotations

import html
import io
import json
import shlex
from pathlib import Path
from typing import Any

from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from campaign.run.findings import known_finding
from spec.metadata import ClusterMetadata
from spec.transformations import Rejected

NEW = "#c0392b"
"""Fill of new failures' bars (the Chromium test looks for it)."""
KNOWN = "#e69f00"
OK = "#2e86c1"
MAX_TIMELINES = 12


def _svg(fig: Any) -> str:
    import matplotlib  # heavy optional dependency: only when a page is drawn

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tcmcheck"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure  # heavy optional dependency: only when a page is drawn

    return Figure(figsize=(width, height), dpi=96, layout="constrained")


def _empty(ax: Any, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])


def _short(text: str, n: int = 70) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def plot_causes(s: dict[str, Any]) -> str:
    causes = list(s["causes"].items())[:25]
    fig = _figure(9, 0.45 * max(len(causes), 2) + 1)
    ax = fig.subplots()
    if not causes:
        _empty(ax, "no failing run")
    else:
        labels = [_short(c) for c, _ in causes][::-1]
        counts = [n for _, n in causes][::-1]
        colours = [KNOWN if known_finding(c) else NEW for c, _ in causes][::-1]
        ax.barh(labels, counts, color=colours)
        ax.set_xlabel("failing runs")
        from matplotlib.patches import Patch  # heavy optional dependency (see _figure)

        ax.legend(handles=[Patch(color=NEW, label="new"), Patch(color=KNOWN, label="known finding")],
                  loc="lower right")
    ax.set_title("Failures by cause class")
    return _svg(fig)


def plot_groups(s: dict[str, Any]) -> str:
    groups = s["groups"]
    fig = _figure(9, 0.5 * max(len(groups), 2) + 1)
    ax = fig.subplots()
    names = list(groups)[::-1]
    failed = [groups[g]["failed"] for g in names]
    passed = [groups[g]["runs"] - groups[g]["failed"] for g in names]
    ax.barh(names, passed, color=OK, label="valid")
    ax.barh(names, failed, left=passed, color=NEW, label="failed")
    for i, g in enumerate(names):
        top = sorted(groups[g]["causes"].items(), key=lambda kv: -kv[1])[:1]
        if top:
            ax.text(passed[i] + failed[i], i, f"  {_short(top[0][0], 50)}", va="center", fontsize=8)
    ax.set_xlabel("runs")
    ax.legend(loc="lower right")
    ax.set_title("Runs and failures by mutant or fix")
    return _svg(fig)


def plot_transformations(s: dict[str, Any]) -> str:
    per_kind = s["coverage"]["transformations"]
    names = sorted({t for kinds in per_kind.values() for t in kinds})
    fig = _figure(9, 0.3 * max(len(names), 3) + 1)
    ax = fig.subplots()
    if not names:
        _empty(ax, "no coverage recorded (a campaign from before coverage_json)")
    else:
        left = [0] * len(names)
        for i, (kind, counts) in enumerate(sorted(per_kind.items())):
            values = [counts.get(n, 0) for n in names]
            ax.barh(names, values, left=left, label=kind, color=["#5dade2", "#48c9b0", "#af7ac5"][i % 3])
            left = [a + b for a, b in zip(left, values, strict=True)]
        ax.set_xscale("symlog")
        ax.set_xlabel("transformations generated (log scale)")
        ax.legend(loc="lower right")
    ax.set_title("Coverage: transformation kinds")
    return _svg(fig)


def plot_steps(s: dict[str, Any]) -> str:
    fig = _figure(9, 3)
    ax = fig.subplots()
    steps = s["coverage"]["steps"]
    if not any(steps.values()):
        _empty(ax, "no runs")
    for kind, counts in sorted(steps.items()):
        xs = sorted(int(k) for k in counts)
        ax.plot(xs, [counts[str(x)] for x in xs], marker=".", label=kind)
    if any(steps.values()):
        ax.set_xlabel("steps per run (refine: transformations; sim: requests submitted)")
        ax.set_ylabel("runs")
        ax.legend()
    ax.set_title("Coverage: steps per run")
    return _svg(fig)


def plot_faults(s: dict[str, Any]) -> str:
    faults = s["coverage"]["faults"]
    sim_runs = s["kinds"].get("sim", {}).get("runs", 0)
    fig = _figure(9, 2.8)
    ax = fig.subplots()
    if not faults:
        _empty(ax, "no sim runs with faults")
    else:
        ax.bar(list(faults), list(faults.values()), color="#8e44ad")
        ax.set_ylabel(f"sim runs (of {sim_runs})")
        ax.tick_params(axis="x", labelrotation=20)
    ax.set_title("Coverage: fault kinds")
    return _svg(fig)


def plot_rate(s: dict[str, Any]) -> str:
    per = {int(k): v for k, v in s["per_second"].items()}
    fig = _figure(9, 3)
    ax = fig.subplots()
    if not per:
        _empty(ax, "no timing recorded")
    else:
        t0, t1 = min(per), max(per)
        width = max(1, (t1 - t0 + 1) // 120)  # at most ~120 points
        buckets: dict[int, int] = {}
        for t, n in per.items():
            buckets[(t - t0) // width] = buckets.get((t - t0) // width, 0) + n
        xs = list(range((t1 - t0) // width + 1))
        ax.plot([x * width for x in xs], [buckets.get(x, 0) / width for x in xs], color=OK, drawstyle="steps-post")
        ax.set_xlabel("seconds since the first run finished (gaps: the campaign was stopped and resumed)")
        ax.set_ylabel("runs per second")
    ax.set_title("Runs per second over the campaign")
    return _svg(fig)


# ---------------------------------------------------------------- counterexample timelines


def _spec_steps(case: dict[str, Any]) -> list[tuple[str, bool, int]]:
    """(kind, accepted, epoch after) for each transformation, by running the spec (no prover)."""
    m = ClusterMetadata.initial(parse_topology(case["topology"], "case topology"))
    out = []
    for i, t_json in enumerate(case["transformations"]):
        t = parse_transformation(t_json, f"transformations[{i}]")
        r = t.execute(m)
        ok = not isinstance(r, Rejected)
        if ok:
            m = r.metadata  # type: ignore[union-attr]
        out.append((t.kind, ok, m.epoch))
    return out


def timeline_refine(doc: dict[str, Any]) -> str:
    case, details = doc["case"], doc["verdict"].get("details") or {}
    fig = _figure(10, 3.4)
    ax = fig.subplots()
    try:
        steps = _spec_steps(case)
    except Exception:  # noqa: BLE001 (a hand-edited file: draw what can be drawn)
        steps = [(str(t.get("kind")), True, i) for i, t in enumerate(case.get("transformations", []))]
    xs = list(range(len(steps)))
    ax.step(xs, [e for _, _, e in steps], where="post", color="#999", linewidth=1)
    for i, (kind, ok, epoch) in enumerate(steps):
        ax.plot(i, epoch, "o" if ok else "x", color=OK if ok else "#999")
        if ok:
            ax.annotate(kind, (i, epoch), textcoords="offset points", xytext=(2, 4), fontsize=6, rotation=40)
    if isinstance(details.get("step"), int):
        ax.axvline(details["step"], color=NEW, linewidth=2, label=f"failing step {details['step']}")
    for ce in (details.get("counterexamples") or [])[:1]:
        ax.axhline(ce["read_epoch"], color=NEW, linestyle="--", label=f"read {ce['read_quorum']} at epoch {ce['read_epoch']}")
        ax.axhline(ce["write_epoch"], color=KNOWN, linestyle="--",
                   label=f"write {ce['write_quorum']} at epoch {ce['write_epoch']}")
    ax.set_xlabel("step (o accepted, x rejected)")
    ax.set_ylabel("epoch")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", fontsize=7)
    ax.set_title(_short(f"refine seed {doc['seed']}: {doc['verdict'].get('cause')}", 110), fontsize=9)
    return _svg(fig)


def timeline_sim(doc: dict[str, Any]) -> str:
    case = doc["case"]
    faults = case.get("faults", {})
    fig = _figure(10, 3.4)
    ax = fig.subplots()
    lanes: list[str] = []

    def lane(name: str) -> int:
        if name not in lanes:
            lanes.append(name)
        return lanes.index(name)

    for w in case.get("workloads", []):
        y = lane(f"workload {w.get('kind', '')}")
        ax.broken_barh([(w.get("start_ms", 0), max(w.get("spread_ms", 1), 1))], (y - 0.3, 0.6), color="#aed6f1")
    for p in faults.get("partitions", []):
        y = lane("partition")
        ax.broken_barh([(p["start_ms"], p["heal_ms"] - p["start_ms"])], (y - 0.3, 0.6), color=NEW, alpha=0.6)
    for c in faults.get("crashes", []):
        y = lane(f"{c['node']} down")
        ax.broken_barh([(c["at_ms"], c["restart_ms"] - c["at_ms"])], (y - 0.3, 0.6), color=KNOWN)
    for s in case.get("submissions", []):
        y = lane("submissions")
        ax.plot(s["at_ms"], y, "|", color="#1b4f72", markersize=12)
        ax.annotate(s["transformation"].get("kind", "?"), (s["at_ms"], y), textcoords="offset points",
                    xytext=(1, 6), fontsize=6, rotation=40)
    if not lanes:
        _empty(ax, "no events")
    else:
        ax.set_yticks(range(len(lanes)), lanes)
        ax.set_xlabel("virtual time (ms)")
    ax.set_title(_short(f"sim seed {doc['seed']}: {doc['verdict'].get('cause')}", 110), fontsize=9)
    return _svg(fig)


def timelines(s: dict[str, Any], base: dict[str, Path]) -> list[tuple[str, str]]:
    """(caption, svg) for the first failure of each cause class that has a failure file."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for f in s["failures"]:
        cls = f["cause_class"]
        if cls in seen or not f.get("failure_file") or len(out) >= MAX_TIMELINES:
            continue
        path = base.get(f.get("dir") or "", Path(".")) / f["failure_file"]
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            svg = timeline_refine(doc) if doc["kind"] == "refine" else timeline_sim(doc)
        except Exception:  # noqa: BLE001 (a missing or edited failure file: skip its timeline)
            continue
        seen.add(cls)
        out.append((f"{cls} — first of {s['causes'].get(cls, 1)}: {f['kind']} seed {f['seed']} "
                    f"(tcmcheck replay {path})", svg))
    return out


# ---------------------------------------------------------------- the page

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; } td, th { padding: 2px 10px; text-align: left; border-bottom: 1px solid #eee; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #555; } code { font-size: 0.85em; }
.new { color: #c0392b; font-weight: bold; } .known { color: #a86f00; }
"""


def render(s: dict[str, Any], dirs: list[str], base: dict[str, Path]) -> str:
    esc = html.escape
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>tcmcheck campaign report</title><style>{_CSS}</style></head><body>",
             f"<h1>tcmcheck campaign report: {esc(', '.join(dirs))}</h1>",
             f"<p>{s['runs']} runs, {s['failed']} failed.</p>",
             "<table><tr><th>kind</th><th>runs</th><th>failed</th><th>seconds of work</th></tr>"]
    for kind, k in s["kinds"].items():
        parts.append(f"<tr><td>{esc(kind)}</td><td>{k['runs']}</td><td>{k['failed']}</td><td>{k['seconds']:.1f}</td></tr>")
    parts.append("</table>")

    def fig(name: str, svg: str, caption: str = "") -> None:
        cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
        parts.append(f"<figure data-plot=\"{name}\">{svg}{cap}</figure>")

    parts.append("<h2>Failures</h2>")
    fig("causes", plot_causes(s))
    fig("groups", plot_groups(s))
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
    parts.append("<h2>Speed</h2>")
    fig("rate", plot_rate(s))
    lines = timelines(s, base)
    if lines:
        parts.append("<h2>Counterexample timelines</h2>")
        for caption, svg in lines:
            fig("timeline", svg, caption)
    parts.append("</body></html>\n")
    return "\n".join(parts)


def replay_of(f: dict[str, Any], base: dict[str, Path]) -> str:
    if f.get("failure_file"):
        return shlex.join(["tcmcheck", "replay", str(base.get(f.get("dir") or "", Path(".")) / f["failure_file"])])
    return str(f.get("replay") or "")
