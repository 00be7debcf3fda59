"""Hypothesis properties of the spec over random topologies and random transformation sequences."""

from __future__ import annotations

from hypothesis import given, note
from hypothesis import strategies as st

from spec import fixes as F
from spec.invariants import check_invariants
from spec.metadata import ClusterMetadata
from spec.operations import Resume, run_operations
from spec.topology import Topology
from spec.transformations import CancelSequence, Rejected
from strategies.operations import transformations
from strategies.topologies import topologies


@given(topologies())
def test_initial_placements_satisfy_every_invariant(topology: Topology) -> None:
    m = ClusterMetadata.initial(topology)
    assert check_invariants(m) == ()


ALL_FIXES = F.METADATA_FIXES
"""Cassandra's rules break invariants in the known findings (docs/findings.md); with every
proposed fix they hold. Without fixes, each violation must be one a finding explains."""

FINDING_INVARIANTS = {
    "at_rest_matches_from_scratch": "nts-rack-composition",
    "sequences_name_registered_nodes": "unregister-prepared-join",
    "cms_is_consistent": "replace-cms-member",
    "reads_have_replication_factor": "cross-dc-replace",
}


@given(topologies(max_nodes=6, max_tokens=4), st.data())
def test_cassandras_rules_break_invariants_only_as_the_known_findings_do(
        topology: Topology, data: st.DataObject) -> None:
    m = ClusterMetadata.initial(topology)
    for _ in range(data.draw(st.integers(1, 25), label="steps")):
        result = data.draw(transformations(m)).execute(m)
        if isinstance(result, Rejected):
            continue
        m = result.metadata
        for violation in check_invariants(m):
            assert violation.split(":", 1)[0] in FINDING_INVARIANTS, violation


@given(topologies(max_nodes=6, max_tokens=4), st.data())
def test_every_committed_transformation_preserves_the_invariants(topology: Topology, data: st.DataObject) -> None:
    """With every proposed fix (spec.fixes)."""
    m = ClusterMetadata.initial(topology)
    for _ in range(data.draw(st.integers(1, 25), label="steps")):
        t = data.draw(transformations(m))
        result = F.execute(t, m, ALL_FIXES)
        note(f"{t!r} -> {result.reason if isinstance(result, Rejected) else 'ok'}")
        if isinstance(result, Rejected):
            continue
        assert result.metadata.epoch == m.epoch + 1
        m = result.metadata
        assert check_invariants(m) == ()


@given(topologies(max_nodes=6, max_tokens=4), st.data())
def test_finishing_or_cancelling_everything_returns_to_placements_from_scratch(
        topology: Topology, data: st.DataObject) -> None:
    """At rest reads == writes == placements computed from the token map alone (with the
    composition guard and the idle-only unregister: without them the findings break this)."""
    m = ClusterMetadata.initial(topology)
    for _ in range(data.draw(st.integers(1, 20), label="steps")):
        result = F.execute(data.draw(transformations(m)), m, ALL_FIXES)
        if not isinstance(result, Rejected):
            m = result.metadata
    for seq in list(m.in_progress.sequences()):
        if data.draw(st.booleans(), label=f"cancel {seq.node}"):
            result = CancelSequence(node=seq.node).execute(m)
            assert not isinstance(result, Rejected)
            m = result.metadata
        else:
            run = run_operations(m, [Resume(node=seq.node)], ALL_FIXES)
            assert run.rejection is None, run.rejection
            m = run.final
    assert not m.in_progress and not m.locked_ranges
    assert m.placements == m.placements_from_scratch()


@given(topologies(max_nodes=4, max_tokens=16), st.data())
def test_vnode_heavy_sequences_preserve_the_invariants(topology: Topology, data: st.DataObject) -> None:
    """Up to 16 tokens per node: many ranges per node, many splits and merges per operation."""
    m = ClusterMetadata.initial(topology)
    for _ in range(data.draw(st.integers(1, 15), label="steps")):
        result = F.execute(data.draw(transformations(m)), m, ALL_FIXES)
        if not isinstance(result, Rejected):
            m = result.metadata
            assert check_invariants(m) == ()


@given(topologies(max_nodes=6, max_tokens=4), st.data())
def test_rejections_leave_the_metadata_untouched(topology: Topology, data: st.DataObject) -> None:
    m = ClusterMetadata.initial(topology)
    for _ in range(10):
        t = data.draw(transformations(m))
        result = t.execute(m)
        assert t.execute(m) == result  # pure: same input, same answer
        if not isinstance(result, Rejected):
            m = result.metadata
