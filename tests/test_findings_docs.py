"""The committers' reports in docs/findings/: each has its Java test beside it and names the trunk
versions it was checked against (issue 33).

A report (docs/findings/<id>.md, one per `bug` finding and per finding filed as an improvement)
links its test as ``Executable test: [`Name.java`](Name.java)``; the file declares that public
class in an org.apache.cassandra package, cites the Cassandra sources its calls come from
(`File.java:line`), and says it was not compiled here — as must the report. The report names the
newest trunk it was checked against: a "Newest trunk checked:" line near its top and a "## Newest
trunk" section with the commits read. When javac is on the PATH the Java files are parsed (syntax
only: Cassandra's classes are not on any classpath here, so nothing is compiled against them).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from campaign.run.findings import ALL_FINDINGS

ROOT = Path(__file__).resolve().parents[1]
FINDINGS = ROOT / "docs" / "findings"
REPORTS = sorted(FINDINGS.glob("*.md"))
LINK = re.compile(r"Executable test: \[`(\w+)\.java`\]\((\w+)\.java\)")
COMMIT = re.compile(r"`[0-9a-f]{8,40}`")


def _java_of(report: Path) -> Path:
    m = LINK.search(report.read_text())
    assert m is not None, f"{report.name}: no 'Executable test: [`X.java`](X.java)' line"
    assert m.group(1) == m.group(2), report.name
    return FINDINGS / f"{m.group(1)}.java"


def test_every_report_is_a_finding_with_one() -> None:
    with_reports = {f.id for f in ALL_FINDINGS if f.report is not None}
    assert {p.stem for p in REPORTS} == with_reports
    assert len(REPORTS) >= 7


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.stem)
def test_a_report_has_its_java_test_beside_it(report: Path) -> None:
    java = _java_of(report)
    assert java.is_file(), f"{report.name} links {java.name}, which is not in docs/findings/"
    text = java.read_text()
    assert re.search(r"^package org\.apache\.cassandra(\.\w+)+;$", text, re.M), java.name
    assert re.search(rf"^public class {java.stem}\b", text, re.M), java.name
    assert "@Test" in text
    assert len(re.findall(r"\w+\.java:\d+", text)) >= 5, f"{java.name}: cite the source of each call"
    assert "Not compiled or run here" in " ".join(text.split()), java.name
    assert f"docs/findings/{report.name}" in text, f"{java.name} names its report"
    assert "has not been compiled or run here" in " ".join(report.read_text().split()), report.name


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.stem)
def test_a_report_names_the_trunk_it_was_checked_against(report: Path) -> None:
    text = report.read_text()
    head = text[:4000]
    assert "6bbe85ef51d2a5a52b9a585e7c1d3031a7fb0c80" in head, report.name
    assert "Newest trunk checked:" in head, report.name
    section = text.split("## Newest trunk", 1)
    assert len(section) == 2, f"{report.name}: no '## Newest trunk' section"
    body = section[1].split("\n## ", 1)[0]
    assert COMMIT.search(body), f"{report.name}: the section names no commit it read"
    assert re.search(r"stands|fixed upstream", body), report.name


def test_every_java_test_belongs_to_one_report() -> None:
    linked = sorted(_java_of(r).name for r in REPORTS)
    assert linked == sorted(p.name for p in FINDINGS.glob("*.java"))


@pytest.mark.skipif(shutil.which("javac") is None, reason="no javac on the PATH")
def test_the_java_tests_parse(tmp_path: Path) -> None:
    """javac stopped after parsing: a syntax check, not a compilation (Cassandra is not here)."""
    files = sorted(str(p) for p in FINDINGS.glob("*.java"))
    done = subprocess.run(["javac", "-d", str(tmp_path), "-XDshould-stop.ifError=PARSE",
                           "-XDshould-stop.ifNoError=PARSE", *files],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
