"""The write placement each keyspace will have once every in-progress sequence has finished
(Cassandra's ClusterMetadata.writePlacementAllSettled, as fixed by CASSANDRA-19193): each
sequence's remaining steps applied in turn, in node order. The refine run compares impl's value
with this one at every step."""

from __future__ import annotations

from spec.metadata import ClusterMetadata
from spec.placement import ReplicaGroups
from spec.sequences import Step
from spec.transformations import Rejected, step_of


def write_placement_all_settled(m: ClusterMetadata) -> dict[str, ReplicaGroups] | None:
    """{keyspace: write groups} after every sequence's remaining steps; None when one would not
    apply."""
    cur = m
    for seq in sorted(m.in_progress.sequences(), key=lambda s: s.node):
        for step in (Step.START, Step.MID, Step.FINISH):
            if step < seq.next_step:
                continue
            result = step_of(seq.kind, step, seq.node).execute(cur)
            if isinstance(result, Rejected):
                return None
            cur = result.metadata
    return {ks: p.writes for ks, p in cur.placements.items()}


__all__ = ["write_placement_all_settled"]
