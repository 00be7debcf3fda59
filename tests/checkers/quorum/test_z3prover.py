"""The Z3 prover of read/write quorum intersection across epochs (checkers/quorum/z3prover.py).

CEP-21, "Consistency Guarantees": "Coordinator 1 makes a read request, and attempts to collect a
majority of read replicas A,B,C (read replicas for the range at epoch 101), and collects A,B.
Coordinator 2 makes a write request, and attempts to collect a majority of write replicas B,C,X
(write replicas for the range at epoch 103), and collects C,X."
"""

from __future__ import annotations

import pickle

import pytest

from checkers.quorum.levels import QuorumRule, read_rule, write_rule
from checkers.quorum.model import (
    EpochPlacements,
    History,
    KeyspacePlacement,
    NetworkTopologyStrategy,
)
from checkers.quorum.search import Witness
from checkers.quorum.verdict import (
    CMS_KEYSPACE,
    DISJOINT_ACROSS_EPOCHS,
    UNSAFE_BY_DESIGN,
    Counterexample,
    Verdict,
)
from checkers.quorum.z3prover import Z3Search, prove_history
from spec.consistency import ConsistencyLevel as CL
from spec.tokens import Range
from tests.checkers.quorum.rings import RF3_BEFORE, history, rf3_join_x

NTS33 = NetworkTopologyStrategy.of({"dc1": 3, "dc2": 3})
TWO_DCS = {"A": "dc1", "B": "dc1", "C": "dc1", "X": "dc1", "D": "dc2", "E": "dc2", "F": "dc2"}


def two_dc_ring(*tables: dict[tuple[int, int], tuple[str, str]]) -> History:
    return history(tables or ({(0, 0): ("ABCDEF", "ABCDEF")},), params=NTS33, dcs=TWO_DCS)


def assert_real(h: History, v: Verdict, read_cl: CL, write_cl: CL) -> None:
    """Every counterexample is a pair of valid, disjoint quorums at its epochs."""
    dc_of = h.dc_map()
    by_epoch = {e.epoch: e for e in h.epochs}
    for c in v.counterexamples:
        assert not set(c.read_quorum) & set(c.write_quorum)
        if c.keyspace == CMS_KEYSPACE:
            continue
        r_ks = by_epoch[c.read_epoch].keyspace(c.keyspace)
        w_ks = by_epoch[c.write_epoch].keyspace(c.keyspace)
        assert r_ks is not None and w_ks is not None
        rg, wg = r_ks.at_token(c.range.right), w_ks.at_token(c.range.right)
        assert read_rule(read_cl, r_ks.replication, rg.reads, dc_of, c.read_dc).accepts(c.read_quorum)
        assert write_rule(write_cl, w_ks.replication, wg.reads, wg.writes, dc_of, c.write_dc).accepts(c.write_quorum)


def test_consecutive_epochs_of_a_join_intersect_at_quorum() -> None:
    v = prove_history(rf3_join_x())
    assert v.valid is True and v.cause is None and not v.counterexamples
    assert v.checked > 0


def test_epochs_two_apart_reproduce_the_ceps_coordinator_example() -> None:
    h = rf3_join_x()
    v = prove_history(h, window=2)
    assert v.valid is False and v.cause == DISJOINT_ACROSS_EPOCHS
    assert Counterexample(keyspace="ks", range=Range(100, 150), read_epoch=3, write_epoch=5,
                          read_quorum=("B", "D"), write_quorum=("C", "X")) in v.counterexamples
    assert_real(h, v, CL.QUORUM, CL.QUORUM)


@pytest.mark.parametrize(("read_cl", "write_cl"), [(CL.ONE, CL.ALL), (CL.ALL, CL.ONE)])
def test_one_against_all_intersects_across_a_join(read_cl: CL, write_cl: CL) -> None:
    assert prove_history(rf3_join_x(), read_cl=read_cl, write_cl=write_cl).valid is True


def test_one_against_one_is_unsafe_by_design() -> None:
    h = rf3_join_x()
    v = prove_history(h, read_cl=CL.ONE, write_cl=CL.ONE)
    assert v.valid is False and v.cause == UNSAFE_BY_DESIGN
    assert any(c.by_design for c in v.counterexamples)
    assert_real(h, v, CL.ONE, CL.ONE)


def test_local_quorum_in_two_different_dcs_is_unsafe_by_design() -> None:
    h = two_dc_ring()
    v = prove_history(h, read_cl=CL.LOCAL_QUORUM, write_cl=CL.LOCAL_QUORUM, read_dc="dc1", write_dc="dc2")
    assert v.valid is False and v.cause == UNSAFE_BY_DESIGN
    c = v.counterexamples[0]
    assert (c.read_quorum, c.write_quorum, c.read_dc, c.write_dc) == (("A", "B"), ("D", "E"), "dc1", "dc2")
    assert_real(h, v, CL.LOCAL_QUORUM, CL.LOCAL_QUORUM)


def test_quorum_reads_against_local_quorum_writes_are_unsafe_by_design() -> None:
    h = two_dc_ring()
    v = prove_history(h, read_cl=CL.QUORUM, write_cl=CL.LOCAL_QUORUM, write_dc="dc1")
    assert v.valid is False and v.cause == UNSAFE_BY_DESIGN
    assert_real(h, v, CL.QUORUM, CL.LOCAL_QUORUM)


