"""The progress barrier's participants are found by bisection (checkers/quorum/from_spec.py
`_containing`); they are exactly those a scan of every range finds, on generated runs."""

from __future__ import annotations

import random

import pytest

from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from campaign.kinds.refine import generate
from checkers.quorum.from_spec import locked_barriers
from spec.metadata import ClusterMetadata
from spec.sequences import OperationKind
from spec.transformations import Rejected


def scanned(m: ClusterMetadata, node: str) -> tuple[tuple[str, object, frozenset[str]], ...] | None:
    """The barrier as the scan computed it before the bisection."""
    seq = m.in_progress.get(node)  # type: ignore[arg-type]
    if seq is None:
        return None
    excluded: frozenset[str] = frozenset()
    if seq.kind is OperationKind.REPLACE and seq.replaced is not None:
        excluded = frozenset({seq.replaced})
    elif seq.kind is OperationKind.REMOVE:
        excluded = frozenset({seq.node})
    out = []
    for ks, locked in seq.affected.by_keyspace:
        if ks not in m.placements.keyspaces():
            continue
        placement = m.placements.get(ks)
        for lock in locked:
            members: set[str] = set()
            for groups in (placement.reads, placement.writes):
                for r, replicas in groups.entries:
                    if r.contains(lock):
                        members |= replicas
            out.append((ks, lock, frozenset(members) - excluded))
    return tuple(out)


@pytest.mark.parametrize("seed", range(40))
def test_bisected_barrier_participants_equal_a_scan_of_every_range(seed: int) -> None:
    case = generate(random.Random(seed))
    m = ClusterMetadata.initial(parse_topology(case["topology"]))
    compared = 0  # counted for debugging; the guard test below asserts runs have sequences
    for raw in case["transformations"]:
        result = parse_transformation(raw).execute(m)
        if isinstance(result, Rejected):
            continue
        m = result.metadata
        for node in sorted({s.node for s in m.in_progress.sequences()}):
            fast = locked_barriers(m, node)
            assert fast is not None
            assert tuple((b.keyspace, b.range, b.participants) for b in fast) == scanned(m, node)
            compared += 1


def test_the_generated_runs_have_sequences_in_flight_to_compare() -> None:
    """Guard: the comparison above is not vacuous."""
    seen = 0
    for seed in range(40):
        case = generate(random.Random(seed))
        m = ClusterMetadata.initial(parse_topology(case["topology"]))
        for raw in case["transformations"]:
            result = parse_transformation(raw).execute(m)
            if not isinstance(result, Rejected):
                m = result.metadata
                seen += sum(1 for _ in m.in_progress.sequences())
    assert seen > 100
