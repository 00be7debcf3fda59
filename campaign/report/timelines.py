"""The report's counterexample timelines: the first failure of each cause class, drawn from its
failure file — or from the shrunk one (`FILE.min.json`, what `tcmcheck shrink` writes) when it
lies beside it, since the smaller case is the one a reader can follow.

refine: the spec's epoch after each step, accepted (o) and rejected (x) steps, each step named
on the axis (at 90 degrees, thinned to at most `MAX_STEP_LABELS` so the names never touch), the
failing step or the read and write epochs of the first disjoint quorum pair. sim: one lane per
workload, client workload, partition, crashed node, submitted transformation kind and topology
operation (`replace by d2 of n3`), over virtual time; under
it the failure's evidence (campaign/report/evidence_view.py), from the same file.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from campaign.report import plotting as P
from campaign.report.evidence_view import evidence_html
from campaign.run.record import replay_file_command
from spec.fixes import check_names, execute
from spec.metadata import ClusterMetadata
from spec.transformations import Rejected

MAX_TIMELINES = 12
MAX_STEP_LABELS = 48
"""Step names on a refine timeline's axis; 90-degree 7-point names need ~16 px each."""


def _spec_steps(case: dict[str, Any], fixes: frozenset[str] = frozenset()) -> list[tuple[str, bool, int]]:
    """(kind, accepted, epoch after) for each transformation, by running the spec with the run's
    proposed fixes (a step a fix refuses is drawn refused; no prover)."""
    m = ClusterMetadata.initial(parse_topology(case["topology"], "case topology"))
    out = []
    for i, t_json in enumerate(case["transformations"]):
        t = parse_transformation(t_json, f"transformations[{i}]")
        r = execute(t, m, fixes)
        ok = not isinstance(r, Rejected)
        if ok:
            m = r.metadata  # type: ignore[union-attr]
        out.append((t.kind, ok, m.epoch))
    return out


def _heading(doc: dict[str, Any], shrunk: bool) -> str:
    return f"{doc['kind']} seed {doc['seed']}{' (shrunk)' if shrunk else ''}: {doc['verdict'].get('cause')}"


def timeline_refine(doc: dict[str, Any], shrunk: bool = False) -> Any:
    case, details = doc["case"], doc["verdict"].get("details") or {}
    try:
        steps = _spec_steps(case, check_names(doc.get("fixes", [])))
    except Exception:  # noqa: BLE001 (a hand-edited file: draw what can be drawn)
        steps = [(str(t.get("kind")), True, i) for i, t in enumerate(case.get("transformations", []))]
    heading = P.wrap(_heading(doc, shrunk), 110)
    fig = P.figure(4.4 + P.LINE * heading.count("\n"), width=10)
    ax = fig.subplots()
    if not steps:
        P.empty(ax, "no steps")
        P.title(ax, heading, 110, fontsize=9)
        return fig
    xs = list(range(len(steps)))
    ax.step(xs, [e for _, _, e in steps], where="post", color="#999", linewidth=1)
    for ok, marker, colour, label in ((True, "o", P.OK, "accepted"), (False, "x", "#777", "rejected")):
        picked = [(i, e) for i, (_, accepted, e) in enumerate(steps) if accepted == ok]
        if picked:
            ax.plot([i for i, _ in picked], [e for _, e in picked], marker, color=colour, label=label)
    every = math.ceil(len(steps) / MAX_STEP_LABELS)
    ticks = xs[::every]
    ax.set_xticks(ticks, [f"{i} {steps[i][0]}" for i in ticks], rotation=90, fontsize=7)
    ax.set_xlim(-0.5, len(steps) - 0.5)
    ax.set_xlabel("step and its transformation" + (f" (every {every}th named)" if every > 1 else ""))
    ax.set_ylabel("epoch")
    ax.yaxis.get_major_locator().set_params(integer=True)
    if isinstance(details.get("step"), int):
        ax.axvline(details["step"], color=P.NEW, linewidth=2, label=f"failing step {details['step']}")
    for ce in (details.get("counterexamples") or [])[:1]:
        ax.axhline(ce["read_epoch"], color=P.NEW, linestyle="--",
                   label=f"read {ce['read_quorum']} at epoch {ce['read_epoch']}")
        ax.axhline(ce["write_epoch"], color=P.KNOWN, linestyle="--",
                   label=f"write {ce['write_quorum']} at epoch {ce['write_epoch']}")
    P.legend_below(fig)
    ax.set_title(heading, fontsize=9)
    return fig


