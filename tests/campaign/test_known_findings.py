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
    assert finding.replay.endswith("--seed 41")


def test_every_known_finding_names_a_distinct_cause_class() -> None:
    classes = [c for f in KNOWN_FINDINGS for c in f.cause_classes]
    assert len(classes) == len(set(classes))


def test_known_findings_pass_a_campaign_unless_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuzz", "--kinds", "refine", "--runs", "42", "--workers", "1", "--out", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "KNOWN cancel-after-mid" in out and "FAIL:" not in out
    assert main([*args, "--strict"]) == 1


def test_a_new_failure_still_fails_the_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuzz", "--kinds", "sim", "--runs", "4", "--workers", "1", "--out", str(tmp_path),
            "--mutant", "reject-create-table"]
    assert main(args) == 1
    assert "FAIL: 3 × logs: unjustified-rejection (first: sim seed 1)" in capsys.readouterr().out
