"""Each finding's proposed fix removes its finding and brings nothing new.

The findings reproduce with Cassandra's rules (the default) from their recorded counterexamples;
with the matching `--fix` the same input runs clean. A short refine campaign with every fix on
fails nowhere (a longer one per fix runs under the `slow` marker).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign.formats.ops import load_operations
from campaign.formats.topology import load_topology
from campaign.fuzz import campaign
from campaign.kinds import checked, run_one
from campaign.run.findings import KNOWN_FINDINGS, known_finding
from campaign.run.record import RunSpec
from spec import fixes as F
from spec.invariants import check_invariants
from spec.operations import run_operations

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BY_ID = {f.id: f for f in KNOWN_FINDINGS}
FILES = sorted(p.stem for p in (EXAMPLES / "findings").glob("*.json"))


def test_every_finding_has_a_fix_and_every_fix_a_finding() -> None:
    assert {f.fix for f in KNOWN_FINDINGS} <= set(F.FIXES)


def test_every_refine_finding_has_a_stored_counterexample() -> None:
    assert set(FILES) == {f.id for f in KNOWN_FINDINGS}


@pytest.mark.parametrize("finding_id", FILES)
def test_a_stored_counterexample_shows_its_finding_and_passes_with_its_fix(finding_id: str) -> None:
    """examples/findings/<id>.json (a failure file: `tcmcheck replay` re-runs its stored case)."""
    finding = BY_ID[finding_id]
    doc = json.loads((EXAMPLES / "findings" / f"{finding_id}.json").read_text())
    spec = RunSpec(kind=doc["kind"], seed=doc["seed"], case=doc["case"])
    faithful = checked(spec)
    assert faithful.cause is not None
    assert known_finding(faithful.cause.klass) is finding
    fixed = checked(RunSpec(kind=doc["kind"], seed=doc["seed"], case=doc["case"], fixes=frozenset({finding.fix})))
    assert fixed.valid, fixed.cause


def test_the_monotonic_read_counterexample_is_at_rf_3() -> None:
    """The report leads with RF 3 (two lost mutations of one write), not the campaign's RF 1 case."""
    doc = json.loads((EXAMPLES / "findings" / "monotonic-read-across-movement.json").read_text())
    keyspaces = {k["name"]: k for k in doc["case"]["topology"]["keyspaces"]}
    assert keyspaces["kv"]["replication"] == {"class": "SimpleStrategy", "replication_factor": 3}
    lost = [d[0] for d in doc["case"]["decisions"] if d[0].startswith("loss ") and d[0].endswith(" Mutation")]
    assert len(lost) == 2, lost


def test_the_cancel_finding_still_reproduces_from_its_seed() -> None:
    record = run_one(RunSpec(kind="refine", seed=41))
    assert record.outcome.cause is not None
    assert known_finding(record.outcome.cause.klass) is BY_ID["cancel-after-mid"]
    assert run_one(RunSpec(kind="refine", seed=41, fixes=frozenset({"two-epoch-cancel"}))).outcome.valid


@pytest.mark.parametrize(("finding_id", "topology", "ops"), [
    ("nts-rack-composition", "nts-rack-composition.json", "nts-rack-composition-ops.json"),
    ("unregister-prepared-join", "cep21-rf3-ring.json", "unregister-prepared-join.json"),
])
def test_an_operations_finding_disappears_with_its_fix(finding_id: str, topology: str, ops: str) -> None:
    """Faithfully, some state breaks the finding's invariant; with the fix the operator's
    conflicting step is refused and no state breaks any invariant."""
    finding = BY_ID[finding_id]
    invariant = finding.cause_classes[0].removeprefix("invariant ")
    topo = load_topology(EXAMPLES / topology)
    operations = load_operations(EXAMPLES / ops, topo)
    faithful = run_operations(topo, operations)
    assert any(v.startswith(invariant) for m in faithful.states for v in check_invariants(m))
    fixed = run_operations(topo, operations, frozenset({finding.fix}))
    assert fixed.rejection is not None and f"(fix {finding.fix})" in fixed.rejection
    assert all(check_invariants(m) == () for m in fixed.states)


def test_a_refine_campaign_with_every_fix_fails_nowhere() -> None:
    records = campaign(24, 5, kinds=("refine",), fixes=F.METADATA_FIXES)
    assert [r.outcome.cause for r in records if not r.outcome.valid] == []


@pytest.mark.slow
@pytest.mark.parametrize("fix", sorted(F.METADATA_FIXES))
def test_each_fix_alone_brings_no_new_failure(fix: str) -> None:
    """With one fix on, a refine campaign fails only with the other findings."""
    records = campaign(150, 11, kinds=("refine",), fixes=frozenset({fix}))
    new = [r.outcome.cause for r in records
           if r.outcome.cause is not None and known_finding(r.outcome.cause.klass, {fix}) is None]
    assert new == []


@pytest.mark.parametrize(("args", "code"), [
    (["placements", "examples/nts-rack-composition.json", "--ops", "examples/nts-rack-composition-ops.json"], 0),
    (["placements", "examples/nts-rack-composition.json", "--ops", "examples/nts-rack-composition-ops.json",
      "--fix", "composition-guard"], 2),  # the guard refuses a step: a refused step is exit 2
    (["replay", "examples/findings/cross-dc-replace.json"], 1),
    (["replay", "examples/findings/cross-dc-replace.json", "--fix", "replace-same-dc"], 0),
    (["replay", "examples/findings/cross-dc-replace.json", "--fix", "no-such-fix"], 2),
    # the RF 3 monotonic-read counterexample (issue 33): the finding, then gone with its fix
    (["replay", "examples/findings/monotonic-read-across-movement.json"], 1),
    (["replay", "examples/findings/monotonic-read-across-movement.json", "--fix", "read-repair-pending"], 0),
    (["fuzz", "--runs", "1", "--fix", "no-such-fix"], 2),
])
def test_fix_option_on_the_commands(args: list[str], code: int, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from campaign.cli import main

    monkeypatch.chdir(EXAMPLES.parent)
    assert main(args) == code
    err = capsys.readouterr().err
    if "no-such-fix" in args:
        assert "unknown fix 'no-such-fix'" in err
    elif code == 2:
        assert "(fix composition-guard)" in err


VARIANTS = sorted((p.parent.name, p.stem) for p in (EXAMPLES / "findings").glob("*/*.json"))


@pytest.mark.parametrize(("finding_id", "variant"), VARIANTS)
def test_each_variant_of_a_finding_shows_it_and_passes_with_its_fix(finding_id: str, variant: str) -> None:
    """examples/findings/<id>/<variant>.json: the other ways to a finding (cancel-after-mid's
    move, leave, replace and remove; leave-while-joining-cms's replace), each its own failure file."""
    finding = BY_ID[finding_id]
    doc = json.loads((EXAMPLES / "findings" / finding_id / f"{variant}.json").read_text())
    faithful = checked(RunSpec(kind=doc["kind"], seed=doc["seed"], case=doc["case"]))
    assert faithful.cause is not None
    assert known_finding(faithful.cause.klass) is finding, faithful.cause
    fixed = checked(RunSpec(kind=doc["kind"], seed=doc["seed"], case=doc["case"], fixes=frozenset({finding.fix})))
    assert fixed.valid, fixed.cause