def timeline_sim(doc: dict[str, Any], shrunk: bool = False) -> Any:
    case = doc["case"]
    faults = case.get("faults", {})
    bars: list[tuple[str, float, float, str]] = []  # lane, start, length, colour
    for i, w in enumerate(case.get("workloads", [])):
        bars.append((f"workload {i + 1}: {w.get('kind', '')}", w.get("start_ms", 0), max(w.get("spread_ms", 1), 1),
                     "#aed6f1"))
    for i, c in enumerate(case.get("clients", [])):
        bars.append((f"clients {i + 1}: {c.get('keyspace', '')}", c.get("start_ms", 0), max(c.get("spread_ms", 1), 1),
                     "#d6eaf8"))
    end = case.get("settings", {}).get("end_time_ms", 0)  # a crash never restarted, a partition never healed
    for p in faults.get("partitions", []):
        bars.append(("partition", p["start_ms"], max(p.get("heal_ms", end) - p["start_ms"], 1), "#e6a0a0"))
    for c in faults.get("crashes", []):
        bars.append((f"{c['node']} down" + ("" if "restart_ms" in c else " (not restarted)"), c["at_ms"],
                     max(c.get("restart_ms", end) - c["at_ms"], 1), P.KNOWN))
    marks = [(f"submit {s['transformation'].get('kind', '?')}", s["at_ms"]) for s in case.get("submissions", [])]
    marks += [(f"{o.get('op', '?')} by {o.get('node', '?')}" + (f" of {o['target']}" if o.get("target") else ""),
               o.get("at_ms", 0)) for o in case.get("operations", [])]
    lanes = list(dict.fromkeys([b[0] for b in bars] + sorted({m[0] for m in marks})))
    heading = P.wrap(_heading(doc, shrunk), 110)
    fig = P.figure(P.rows_height(lanes, per_row=0.1, extra=1.3) + P.LINE * heading.count("\n"), width=10)
    ax = fig.subplots()
    if not lanes:
        P.empty(ax, "no events")
    else:
        for lane, start, length, colour in bars:
            y = lanes.index(lane)
            ax.broken_barh([(start, length)], (y - 0.3, 0.6), color=colour)
        for lane, at in marks:
            ax.plot(at, lanes.index(lane), "|", color="#1b4f72", markersize=10)
        ax.set_yticks(range(len(lanes)), lanes, fontsize=8)
        ax.set_ylim(-0.6, len(lanes) - 0.4)
        ax.invert_yaxis()
        ax.set_xlabel("virtual time (ms)")
    ax.set_title(heading, fontsize=9)
    return fig


def timelines(s: dict[str, Any], base: dict[str, Path]) -> list[tuple[str, str, str]]:
    """(caption, svg, the evidence as HTML) for the first failure of each cause class that has a
    failure file; the evidence (campaign/report/evidence_view.py) is a `figure data-plot=evidence`
    with its per-key timeline when the failure had a client anomaly, and its text."""
    seen: set[str] = set()
    out: list[tuple[str, str, str]] = []
    for f in s["failures"]:
        cls = f["cause_class"]
        if cls in seen or not f.get("failure_file") or len(out) >= MAX_TIMELINES:
            continue
        path = base.get(f.get("dir") or "", Path(".")) / f["failure_file"]
        small = path.with_suffix(".min.json")
        shown = small if small.is_file() else path
        try:
            doc = json.loads(shown.read_text(encoding="utf-8"))
            fig = timeline_refine(doc, shown == small) if doc["kind"] == "refine" else timeline_sim(doc, shown == small)
            drawn = P.svg(fig)
        except Exception:  # noqa: BLE001 (a missing or edited failure file: skip its timeline)
            continue
        seen.add(cls)
        where = f"shrunk: {replay_file_command(small)}; unshrunk: {path}" if shown == small else replay_file_command(path)
        ev_fig, ev_text = evidence_html(doc, "evidence: " + _heading(doc, shown == small))
        extra = ev_text if ev_fig is None else (
            f"<figure data-plot=\"evidence\">{P.svg(ev_fig)}<figcaption>the evidence of {html.escape(cls)}: "
            f"a timeline of the key beside the topology steps</figcaption></figure>{ev_text}")
        out.append((f"{cls} — first of {s['causes'].get(cls, 1)}: {f['kind']} seed {f['seed']} ({where})", drawn, extra))
    return out


__all__ = ["MAX_TIMELINES", "timeline_refine", "timeline_sim", "timelines"]
