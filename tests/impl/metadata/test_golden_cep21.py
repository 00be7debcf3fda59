"""The CEP-21 worked examples: join of X at 150 into A=100, B=200, C=300 (SimpleStrategy RF 2),
then its decommission. Each row is the CEP's table, epoch by epoch."""

from __future__ import annotations

import pytest

from impl.metadata import Metadata
from tests.impl.metadata.helpers import groups, ok, register, rw, topology

RING = topology([("A", 100), ("B", 200), ("C", 300)])

# (state, {(left, right): (reads, writes)}) -- the CEP's table plus the untouched (200, 300].
JOIN_TABLE = [
    ("before", {(300, 100): rw("AB", "AB"), (100, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
    ("PREPARE_JOIN", {(300, 100): rw("AB", "AB"), (100, 150): rw("BC", "BC"), (150, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
    ("START_JOIN", {(300, 100): rw("AB", "ABX"), (100, 150): rw("BC", "BCX"), (150, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
    ("MID_JOIN", {(300, 100): rw("AX", "ABX"), (100, 150): rw("XB", "BCX"), (150, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
    ("FINISH_JOIN", {(300, 100): rw("AX", "AX"), (100, 150): rw("XB", "XB"), (150, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
]  # fmt: skip

LEAVE_TABLE = [
    ("PREPARE_LEAVE", JOIN_TABLE[-1][1]),
    ("START_LEAVE", {(300, 100): rw("AX", "AXB"), (100, 150): rw("XB", "XBC"), (150, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
    ("MID_LEAVE", {(300, 100): rw("AB", "AXB"), (100, 150): rw("BC", "XBC"), (150, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
    ("FINISH_LEAVE", {(300, 100): rw("AB", "AB"), (100, 200): rw("BC", "BC"), (200, 300): rw("CA", "CA")}),
]  # fmt: skip


def _joined_x() -> list[Metadata]:
    m = ok(Metadata.from_topology(RING), register("X"))
    states = [m]
    m = ok(m, {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]})
    states.append(m)
    for step in ("START", "MID", "FINISH"):
        m = ok(m, {"kind": f"{step}_JOIN", "node": "X"})
        states.append(m)
    return states


@pytest.mark.parametrize("index", range(len(JOIN_TABLE)), ids=[row[0] for row in JOIN_TABLE])
def test_join_of_x_follows_the_cep_table(index: int) -> None:
    """CEP: "StartJoin ... X is added to write groups; MidJoin ... reads switch; FinishJoin ...
    old owners leave write groups"."""
    assert groups(_joined_x()[index]) == JOIN_TABLE[index][1]


def test_decommission_of_x_follows_the_cep_table() -> None:
    """CEP "Decommission": the reverse; (100,150] and (150,200] merge once 150 leaves the ring."""
    m = _joined_x()[-1]
    m = ok(m, {"kind": "PREPARE_LEAVE", "node": "X"})
    assert groups(m) == LEAVE_TABLE[0][1]
    for state, expected in LEAVE_TABLE[1:]:
        m = ok(m, {"kind": state, "node": "X"})
        assert groups(m) == expected, state
    assert m.node_state("X").value == "LEFT"
    assert m.tokens_of("X") == ()
    assert not m.sequences


def test_join_states_and_tokens_move_at_the_right_epochs() -> None:
    states = _joined_x()
    assert [s.epoch for s in states] == [1, 2, 3, 4, 5]
    assert [s.node_state("X").value for s in states] == [
        "REGISTERED", "REGISTERED", "BOOTSTRAPPING", "BOOTSTRAPPING", "JOINED",
    ]  # fmt: skip  # StartJoin, not PrepareJoin, makes it BOOTSTRAPPING
    assert [s.tokens_of("X") for s in states] == [(), (), (), (), (150,)]
    assert states[2].pending_replicas("ks", 120) == ("X",)
    assert states[2].read_replicas("ks", 120) == ("B", "C")
    assert states[3].read_replicas("ks", 120) == ("B", "X")
    assert states[3].pending_replicas("ks", 120) == ("C",)
    assert states[3].write_replicas("ks", 50) == ("A", "B", "X")
    assert states[4].write_replicas("ks", 50) == ("A", "X")


def test_join_locks_its_ranges_until_finish() -> None:
    states = _joined_x()
    locked = states[1].locked_ranges()["X"]
    (key,) = locked
    spans = {(r.left, r.right) for r in locked[key]}
    # the changed ranges and the pre-split range (100, 200]
    assert {(300, 100), (100, 150), (100, 200)} <= spans
    assert (150, 200) not in spans
    assert states[-1].locked_ranges() == {}


def test_rf3_ring_join_reaches_the_expected_final_placement() -> None:
    """The CEP's consistency example ring (A..D, RF 3) joining X at 150."""
    m = Metadata.from_topology(
        topology(
            [("A", 100), ("B", 200), ("C", 300), ("D", 400)],
            {"ks": {"class": "SimpleStrategy", "replication_factor": 3}},
        )
    )
    m = ok(m, register("X"))
    m = ok(m, {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]})
    start = ok(m, {"kind": "START_JOIN", "node": "X"})
    assert groups(start)[(100, 150)] == rw("BCD", "BCDX")
    mid = ok(start, {"kind": "MID_JOIN", "node": "X"})
    finish = ok(mid, {"kind": "FINISH_JOIN", "node": "X"})
    assert groups(finish)[(100, 150)] == rw("XBC", "XBC")
    assert groups(finish)[(400, 100)] == rw("AXB", "AXB")
    assert groups(finish)[(300, 400)] == rw("DAX", "DAX")
    assert groups(finish)[(200, 300)] == rw("CDA", "CDA")
