"""Findings reached through the simulated operator paths, not only by direct submissions."""

from __future__ import annotations

import json
from pathlib import Path

from campaign.kinds import checked
from campaign.run.findings import known_finding
from campaign.run.record import RunSpec

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_a_stale_abortbootstrap_unregisters_a_node_with_a_prepared_join() -> None:
    # n5, cut off since before j1's PREPARE_JOIN, runs nodetool abortbootstrap once it has
    # convicted the crashed j1: its view has no sequence, so it only unregisters, and the CMS
    # accepts the Unregister on the newest metadata (finding unregister-prepared-join)
    case = json.loads((EXAMPLES / "unregister-prepared-join-sim.json").read_text())
    out = checked(RunSpec(kind="sim", seed=1, case=case))
    assert out.cause is not None and out.cause.klass == "invariant sequences_name_registered_nodes"
    finding = known_finding(out.cause.klass)
    assert finding is not None and finding.id == "unregister-prepared-join" and finding.klass == "bug"
    assert checked(RunSpec(kind="sim", seed=1, case=case, fixes=frozenset({"unregister-idle-only"}))).valid
