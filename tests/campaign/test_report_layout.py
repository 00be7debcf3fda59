"""The report's plots are readable at any size: no two texts overlap, none is cut with "…",
every text lies inside its figure (and a label drawn in a chart inside that chart), and no
legend covers a bar — measured from the figures' text extents, as matplotlib lays them out."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from campaign.cli import main
from campaign.report import html as report_html
from campaign.report import plotting

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402

TRANSFORMATIONS = ["REGISTER", "UNREGISTER", "SCHEMA_CHANGE"] + [
    f"{phase}_{op}" for op in ("JOIN", "LEAVE", "MOVE", "REPLACE") for phase in ("PREPARE", "START", "MID", "FINISH")
] + ["CANCEL_SEQUENCE", "ASSASSINATE", "RECONFIGURE_CMS", "ADVANCE_SEQUENCE"]


def drawn_texts(fig: Any) -> tuple[Any, list[tuple[Text, Bbox]], list[tuple[Text, Bbox, Any]]]:
    """Lay `fig` out and return its renderer, every text drawn with its extent, and the texts
    placed in an axes' data area (`ax.texts`) with that axes."""
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts: list[Text] = list(fig.texts)
    inner: list[tuple[Text, Bbox, Any]] = []
    # a secondary axis (the evidence timeline's epochs) is a child of its axes, not in fig.axes
    for ax in [a for parent in fig.axes for a in (parent, *parent.child_axes)]:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
        texts += [ax.xaxis.offsetText, ax.yaxis.offsetText]
        for axis in (ax.xaxis, ax.yaxis):
            # the ticks Axis.draw draws (those in view), not every Tick object it keeps around
            for tick in axis._update_ticks():
                texts += [tick.label1, tick.label2]
        legend = ax.get_legend()
        if legend is not None:
            texts += legend.get_texts() + [legend.get_title()]
        for t in ax.texts:
            texts.append(t)
            inner.append((t, t.get_window_extent(renderer), ax))
    for legend in fig.legends:
        texts += legend.get_texts() + [legend.get_title()]
    shown = [(t, t.get_window_extent(renderer)) for t in texts if t.get_visible() and t.get_text().strip()]
    return renderer, shown, inner


def layout_problems(fig: Any) -> list[str]:
    renderer, shown, inner = drawn_texts(fig)
    problems = []
    page = fig.bbox
    for t, box in shown:
        if "…" in t.get_text():
            problems.append(f"{t.get_text()!r} is cut")
        if box.x0 < page.x0 - 1 or box.y0 < page.y0 - 1 or box.x1 > page.x1 + 1 or box.y1 > page.y1 + 1:
            problems.append(f"{t.get_text()!r} lies outside the figure")
    for t, box, ax in inner:
        frame = ax.get_window_extent(renderer)
        if box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1:
            problems.append(f"{t.get_text()!r} is drawn outside its chart")
    for (a, box_a), (b, box_b) in combinations(shown, 2):
        if box_a.overlaps(box_b):
            problems.append(f"{a.get_text()!r} overlaps {b.get_text()!r}")
    bars = [bar for ax in fig.axes for bar in ax.patches if bar.get_visible()]
    for legend in [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends):
        frame = legend.get_window_extent(renderer)
        if any(bar.get_window_extent(renderer).overlaps(frame) for bar in bars):
            problems.append("the legend covers a bar")
    return problems


def assert_clean(figures: list[Any]) -> None:
    problems = [f"{fig.axes[0].get_title()!r}: {p}" for fig in figures for p in layout_problems(fig)]
    assert not problems, f"{len(problems)} layout problems:\n" + "\n".join(problems)


def figures_of(monkeypatch: pytest.MonkeyPatch, summary: dict[str, Any], base: dict[str, Path]) -> list[Any]:
    """Every figure the page draws (caught as each is turned into SVG)."""
    figures: list[Any] = []

    def keep(fig: Any) -> str:
        figures.append(fig)
        return "<svg></svg>"

    monkeypatch.setattr(plotting, "svg", keep)
    report_html.render(summary, list(base), base)
    return figures


@pytest.fixture(scope="module")
def campaign_summary(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Path]]:
    """Both kinds failing (the mutant), and a refine counterexample of 48 steps (campaign seed 1)."""
    base = tmp_path_factory.mktemp("layout")
    mutant, real = base / "mutant", base / "real"
    assert main(["fuzz", "--runs", "6", "--seed", "5", "--workers", "1", "--out", str(mutant),
                 "--mutant", "reject-create-table"]) == 1
    assert main(["fuzz", "--runs", "30", "--seed", "1", "--workers", "1", "--kinds", "refine", "--out", str(real)]) == 0
    dirs = {str(mutant): mutant, str(real): real}
    rows = []
    from campaign.store import read_table

    for d, path in dirs.items():
        for r in read_table(path / "runs.parquet").to_pylist():
            rows.append({**r, "dir": d})
    from campaign.commands.report import summarize

    return summarize(rows), dirs


