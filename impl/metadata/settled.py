"""ClusterMetadata.writePlacementAllSettled (trunk 6bbe85ef; CASSANDRA-19193's fix): the write
placement a keyspace will have once every in-progress sequence has finished, found by stepping
through them — each sequence's remaining steps applied in turn (`MultiStepOperation.applyTo`) —
rather than recomputed from a proposed token map. Cassandra's only consumer is
`DiskBoundaryManager.getLocalRanges` (which ranges a node's data directories split); the harness
has no disks, so the refine run compares this value with the spec's at every step (the fix's own
test property, `MetadataChangeSimulationTest.testPlacementsAllSettled`).

Sequences are stepped in node order (Cassandra's `InProgressSequences.iterator()` is insertion
order; sequences on disjoint locked ranges give the same result either way).
"""

from __future__ import annotations

from typing import Any

from impl.metadata.metadata import Metadata, placement_from_scratch
from impl.metadata.records import LEAVE, REMOVE, STEPS
from impl.metadata.results import Rejected
from impl.metadata.sequences import step
from spec.nodes import NodeState


def write_placement_all_settled(m: Metadata) -> dict[str, Any] | None:
    """{keyspace: write groups as placements JSON} once every sequence has finished; None when a
    remaining step would not apply (Cassandra asserts it does)."""
    cur = m
    for node in sorted(m.sequences):
        seq = cur.sequences.get(node)
        if seq is None:
            continue
        op = "LEAVE" if seq.kind in (LEAVE, REMOVE) else seq.kind
        for step_name in STEPS[STEPS.index(seq.next_step):]:
            result = step(cur, {"kind": f"{step_name}_{op}", "node": node})
            if isinstance(result, Rejected):
                return None
            cur = result.metadata
    return {ks: groups["writes"] for ks, groups in cur.placements_json().items()}


def write_placement_from_token_map(m: Metadata) -> dict[str, Any]:
    """The value before CASSANDRA-19193: a token map proposed from the node states —
    BOOTSTRAPPING nodes get their join's tokens, LEAVING nodes are removed, MOVING nodes are
    removed and given their current tokens back ("todo: add tests for move!"), a replace is not
    looked at — and the placements computed from it from scratch."""
    tm = m.token_map
    for node, rec in sorted(m.directory.items()):
        seq = m.sequences.get(node)
        if rec.state is NodeState.BOOTSTRAPPING and seq is not None:
            tm = tm.with_tokens(node, seq.tokens, (rec.dc, rec.rack))
        elif rec.state is NodeState.LEAVING:
            tm = tm.without_node(node)
        elif rec.state is NodeState.MOVING:
            tm = tm.without_node(node).with_tokens(node, m.token_map.tokens_of(node), (rec.dc, rec.rack))
    return {name: placement_from_scratch(m.keyspaces[name].replication, tm).groups_json()["writes"]
            for name in sorted(m.keyspaces)}


__all__ = ["write_placement_all_settled", "write_placement_from_token_map"]
