"""`tcmcheck report DIR... [--html OUT]`: many campaigns at once, a self-contained page with
plots (checked in headless Chromium), and a runs.parquet of the wrong shape refused in one line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from campaign.cli import main
from campaign.report.html import NEW
from tests.browser import CHROMIUM, chromium


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A campaign against the mutant (failures of both kinds) and one against the real impl."""
    base = tmp_path_factory.mktemp("campaigns")
    mutant, real = base / "mutant", base / "real"
    assert main(["fuzz", "--runs", "6", "--seed", "5", "--workers", "1", "--out", str(mutant),
                 "--mutant", "reject-create-table"]) == 1
    # refine runs 0 and 19 of campaign seed 1 meet the known cancel-after-mid finding
    assert main(["fuzz", "--runs", "30", "--seed", "1", "--workers", "1", "--kinds", "refine", "--out", str(real)]) == 0
    return mutant, real


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.plots: list[str] = []
        self.svgs = 0
        self.external: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "figure" and a.get("data-plot"):
            self.plots.append(a["data-plot"] or "")
        self.svgs += tag == "svg"
        self.scripts += tag == "script"
        for name in ("src", "href", "xlink:href"):
            value = a.get(name)
            if value and not value.startswith("#"):
                self.external.append(value)


def test_the_html_page_holds_every_plot_and_nothing_external(
        campaigns: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mutant, real = campaigns
    page_path = tmp_path / "r.html"
    status, out, _ = run(capsys, "report", str(mutant), str(real), "--html", str(page_path))
    assert status == 0 and f"report written to {page_path}" in out
    page = Page()
    page.feed(page_path.read_text())
    for plot in ("causes", "groups", "transformations", "steps", "faults", "operations", "operations_ended", "rate"):
        assert plot in page.plots
    assert page.plots.count("timeline") == 2  # a sim and a refine counterexample
    assert page.svgs >= len(page.plots)
    assert (page.external, page.scripts) == ([], 0)
    text = page_path.read_text()
    assert "mutant reject-create-table" in text and "as specified" in text  # failures by mutant
    assert "logs: unjustified-rejection" in text and NEW in text
    assert "Focus: none (the generator's own mix)." in text  # neither campaign was aimed


FINDINGS = Path(__file__).resolve().parents[2] / "examples" / "findings"


def _failure_doc(name: str) -> str:
    """A pinned finding's failure file as `fuzz` writes it (with its evidence)."""
    from campaign.kinds import checked, load_failure

    spec = load_failure(FINDINGS / f"{name}.json")
    return spec.to_text(checked(spec))


def test_the_page_shows_each_failure_s_evidence_beside_its_topology_steps(
        campaigns: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sim failure whose file carries evidence (here the pinned remove-replace-single-source,
    put in place of the campaign's first sim failure) gets a per-key timeline (one bar per
    operation, epoch markers) and the evidence's text; a `.min.json` beside it is shown instead."""
    mutant = tmp_path / "mutant"
    shutil.copytree(campaigns[0], mutant)
    first = sorted((mutant / "failures").glob("sim-*.json"))[0]
    first.write_text(_failure_doc("remove-replace-single-source"))
    page_path = tmp_path / "r.html"
    assert run(capsys, "report", str(mutant), "--html", str(page_path))[0] == 0
    page = Page()
    text = page_path.read_text()
    page.feed(text)
    assert page.plots.count("evidence") == 1
    # its sim timeline too, although n3 crashes and never restarts (that once dropped the timeline)
    assert page.plots.count("timeline") == 2 and "n3 down (not restarted)" in text
    assert "evidence: key kv/k6" in text and "evidence: lost write: kv/k6=26 at ONE by n2" in text
    assert "to d2 from nobody" in text and "did not carry it" in text
    # the epochs committed around the replace's START, as one marker label (27-38 until gossip
    # answered every SYN, issue 33)
    assert ">33-39</text>" in text
    first.with_suffix(".min.json").write_text(_failure_doc("stale-coordinator-read"))
    assert run(capsys, "report", str(mutant), "--html", str(page_path))[0] == 0
    text = page_path.read_text()
    assert "evidence: key kv/k0" in text and "kv/k6" not in text


def test_report_of_many_campaigns_adds_them_up(campaigns: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    mutant, real = campaigns
    status, js, _ = run(capsys, "report", str(mutant), str(real), "--json")
    s = json.loads(js)
    assert status == 0 and s["runs"] == 36
    assert s["groups"]["mutant reject-create-table"]["runs"] == 6
    assert s["groups"]["as specified"] == {"runs": 30, "failed": 2, "causes": {
        "quorum: disjoint-across-epochs (across CANCEL_SEQUENCE)": 2}}
    assert sum(s["coverage"]["transformations"]["refine"].values()) > 0
    assert {f["dir"] for f in s["failures"]} == {str(mutant), str(real)}
    status, text, _ = run(capsys, "report", str(mutant), str(real))
    assert text.startswith("36 runs, ") and "in 2 campaigns" in text
    assert f"tcmcheck replay {mutant / 'failures'}" in text


def test_a_report_without_the_newer_columns_still_works(campaigns: tuple[Path, Path], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A campaign written before coverage, mutant, failure_file and finished_at existed (and
    before --fix added a column): the report does without them."""
    table = pq.read_table(campaigns[0] / "runs.parquet").drop(["coverage_json", "mutant", "fix", "failure_file", "finished_at"])
    (tmp_path / "old").mkdir()
    pq.write_table(table, tmp_path / "old" / "runs.parquet")
    status, _, _ = run(capsys, "report", str(tmp_path / "old"), "--html", str(tmp_path / "old.html"))
    assert status == 0
    page = Page()
    page.feed((tmp_path / "old.html").read_text())
    assert "rate" in page.plots and "causes" in page.plots


def test_a_campaign_given_twice_is_counted_once(campaigns: tuple[Path, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`report out out/` or a link to out: the same runs, not twice as many; a note says so."""
    mutant = campaigns[0]
    (tmp_path / "link").symlink_to(mutant)
    status, js, err = run(capsys, "report", str(mutant), f"{mutant}/", str(tmp_path / "link"), "--json")
    assert status == 0 and json.loads(js)["runs"] == 6
    assert err.splitlines() == [f"tcmcheck: note: {mutant}/ is the campaign {mutant} again; counted once",
                                f"tcmcheck: note: {tmp_path / 'link'} is the campaign {mutant} again; counted once"]
    status, text, _ = run(capsys, "report", str(mutant), str(mutant))
    assert text.startswith("6 runs, 2 failed\n")  # one campaign: no "in 2 campaigns" (3 failed before issue 33)


def test_the_timeline_shows_the_shrunk_failure_when_it_lies_beside_the_file(
        campaigns: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real"
    shutil.copytree(campaigns[1], real)
    failure = real / "failures" / "refine-1000003.json"
    before = len(json.loads(failure.read_text())["case"]["transformations"])
    assert run(capsys, "report", str(real), "--html", str(tmp_path / "before.html"))[0] == 0
    assert main(["shrink", str(failure)]) == 0
    small = failure.with_suffix(".min.json")
    after = len(json.loads(small.read_text())["case"]["transformations"])
    assert after < before
    assert run(capsys, "report", str(real), "--html", str(tmp_path / "after.html"))[0] == 0
    old, new = (tmp_path / "before.html").read_text(), (tmp_path / "after.html").read_text()
    assert "(shrunk)" not in old and f"tcmcheck replay {small}" not in old
    assert f"shrunk: tcmcheck replay {small}; unshrunk: {failure}" in new
    assert "refine seed 1000003 (shrunk)" in new  # the plot's title: drawn from the shrunk case
    # the timeline names each step on its axis ("3 CANCEL_SEQUENCE"): the shrunk case's steps
    step_names = re.compile(r">\d+ [A-Z_]+</text>")
    assert (len(step_names.findall(old)), len(step_names.findall(new))) == (before, after)


@pytest.mark.parametrize(("column", "value", "expected"), [
    ("valid", pa.array(["yes"] * 6), "column valid has type string, expected bool"),
    ("seed", pa.array([1.5] * 6), "column seed has type double, expected int64"),
    ("cause", pa.array([7] * 6), "column cause has type int64, expected string"),
])
def test_a_runs_parquet_with_the_right_columns_but_wrong_types_exits_2_in_one_line(
        column: str, value: pa.Array, expected: str, campaigns: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    table = pq.read_table(campaigns[0] / "runs.parquet")
    table = table.set_column(table.column_names.index(column), column, value)
    pq.write_table(table, tmp_path / "runs.parquet")
    html = tmp_path / "r.html"
    status, out, err = run(capsys, "report", str(tmp_path), "--html", str(html))
    assert (status, out) == (2, "")
    assert err == f"tcmcheck: error: {tmp_path / 'runs.parquet'}: {expected}\n"
    assert not html.exists()


def test_report_html_to_a_missing_folder_exits_2_before_reading(campaigns: tuple[Path, Path], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "report", str(campaigns[0]), "--html", str(tmp_path / "no" / "r.html"))
    assert status == 2 and "--html: cannot write" in err


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs headless Chromium at /usr/bin/chromium")
def test_chromium_renders_the_report_with_its_plots(campaigns: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    mutant = tmp_path / "mutant"  # with a failure carrying evidence: its timeline renders too
    shutil.copytree(campaigns[0], mutant)
    sorted((mutant / "failures").glob("sim-*.json"))[0].write_text(_failure_doc("remove-replace-single-source"))
    page_path = tmp_path / "r.html"
    assert run(capsys, "report", str(mutant), "--html", str(page_path))[0] == 0
    dom = chromium(tmp_path / "profile", page_path.as_uri(), "--dump-dom")
    rendered = Page()
    rendered.feed(dom)
    assert {"causes", "groups", "transformations", "steps", "faults", "operations", "operations_ended", "rate",
            "timeline", "evidence"} <= set(rendered.plots)
    assert rendered.svgs >= 10 and rendered.external == []
    from tests.checkers.linearizability.test_html import _has_colour

    for width in (1100, 600):  # a laptop's window and half of one: the plots shrink to fit
        shot = tmp_path / f"shot-{width}.png"
        chromium(tmp_path / f"profile-{width}", page_path.as_uri(), f"--window-size={width},900",
                 f"--screenshot={shot}")
        # the new failures' bars (NEW) are drawn in the first screenful
        assert _has_colour(shot, tuple(int(NEW[i:i + 2], 16) for i in (1, 3, 5)))  # type: ignore[arg-type]
        keep = os.environ.get("TCMCHECK_KEEP_SHOT")  # a path prefix: keep the screenshots for a human
        if keep:
            shutil.copy(shot, f"{keep}-report-{width}.png")


def _loaded(*args: str) -> set[str]:
    """The modules a fresh `python -m campaign ARGS` process imports (python -X importtime)."""
    import sys

    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "campaign", *args], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("html", [False, True])
def test_a_report_loads_neither_the_simulator_nor_the_prover(campaigns: tuple[Path, Path], tmp_path: Path,
                                                             html: bool) -> None:
    """A report only reads what campaigns recorded: it must not pay for impl/ or Z3 (issue 20) —
    also when it draws a failure's evidence (a failure file carrying one)."""
    mutant = tmp_path / "mutant"
    shutil.copytree(campaigns[0], mutant)
    sorted((mutant / "failures").glob("sim-*.json"))[0].write_text(_failure_doc("remove-replace-single-source"))
    args = [str(mutant)] + (["--html", str(tmp_path / "r.html")] if html else [])
    loaded = _loaded("report", *args)
    assert "campaign.report.aggregate" in loaded  # the measurement sees what it should
    assert sorted(m for m in loaded if m == "impl" or m.startswith(("impl.", "z3", "strategies"))) == []
