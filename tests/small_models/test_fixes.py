"""Each finding's proposed fix removes its finding and brings nothing new.

The findings reproduce with Cassandra's rules (the default) from their recorded counterexamples;
with the matching `--fix` the same input runs clean. A short refine campaign with every fix on
fails nowhere (a longer one per fix runs under the `slow` marker).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.formats.ops import load_operations
from campaign.formats.topology import load_topology
from campaign.fuzz import run_campaign
from campaign.known_findings import KNOWN_FINDINGS, known_finding
from campaign.runs import run_one
from campaign.shrink import cause_class
from spec import fixes as F
from spec.invariants import check_invariants
from spec.operations import run_operations

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BY_ID = {f.id: f for f in KNOWN_FINDINGS}
REFINE_SEEDS = {"cancel-after-mid": 41, "replace-cms-member": 801002462, "cross-dc-replace": 801002478}


def test_every_finding_has_a_fix_and_every_fix_a_finding() -> None:
    assert {f.fix for f in KNOWN_FINDINGS} <= set(F.FIXES)
    assert {F.FINDING_FIXES[f.id] for f in KNOWN_FINDINGS} == {f.fix for f in KNOWN_FINDINGS}


@pytest.mark.parametrize("finding_id", sorted(REFINE_SEEDS))
def test_a_refine_finding_disappears_with_its_fix(finding_id: str) -> None:
    finding, seed = BY_ID[finding_id], REFINE_SEEDS[finding_id]
    assert finding.replay.endswith(f"--seed {seed}")
    faithful = run_one("refine", seed)
    assert not faithful.outcome.valid
    assert known_finding(cause_class(faithful.outcome.cause)) is finding
    fixed = run_one("refine", seed, fixes=frozenset({finding.fix}))
    assert fixed.outcome.valid, fixed.outcome.cause


@pytest.mark.parametrize(("finding_id", "topology", "ops"), [
    ("nts-rack-composition", "nts-rack-composition.json", "nts-rack-composition-ops.json"),
    ("unregister-prepared-join", "cep21-rf3-ring.json", "unregister-prepared-join.json"),
])
def test_an_operations_finding_disappears_with_its_fix(finding_id: str, topology: str, ops: str) -> None:
    """Faithfully, some state breaks the finding's invariant; with the fix the operator's
    conflicting step is refused and no state breaks any invariant."""
    finding = BY_ID[finding_id]
    invariant = finding.cause_class.removeprefix("invariant ")
    topo = load_topology(EXAMPLES / topology)
    operations = load_operations(EXAMPLES / ops, topo)
    faithful = run_operations(topo, operations)
    assert any(v.startswith(invariant) for m in faithful.states for v in check_invariants(m))
    fixed = run_operations(topo, operations, frozenset({finding.fix}))
    assert fixed.rejection is not None and f"(fix {finding.fix})" in fixed.rejection
    assert all(check_invariants(m) == () for m in fixed.states)


def test_a_refine_campaign_with_every_fix_fails_nowhere() -> None:
    records = run_campaign(24, 5, kinds=("refine",), fixes=F.METADATA_FIXES)
    assert [r.outcome.cause for r in records if not r.outcome.valid] == []


@pytest.mark.slow
@pytest.mark.parametrize("fix", sorted(F.METADATA_FIXES))
def test_each_fix_alone_brings_no_new_failure(fix: str) -> None:
    """With one fix on, a refine campaign fails only with the other findings."""
    records = run_campaign(150, 11, kinds=("refine",), fixes=frozenset({fix}))
    new = [r.outcome.cause for r in records
           if not r.outcome.valid and known_finding(cause_class(r.outcome.cause), {fix}) is None]
    assert new == []
