"""Known findings are reported apart: they do not fail a campaign unless --strict; new ones do."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.cli import main
from campaign.kinds import run_one
from campaign.run.findings import KNOWN_FINDINGS, known_finding
from campaign.run.record import RunSpec


def test_the_cancel_after_mid_finding_still_reproduces() -> None:
    """Seed 41 of the refine kind cancels a sequence after MID; the prover finds the disjoint
    quorums across the cancel. If this stops failing, the finding's entry must go."""
    record = run_one(RunSpec(kind="refine", seed=41))
    assert record.outcome.cause is not None
    finding = known_finding(record.outcome.cause.klass)
    assert finding is not None and finding.id == "cancel-after-mid"


def test_every_known_finding_names_a_distinct_cause_class() -> None:
    classes = [c for f in KNOWN_FINDINGS for c in f.cause_classes]
    assert len(classes) == len(set(classes))


def test_known_findings_pass_a_campaign_unless_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuzz", "--kinds", "refine", "--runs", "42", "--workers", "1", "--out", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "KNOWN cancel-after-mid (bug):" in out and "FAIL:" not in out
    assert "report for Cassandra's committers: docs/findings/cancel-after-mid.md" in out
    assert main([*args, "--strict"]) == 1
    # the report shows each known finding's class too, as text and as HTML
    assert main(["report", str(tmp_path), "--html", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    assert "[known: cancel-after-mid, bug]" in out
    assert "known: cancel-after-mid (bug)" in (tmp_path / "r.html").read_text()


def test_a_new_failure_still_fails_the_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuzz", "--kinds", "sim", "--runs", "4", "--workers", "1", "--out", str(tmp_path),
            "--mutant", "reject-create-table"]
    assert main(args) == 1
    assert "FAIL: 3 × logs: unjustified-rejection (first: sim seed 1)" in capsys.readouterr().out


def test_every_finding_has_a_class_and_every_bug_a_report() -> None:
    """A bug has a committer's report; so has a hardening finding filed as an improvement."""
    from campaign.run.findings import ALL_FINDINGS, CLASSES

    root = Path(__file__).resolve().parents[2]
    table = (root / "docs" / "findings.md").read_text()
    for f in ALL_FINDINGS:
        assert f.klass in CLASSES
        assert f"| `{f.id}` | {f.klass} |" in table, f.id  # one row per finding, with its class
        if f.klass == "bug" or f.improvement:
            assert f.report is not None and (root / f.report).is_file(), f.id
        else:
            assert f.report is None
