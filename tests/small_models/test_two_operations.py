"""Exhaustive small models: every interleaving of the steps of two operations on a small ring.

Five nodes at 100..500 (RF 2 and RF 3), two operations at a time out of join, leave, move and
replace, all C(8,4) = 70 orders of their eight steps. Each order either commits every step or
stops at a refusal (range locks, composition); every state reached satisfies every invariant,
a fully committed order ends at the placements computed from scratch, and QUORUM reads and
writes intersect across every pair of consecutive epochs (Z3).
"""

from __future__ import annotations

from itertools import combinations

import pytest

from checkers.quorum.from_spec import history_from_states
from checkers.quorum.z3prover import prove_history
from spec.consistency import ConsistencyLevel
from spec.invariants import check_invariants
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId
from spec.replication import SimpleStrategy
from spec.transformations import (
    FinishJoin,
    FinishLeave,
    FinishMove,
    FinishReplace,
    MidJoin,
    MidLeave,
    MidMove,
    MidReplace,
    PrepareJoin,
    PrepareLeave,
    PrepareMove,
    PrepareReplace,
    Register,
    Rejected,
    StartJoin,
    StartLeave,
    StartMove,
    StartReplace,
    Transformation,
)
from tests.spec.helpers import node, ring

OPERATIONS: dict[str, tuple[Transformation, ...]] = {
    "join X@150": (PrepareJoin(node="X", tokens=(150,)), StartJoin(node="X"), MidJoin(node="X"), FinishJoin(node="X")),
    "join Y@450": (PrepareJoin(node="Y", tokens=(450,)), StartJoin(node="Y"), MidJoin(node="Y"), FinishJoin(node="Y")),
    "leave B": (PrepareLeave(node="B"), StartLeave(node="B"), MidLeave(node="B"), FinishLeave(node="B")),
    "move D to 350": (PrepareMove(node="D", tokens=(350,)), StartMove(node="D"), MidMove(node="D"), FinishMove(node="D")),
    "replace E by R": (PrepareReplace(node="R", replaced="E"), StartReplace(node="R"), MidReplace(node="R"),
                       FinishReplace(node="R")),
}


def start(rf: int) -> ClusterMetadata:
    m = ClusterMetadata.initial(ring(*(node(n, t) for n, t in zip("ABCDE", range(100, 600, 100), strict=True)),
                                     replication=SimpleStrategy(replication_factor=rf)))
    for new in ("X", "Y", "R"):
        result = Register(node=NodeId(new), location=Location(dc="dc1", rack="r1")).execute(m)
        assert not isinstance(result, Rejected)
        m = result.metadata
    return m


def interleavings(a: tuple[Transformation, ...], b: tuple[Transformation, ...]) -> list[list[Transformation]]:
    n = len(a) + len(b)
    out = []
    for slots in combinations(range(n), len(a)):
        ia, ib = iter(a), iter(b)
        out.append([next(ia) if i in slots else next(ib) for i in range(n)])
    return out


@pytest.mark.parametrize("rf", [2, 3])
@pytest.mark.parametrize(("first", "second"), list(combinations(sorted(OPERATIONS), 2)))
def test_every_interleaving_of_two_operations_keeps_the_invariants_and_quorums(rf: int, first: str, second: str) -> None:
    m0 = start(rf)
    completed = refused = 0
    for order in interleavings(OPERATIONS[first], OPERATIONS[second]):
        states = [m0]
        for t in order:
            result = t.execute(states[-1])
            if isinstance(result, Rejected):
                refused += 1
                break
            states.append(result.metadata)
            assert check_invariants(result.metadata) == (), (order, t)
        else:
            completed += 1
            assert states[-1].placements == states[-1].placements_from_scratch()
        verdict = prove_history(history_from_states(states), read_cl=ConsistencyLevel.QUORUM,
                                write_cl=ConsistencyLevel.QUORUM, window=1)
        assert verdict.valid is True, (order, verdict.counterexamples[:1])
    assert completed + refused == 70
    assert completed >= 1  # sequential order always commits
