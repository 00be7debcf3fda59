"""Every known finding has a rule saying when a plan meets it: a finding added to
campaign/run/findings.py without one makes `tcmcheck plan` fail loudly, not skip it."""

from __future__ import annotations

import pytest
from attrs import evolve

from campaign.formats.topology import parse_topology
from campaign.operator.plan_findings import RULES, applied_findings
from campaign.run.findings import ALL_FINDINGS
from spec.consistency import ConsistencyLevel
from spec.metadata import ClusterMetadata
from spec.operations import run_operations
from spec.topology import Topology


def test_every_known_finding_has_exactly_one_rule() -> None:
    assert set(RULES) == {f.id for f in ALL_FINDINGS}


def test_a_finding_without_a_rule_is_an_error_not_a_silence() -> None:
    topo: Topology = parse_topology({"nodes": [{"id": "A", "dc": "dc1", "rack": "r1", "tokens": [1]}], "keyspaces": []})
    start = ClusterMetadata.initial(topo)
    unknown = evolve(ALL_FINDINGS[0], id="a-new-finding")
    with pytest.raises(KeyError):
        applied_findings(command="decommission", node="A", operation=None, start=start, run=run_operations(start, ()),
                         refused=False, transfers=0, no_source=0, halts=None,
                         barrier_min_cl=ConsistencyLevel.EACH_QUORUM, read_cl=ConsistencyLevel.QUORUM,
                         findings=(unknown,))