def test_local_quorum_in_one_dc_and_each_quorum_against_local_quorum_are_safe() -> None:
    h = two_dc_ring()
    assert prove_history(h, read_cl=CL.LOCAL_QUORUM, write_cl=CL.LOCAL_QUORUM).valid is True
    assert prove_history(h, read_cl=CL.LOCAL_QUORUM, write_cl=CL.EACH_QUORUM, read_dc="dc2").valid is True


def test_local_quorum_writes_count_local_pending_replicas_during_a_join() -> None:
    """X joins dc1: its LOCAL_QUORUM writes need 3 of A,B,C,X; reads at either epoch meet them."""
    start = {(0, 0): ("ABCDEF", "ABCXDEF")}
    mid = {(0, 0): ("BCXDEF", "ABCXDEF")}
    h = two_dc_ring({(0, 0): ("ABCDEF", "ABCDEF")}, start, mid, {(0, 0): ("BCXDEF", "BCXDEF")})
    assert prove_history(h, read_cl=CL.LOCAL_QUORUM, write_cl=CL.LOCAL_QUORUM, read_dc="dc1").valid is True
    assert prove_history(h, read_cl=CL.LOCAL_QUORUM, write_cl=CL.LOCAL_QUORUM, read_dc="dc1",
                         window=3).valid is False


def test_epochs_with_different_boundaries_are_compared_over_their_common_refinement() -> None:
    """One epoch cuts (100, 200] at 150; the pieces (100, 150] and (150, 200] are checked apart."""
    split = dict(RF3_BEFORE)
    del split[(100, 200)]
    split[(100, 150)] = ("BCD", "BCD")
    split[(150, 200)] = ("ACD", "ACD")  # a jump no real step makes: only (150, 200] changes
    h = history((RF3_BEFORE, split))
    v = prove_history(h, read_cl=CL.TWO, write_cl=CL.TWO)
    assert v.cause == DISJOINT_ACROSS_EPOCHS
    assert {(c.range, c.read_epoch, c.write_epoch) for c in v.counterexamples} == {
        (Range(150, 200), 0, 1), (Range(150, 200), 1, 0)}


def test_cms_membership_one_change_per_epoch_is_safe_and_a_jump_is_not() -> None:
    """CEP: "divergence over the state of CMS membership cannot grow larger than a single epoch"."""
    steps = [("A", "A"), ("A", "AB"), ("AB", "AB"), ("AB", "ABC"), ("ABC", "ABC")]
    h = history([RF3_BEFORE] * len(steps), cms=steps)
    assert prove_history(h).valid is True
    v = prove_history(h, window=2)
    assert v.valid is False
    assert {c.keyspace for c in v.counterexamples} == {CMS_KEYSPACE}


def test_nodes_in_the_same_class_are_counted_not_named_so_a_thousand_replicas_is_fast() -> None:
    dcs = {f"n{i:04}": f"dc{i % 3}" for i in range(1000)}
    members = frozenset(dcs)
    pending = frozenset({"n0000", "n0001"})
    nts = NetworkTopologyStrategy.of({"dc0": 333, "dc1": 333, "dc2": 333})
    reads = members - pending
    for cl in (CL.QUORUM, CL.EACH_QUORUM, CL.LOCAL_QUORUM):
        outcome = Z3Search(cache=False)(read_rule(cl, nts, reads, dcs, "dc0"),
                                        write_rule(cl, nts, reads, members, dcs, "dc0"))
        assert outcome is None
    bad = Z3Search(cache=False)(read_rule(CL.ONE, nts, reads, dcs), write_rule(CL.QUORUM, nts, reads, members, dcs))
    assert isinstance(bad, Witness) and len(bad.read_quorum) == 1 and len(bad.write_quorum) == 502


def test_a_long_history_of_one_shape_costs_few_solver_calls() -> None:
    h = history([RF3_BEFORE] * 200)
    v = prove_history(h)
    assert v.valid is True and v.solver_calls <= 2
    assert v.checked == (200 + 2 * 199) * 4  # (self + both directions) x 4 ranges


def test_solver_and_rules_agree_that_a_rule_without_quorums_is_never_unsafe() -> None:
    empty = QuorumRule(group=frozenset("AB"), requirements=())
    impossible = read_rule(CL.THREE, NTS33, frozenset("AB"), TWO_DCS)
    assert Z3Search()(impossible, empty) is None


def test_verdicts_pickle_and_compare_by_value() -> None:
    v = prove_history(rf3_join_x(), window=2)
    assert pickle.loads(pickle.dumps(v)) == v
    assert prove_history(rf3_join_x(), window=2) == v


def test_unknown_dc_and_negative_window_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown datacenter"):
        prove_history(rf3_join_x(), read_cl=CL.LOCAL_ONE, read_dc="dc9")
    with pytest.raises(ValueError, match="window"):
        prove_history(rf3_join_x(), window=-1)


def test_keyspaces_absent_at_one_epoch_are_skipped_there() -> None:
    h = rf3_join_x()
    first = h.epochs[0]
    extra = KeyspacePlacement.of("other", first.keyspaces[0].replication, [(Range(0, 0), "AB", "AB")])
    epochs = (EpochPlacements(epoch=0, keyspaces=(*first.keyspaces, extra)), *h.epochs[1:])
    v = prove_history(History(epochs=epochs, datacenters=h.datacenters))
    assert v.valid is True