def crowded(summary: dict[str, Any]) -> dict[str, Any]:
    """The campaign's summary with what a long campaign adds: many cause classes with long
    text, many mutants, every transformation kind at counts from 1 to 100,000, many fault kinds."""
    s = json.loads(json.dumps(summary))
    long = "quorum: disjoint-across-epochs (across CANCEL_SEQUENCE, then FINISH_REPLACE of a node that " \
           "was being replaced while the CMS was reconfigured across two datacenters)"
    for i in range(30):
        cls = f"{long} variant {i}" if i % 2 else f"liveness: stuck-{i}"
        s["causes"][cls] = 30 - i
        s["failures"].append({"dir": None, "run": 10_000 + i, "kind": "sim", "seed": i, "cause": cls,
                              "cause_class": cls, "replay": f"tcmcheck replay --kind sim --seed {i}",
                              "failure_file": None, "known": None})
    for i in range(12):
        s["groups"][f"mutant some-rather-long-mutant-name-{i} + fix two-epoch-cancel"] = {
            "runs": 1000 * (i + 1), "failed": 7 * i, "causes": {long: 7 * i}}
    s["coverage"]["transformations"] = {
        "refine": {t: 10 ** (i % 6) for i, t in enumerate(TRANSFORMATIONS)},
        "sim": {t: 3 * i + 1 for i, t in enumerate(TRANSFORMATIONS[::2])},
        "stateful": {t: 77 for t in TRANSFORMATIONS[:5]},
    }
    s["coverage"]["faults"] = {f"fault kind number {i}": i + 1 for i in range(14)}
    s["coverage"]["steps"]["stateful"] = {str(n): n % 7 + 1 for n in range(1, 400, 3)}
    return s


def test_the_plots_of_a_campaign_have_no_overlapping_cut_or_stray_text(
        campaign_summary: tuple[dict[str, Any], dict[str, Path]], monkeypatch: pytest.MonkeyPatch) -> None:
    summary, base = campaign_summary
    figures = figures_of(monkeypatch, summary, base)
    assert len(figures) >= 8  # six plots and the two timelines
    assert_clean(figures)


def test_the_plots_stay_clean_with_many_long_causes_and_kinds(
        campaign_summary: tuple[dict[str, Any], dict[str, Path]], monkeypatch: pytest.MonkeyPatch) -> None:
    summary, base = campaign_summary
    figures = figures_of(monkeypatch, crowded(summary), base)
    assert_clean(figures)


