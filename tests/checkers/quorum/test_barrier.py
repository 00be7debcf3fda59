"""The progress-barrier theorem (checkers/quorum/barrier.py).

CEP-21, "Catching Up": "for any range and any majority of nodes that currently replicate or have
previously replicated it, a coordinator that is lagging behind by an arbitrary number of epochs,
will not be able to collect a quorum for read or write that is inconsistent with a quorum
obtained using metadata that is up to date with the latest epoch affecting replication of that
range."
"""

from __future__ import annotations

from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from checkers.quorum.barrier import StaleWitness, prove_barrier, stale_conflict, versions
from checkers.quorum.exhaustive import minimal_quorums
from checkers.quorum.levels import QuorumRule, barrier_rule, read_rule, write_rule
from checkers.quorum.verdict import STALE_COORDINATOR, UNSAFE_BY_DESIGN
from spec.consistency import ConsistencyLevel as CL
from spec.replication import SimpleStrategy
from spec.tokens import Range
from tests.checkers.quorum.rings import RF3_BEFORE, history, rf3_join_x

RF3 = SimpleStrategy(replication_factor=3)


def test_an_each_quorum_barrier_protects_a_coordinator_lagging_any_number_of_epochs() -> None:
    v = prove_barrier(rf3_join_x())
    assert v.valid is True and not v.counterexamples


def test_a_quorum_barrier_is_enough_in_one_dc() -> None:
    assert prove_barrier(rf3_join_x(), barrier_cl=CL.QUORUM).valid is True


def test_a_barrier_at_one_lets_a_stale_read_miss_the_newest_write() -> None:
    """The CEP's example once the barrier is weakened: a read of B,D at StartJoin's epoch and a
    write of C,X at FinishJoin's, while only X had acknowledged MidJoin."""
    h = rf3_join_x()
    v = prove_barrier(h, barrier_cl=CL.ONE)
    assert v.valid is False and v.cause == STALE_COORDINATOR
    [c] = [c for c in v.counterexamples if (c.range, c.read_epoch, c.write_epoch) == (Range(100, 150), 3, 5)]
    assert (c.read_quorum, c.write_quorum) == (("B", "D"), ("C", "X"))
    seen = dict(c.knowledge)
    assert all(seen[n] <= 3 for n in c.read_quorum)  # the stale replicas reveal nothing newer
    assert sum(1 for e in seen.values() if e >= 4) >= 1  # one replica acknowledged MidJoin (epoch 4)


def test_without_lag_the_barrier_mode_reports_unsafe_levels_by_design() -> None:
    v = prove_barrier(rf3_join_x(), read_cl=CL.ONE, write_cl=CL.ONE)
    assert v.valid is False and v.cause == UNSAFE_BY_DESIGN


def test_versions_are_runs_of_epochs_with_the_same_groups() -> None:
    h = rf3_join_x()
    placements = [(e.epoch, ks) for e in h.epochs if (ks := e.keyspace("ks")) is not None]
    assert [v.first_epoch for v in versions(placements, 150)] == [0, 3, 4, 5]
    assert [v.first_epoch for v in versions(placements, 200)] == [0]


def test_barrier_mode_checks_cms_membership_too() -> None:
    steps = [("A", "A"), ("A", "AB"), ("AB", "AB")]
    assert prove_barrier(history([RF3_BEFORE] * 3, cms=steps)).valid is True
    jump = [("A", "A"), ("ABC", "ABC")]
    assert prove_barrier(history([RF3_BEFORE] * 2, cms=jump)).valid is False


# ---- cross-check of the z3 encoding against brute force over knowledge assignments

def brute_force(stale: QuorumRule, fresh: QuorumRule, barriers: list[QuorumRule]) -> bool:
    """Is there a knowledge assignment letting a stale quorum miss a fresh one? (by enumeration)"""
    nodes = sorted(stale.group | fresh.group | frozenset().union(*(b.group for b in barriers)))
    stale_qs, fresh_qs = minimal_quorums(stale), minimal_quorums(fresh)
    barrier_qs = [minimal_quorums(b) for b in barriers]
    pairs = [(s, f) for s in stale_qs for f in fresh_qs if s.isdisjoint(f)]
    if not pairs:
        return False
    for levels in product(range(len(barriers) + 1), repeat=len(nodes)):
        level = dict(zip(nodes, levels, strict=True))
        if not all(any(all(level[n] >= j for n in q) for q in qs) for j, qs in enumerate(barrier_qs)):
            continue
        if any(all(level[n] == 0 for n in s) for s, _ in pairs):
            return True
    return False


def check_witness(w: StaleWitness, stale: QuorumRule, fresh: QuorumRule, barriers: list[QuorumRule]) -> None:
    level = dict(w.knowledge)
    assert stale.accepts(w.stale) and fresh.accepts(w.fresh)
    assert not set(w.stale) & set(w.fresh)
    assert all(level[n] == 0 for n in w.stale)
    for j, b in enumerate(barriers):
        assert b.accepts(n for n in b.group if level[n] >= j)


GROUPS = st.sets(st.sampled_from("ABCDE"), min_size=1, max_size=4)


@st.composite
def range_histories(draw: st.DrawFn) -> list[tuple[frozenset[str], frozenset[str]]]:
    out = []
    for _ in range(draw(st.integers(2, 3))):
        reads = draw(GROUPS)
        out.append((frozenset(reads), frozenset(reads | draw(st.sets(st.sampled_from("ABCDE"), max_size=1)))))
    return out


SIMPLE_LEVELS = st.sampled_from([CL.ONE, CL.TWO, CL.QUORUM, CL.ALL, CL.EACH_QUORUM, CL.LOCAL_QUORUM])


@given(range_histories(), SIMPLE_LEVELS, SIMPLE_LEVELS, st.sampled_from([CL.ONE, CL.QUORUM, CL.EACH_QUORUM, CL.ALL]),
       st.booleans(), st.sampled_from([{}, {"D": "dc2", "E": "dc2"}]))
def test_the_barrier_encoding_agrees_with_brute_force(
    vs: list[tuple[frozenset[str], frozenset[str]]], read_cl: CL, write_cl: CL, barrier_cl: CL,
    stale_reads: bool, dc2: dict[str, str],
) -> None:
    dc_of = {n: dc2.get(n, "dc1") for n in "ABCDE"}
    m = len(vs) - 1
    reads0, writes0 = vs[0]
    reads_m, writes_m = vs[m]
    if stale_reads:
        stale = read_rule(read_cl, RF3, reads0, dc_of, "dc1")
        fresh = write_rule(write_cl, RF3, reads_m, writes_m, dc_of, "dc1")
    else:
        stale = write_rule(write_cl, RF3, reads0, writes0, dc_of, "dc1")
        fresh = read_rule(read_cl, RF3, reads_m, dc_of, "dc1")
    barriers = [barrier_rule(barrier_cl, r | w, dc_of, "dc1") for r, w in vs[:m]]
    found = stale_conflict(stale, fresh, barriers)
    assert found != "unknown"
    assert (found is not None) == brute_force(stale, fresh, barriers)
    if isinstance(found, StaleWitness):
        check_witness(found, stale, fresh, barriers)
