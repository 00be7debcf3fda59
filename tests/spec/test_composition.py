"""Concurrent sequences must compose: their deltas together must end at the natural placement.

Found by a random search: with NetworkTopologyStrategy the rack rule makes a walk depend on nodes
far along it, so a join and a move on disjoint locked ranges can together change a range that
neither changes alone.
"""

from __future__ import annotations

import pytest

from spec import ownership
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId
from spec.operations import Resume, run_operations
from spec.replication import NetworkTopologyStrategy
from spec.transformations import PrepareJoin, PrepareMove, Register, Rejected, Success
from tests.spec.helpers import node, ring

TOPOLOGY = ring(node("n0", 41), node("n1", 105, 192), node("n2", 133), node("n3", 129, rack="r3"),
                node("n4", 53, 79, rack="r3"), node("n5", 18, 33), node("n6", 17, rack="r3"),
                replication=NetworkTopologyStrategy.of({"dc1": 3}))


def join_prepared() -> ClusterMetadata:
    m = ClusterMetadata.initial(TOPOLOGY)
    r = Register(node=NodeId("X"), location=Location(dc="dc1", rack="r3")).execute(m)
    assert isinstance(r, Success)
    r = PrepareJoin(node="X", tokens=(161,)).execute(r.metadata)
    assert isinstance(r, Success)
    return r.metadata


def test_a_prepare_whose_deltas_would_not_compose_is_rejected() -> None:
    verdict = PrepareMove(node="n5", tokens=(5,)).execute(join_prepared())
    assert isinstance(verdict, Rejected)
    assert verdict.reason == "n5: PREPARE_MOVE does not compose with the sequence of X"


def test_without_the_composition_guard_both_operations_end_off_the_natural_placement(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard is what keeps "at rest, placements == computed from scratch" true here."""
    monkeypatch.setattr(ownership, "non_composing", lambda m, new: None)
    prepared = PrepareMove(node="n5", tokens=(5,)).execute(join_prepared())
    assert isinstance(prepared, Success)
    final = run_operations(prepared.metadata, [Resume(node="X"), Resume(node="n5")]).final
    assert not final.in_progress
    assert final.placements != final.placements_from_scratch()