def test_coverage_bars_are_grouped_not_stacked_on_the_log_axis(
        campaign_summary: tuple[dict[str, Any], dict[str, Path]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Stacked lengths do not add up on a log axis: every bar starts at zero."""
    summary, base = campaign_summary
    figures = figures_of(monkeypatch, crowded(summary), base)
    coverage = next(f for f in figures if f.axes[0].get_title() == "Coverage: transformation kinds")
    bars = coverage.axes[0].patches
    assert len(bars) > len(TRANSFORMATIONS) and {bar.get_x() for bar in bars} == {0}


def test_long_counterexamples_keep_their_timelines_clean() -> None:
    """A refine case of 150 steps (every fourth one named on the axis) and a sim case with every
    submission kind, five crashed nodes and a partition, both with a cause of three lines."""
    from campaign.report.timelines import timeline_refine, timeline_sim

    cause = "quorum: disjoint-across-epochs in ks1 " + ", ".join(f"({i}, {i + 1})" for i in range(40))
    refine = {"kind": "refine", "seed": 7, "case": {"topology": "not a topology", "transformations": [
        {"kind": TRANSFORMATIONS[i % len(TRANSFORMATIONS)]} for i in range(150)]},
        "verdict": {"cause": cause, "details": {"step": 140, "counterexamples": [
            {"read_epoch": 3, "write_epoch": 4, "read_quorum": ["n1"], "write_quorum": ["n2"]}]}}}
    sim = {"kind": "sim", "seed": 8, "verdict": {"cause": cause}, "case": {
        "workloads": [{"kind": "schema", "start_ms": 10 * i, "spread_ms": 900} for i in range(3)],
        "faults": {"partitions": [{"start_ms": 100, "heal_ms": 2000}],
                   "crashes": [{"node": f"n{i}", "at_ms": 300 * i, "restart_ms": 300 * i + 500} for i in range(5)]},
        "submissions": [{"at_ms": 37 * i, "transformation": {"kind": TRANSFORMATIONS[i % len(TRANSFORMATIONS)]}}
                        for i in range(200)]}}
    figures = [timeline_refine(refine), timeline_sim(sim, shrunk=True)]
    assert_clean(figures)
    step_names = [t.get_text() for t in figures[0].axes[0].get_xticklabels()]
    assert step_names[:2] == ["0 REGISTER", "4 START_JOIN"] and len(step_names) == 38


def _evidence(ops: int, steps: int, *, spread_s: float) -> dict[str, Any]:
    """A client anomaly's evidence with `ops` operations (long answer lists, one never
    completed) and `steps` topology steps, half of them committed within milliseconds."""
    operations = []
    for i in range(ops):
        start = int(1e9 + i * spread_s * 1e9 / max(ops, 1))
        operations.append({"process": i, "f": "write" if i % 2 else "read", "key": "kv/k15", "value": i if i % 2 else None,
                           "outcome": "ok" if i != 3 else "info", "invoked_ns": start,
                           "completed_ns": None if i == 3 else start + 4_000_000, "coordinator": f"node-{i:02d}",
                           "level": "LOCAL_QUORUM", "plan_epoch": 10 + i, "done_epoch": 11 + i,
                           "replicas": [f"node-{j:02d}" for j in range(5)],
                           "answers": [{"replica": f"node-{j:02d}", "value": None, "epoch": 10 + j} for j in range(5)]})
    step_list = [{"epoch": 120 + j, "kind": "ADVANCE_CMS_RECONFIGURATION", "node": None,
                  "time_ns": int(1e9 + (j * 1e6 if j < steps // 2 else j * spread_s * 1e9 / max(steps, 1)))}
                 for j in range(steps)]
    return {"anomaly": "not-linearizable", "key": "kv/k15", "operations": operations, "stale_read": ops - 1,
            "missed_write": 1 if ops > 1 else None, "steps": step_list, "stuck": [], "writes": [], "final_epoch": 40}


@pytest.mark.parametrize(("ops", "steps", "spread_s"), [(2, 16, 60.0), (14, 16, 3.0), (1, 0, 0.001), (6, 40, 0.5)])
def test_the_evidence_timeline_stays_clean(ops: int, steps: int, spread_s: float) -> None:
    """Two operations a minute apart beside 16 steps (half within milliseconds: their epochs
    share a label), fourteen operations with five answers each, one operation alone, forty steps."""
    from campaign.report.evidence_view import plot_evidence

    cause = "not-linearizable: acknowledged writes lost by a single-source remove/replace stream " * 2
    fig = plot_evidence(_evidence(ops, steps, spread_s=spread_s), f"evidence: sim seed 3: clients: {cause}")
    assert fig is not None
    assert_clean([fig])
    bars = [b for b in fig.axes[0].collections]
    assert len(bars) == ops  # one bar per operation


def test_the_operation_plots_stay_clean_with_many_kinds_and_outcomes(
        campaign_summary: tuple[dict[str, Any], dict[str, Path]], monkeypatch: pytest.MonkeyPatch) -> None:
    summary, base = campaign_summary
    s = crowded(summary)
    kinds = ["join", "leave", "move", "replace", "remove", "assassinate", "decommission", "cms-reconfigure"]
    s["coverage"]["operations"] = {"sim": {k: 10 ** (i % 6) for i, k in enumerate(kinds)}, "refine": {"join": 7}}
    s["coverage"]["operations_ended"] = {f"{k} {o}": i + 1 for i, k in enumerate(kinds)
                                         for o in ("completed", "refused", "rejected", "failed", "cancelled", "skipped")}
    s["focus"] = {"replace,remove; faults crash,partition; levels ONE,QUORUM": 900, "none": 100}
    figures = figures_of(monkeypatch, s, base)
    started = next(f for f in figures if f.axes[0].get_title().startswith("Coverage: operations started"))
    ended = next(f for f in figures if f.axes[0].get_title() == "Coverage: how operations ended")
    assert_clean([started, ended])
    assert [t.get_text() for t in started.axes[0].texts][:2] == [" 100000 (90%)", " 10000 (9%)"]


def test_a_refine_timeline_under_a_fix_draws_the_step_the_fix_refuses_as_refused() -> None:
    """A failure file of a `--fix unregister-idle-only` run: its UNREGISTER of a node with a
    prepared join is refused by the fix, so the timeline draws that step refused (x), as the run
    saw it — not accepted, as the spec without the run's fixes would have it."""
    from campaign.report.timelines import timeline_refine

    topology = {"nodes": [{"id": n, "dc": "dc1", "rack": "r1", "tokens": [t]} for n, t in (("A", 100), ("B", 200))],
                "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 2}}]}
    steps = [{"kind": "REGISTER", "node": {"id": "X", "dc": "dc1", "rack": "r1"}},
             {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]}, {"kind": "UNREGISTER", "node": "X"}]

    def refused(doc: dict[str, Any]) -> list[int]:
        lines = [line for line in timeline_refine(doc).axes[0].lines if line.get_label() == "rejected"]
        return [int(x) for line in lines for x in line.get_xdata()]

    doc = {"kind": "refine", "seed": 1, "case": {"topology": topology, "transformations": steps},
           "verdict": {"cause": "quorum: disjoint-across-epochs", "details": {}}}
    assert refused(doc) == []  # without the fix, Unregister accepts a node with a sequence
    assert refused({**doc, "fixes": ["unregister-idle-only"]}) == [2]
