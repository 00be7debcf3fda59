"""The known finding `cancel-after-mid` (campaign/known_findings.py), pinned down.

CANCEL_SEQUENCE reverts every applied step in one epoch, as the issue specifies and Cassandra's
BootstrapAndJoin.cancel does. After START that is safe; after MID the reads move back and the
writes narrow at once, so a MID-epoch read and a cancel-epoch write can miss each other. When
cancel changes, this test fails on purpose: update the finding with it.
"""

from __future__ import annotations

import pytest

from checkers.quorum.from_spec import history_from_states
from checkers.quorum.z3prover import prove_history
from spec.consistency import ConsistencyLevel
from spec.operations import Cancel, Join
from spec.replication import SimpleStrategy
from spec.sequences import Step
from tests.spec.helpers import node, ring, run


def verdict_of_cancel_after(until: Step) -> bool | str:
    topo = ring(node("A", 100), replication=SimpleStrategy(replication_factor=1))
    states = run(topo, Join(node=node("X", 50), until=until), Cancel(node="X")).states
    verdict = prove_history(history_from_states(states), read_cl=ConsistencyLevel.QUORUM,
                            write_cl=ConsistencyLevel.QUORUM, window=1)
    return verdict.valid


@pytest.mark.parametrize("until", [Step.PREPARE, Step.START])
def test_cancel_before_mid_keeps_consecutive_quorums_intersecting(until: Step) -> None:
    assert verdict_of_cancel_after(until) is True


def test_cancel_after_mid_lets_a_read_and_a_write_miss_each_other() -> None:
    """RF 1: reads {X} at the MID epoch, writes {A} at the cancel epoch."""
    assert verdict_of_cancel_after(Step.MID) is False
