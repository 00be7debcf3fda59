"""The exhaustive simulator cross-checks the Z3 prover (STYLE.md: "The Z3 prover and the
brute-force enumerator share one signature; a test compares them").

CEP-21, Test Plan: "Quorum Intersection Simulator: a simple tool that checks if all read and
write placements in all epochs on all up nodes intersect. This tool gives an exhaustive result."
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkers.quorum import exhaustive, z3prover
from checkers.quorum.exhaustive import minimal_quorums
from checkers.quorum.levels import read_rule, write_rule
from checkers.quorum.model import (
    EpochPlacements,
    History,
    KeyspacePlacement,
    NetworkTopologyStrategy,
    ReplicationParams,
    SimpleStrategy,
)
from checkers.quorum.verdict import CMS_KEYSPACE, Verdict
from spec.consistency import ConsistencyLevel as CL
from spec.tokens import Range, ring_ranges
from tests.checkers.quorum.rings import rf3_join_x

NODES = "ABCDEF"
TOKENS = (100, 200, 300, 400)


@st.composite
def small_histories(draw: st.DrawFn) -> History:
    """1-4 epochs of one or two keyspaces over up to 6 nodes in 1-2 DCs; groups of up to 5."""
    n = draw(st.integers(2, 6))
    nodes = NODES[:n]
    dcs = {node: draw(st.sampled_from(("dc1", "dc2"))) for node in nodes}
    params = draw(st.sampled_from((
        SimpleStrategy(replication_factor=1), SimpleStrategy(replication_factor=2),
        SimpleStrategy(replication_factor=3), NetworkTopologyStrategy.of({"dc1": 2, "dc2": 1}),
        NetworkTopologyStrategy.of({"dc1": 1, "dc2": 1}), NetworkTopologyStrategy.of({"dc1": 3}),
    )))
    epochs = []
    for epoch in range(draw(st.integers(1, 4))):
        tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3, unique=True))
        keyspaces = []
        for name in ("ks", "ks2")[: draw(st.integers(1, 2))]:
            p: ReplicationParams = params if name == "ks" else SimpleStrategy(replication_factor=2)
            ranges = []
            for r in ring_ranges(tokens):
                reads = draw(st.sets(st.sampled_from(nodes), min_size=1, max_size=4))
                writes = reads | draw(st.sets(st.sampled_from(nodes), max_size=2))
                ranges.append((r, reads, writes))
            keyspaces.append(KeyspacePlacement.of(name, p, ranges))
        cms_reads = draw(st.sets(st.sampled_from(nodes), min_size=1, max_size=3))
        cms_writes = cms_reads | draw(st.sets(st.sampled_from(nodes), max_size=1))
        epochs.append(EpochPlacements(epoch=epoch, keyspaces=tuple(keyspaces),
                                      cms_reads=frozenset(cms_reads), cms_writes=frozenset(cms_writes)))
    return History.of(epochs, dcs)


LEVELS = st.sampled_from(list(CL))


def failing(v: Verdict) -> set[tuple[str, Range, int, int]]:
    return {(c.keyspace, c.range, c.read_epoch, c.write_epoch) for c in v.counterexamples}


@given(small_histories(), LEVELS, LEVELS, st.integers(0, 3), st.sampled_from((None, "dc1", "dc2")),
       st.sampled_from((None, "dc1", "dc2")))
def test_z3_and_the_exhaustive_simulator_agree_on_every_case(
    h: History, read_cl: CL, write_cl: CL, window: int, read_dc: str | None, write_dc: str | None
) -> None:
    known = set(h.dc_names())
    read_dc = read_dc if read_dc in known else None
    write_dc = write_dc if write_dc in known else None
    kwargs = dict(read_cl=read_cl, write_cl=write_cl, window=window, read_dc=read_dc, write_dc=write_dc)
    by_z3 = z3prover.prove_history(h, **kwargs)  # type: ignore[arg-type]
    by_enumeration = exhaustive.prove_history(h, **kwargs)  # type: ignore[arg-type]
    assert by_z3.valid == by_enumeration.valid
    assert by_z3.cause == by_enumeration.cause
    assert by_z3.checked == by_enumeration.checked
    assert failing(by_z3) == failing(by_enumeration)
    for c in by_z3.counterexamples + by_enumeration.counterexamples:
        assert_valid_and_disjoint(h, c.keyspace, c, read_cl, write_cl)


def assert_valid_and_disjoint(h: History, keyspace: str, c: object, read_cl: CL, write_cl: CL) -> None:
    """Recount the witness from the CL definitions, without the rules' requirement lists."""
    from checkers.quorum.verdict import Counterexample

    assert isinstance(c, Counterexample)
    read_q, write_q = set(c.read_quorum), set(c.write_quorum)
    assert not read_q & write_q
    epochs = {e.epoch: e for e in h.epochs}
    if keyspace == CMS_KEYSPACE:
        reads, writes = epochs[c.read_epoch].cms_reads, epochs[c.write_epoch].cms_writes
        assert read_q <= reads and len(read_q) > len(reads) // 2
        assert write_q <= writes and len(write_q) > len(writes) // 2
        return
    dc_of = h.dc_map()
    r_ks, w_ks = epochs[c.read_epoch].keyspace(keyspace), epochs[c.write_epoch].keyspace(keyspace)
    assert r_ks is not None and w_ks is not None
    rg, wg = r_ks.at_token(c.range.right), w_ks.at_token(c.range.right)
    assert rg.range.contains(c.range) and wg.range.contains(c.range)
    assert read_q <= rg.reads and write_q <= wg.writes
    assert accepted(read_cl, r_ks.replication, rg.reads, frozenset(), read_q, dc_of, c.read_dc)
    assert accepted(write_cl, w_ks.replication, wg.writes, wg.writes - wg.reads, write_q, dc_of, c.write_dc)


def accepted(cl: CL, params: ReplicationParams, group: frozenset[str], pending: frozenset[str],
             q: set[str], dc_of: dict[str, str], dc: str | None) -> bool:
    """Cassandra's counts, written out once more (independently of levels.py)."""
    def in_dc(nodes: set[str] | frozenset[str], d: str | None) -> int:
        return sum(1 for n in nodes if dc_of[n] == d)

    total = params.replication_factor if isinstance(params, SimpleStrategy) else params.total_rf
    fixed = {CL.ONE: 1, CL.TWO: 2, CL.THREE: 3, CL.QUORUM: total // 2 + 1}
    if cl in fixed or (cl is CL.EACH_QUORUM and isinstance(params, SimpleStrategy)):
        return len(q) >= fixed.get(cl, total // 2 + 1) + len(pending)
    if cl is CL.ALL:  # blockFor(ALL): the replication factor, plus pending replicas for writes
        return len(q) >= total + len(pending)
    if cl is CL.NODE_LOCAL:
        return in_dc(q, dc) >= 1
    if cl is CL.EACH_QUORUM:
        assert isinstance(params, NetworkTopologyStrategy)
        return all(in_dc(q, d) >= rf // 2 + 1 + in_dc(pending, d) for d, rf in params.dc_factors if rf > 0)
    local_rf = params.replication_factor if isinstance(params, SimpleStrategy) else params.factor(dc or "")
    base = 1 if cl is CL.LOCAL_ONE else local_rf // 2 + 1
    return in_dc(q, dc) >= base + in_dc(pending, dc)


def test_minimal_quorums_of_quorum_at_rf3_are_the_three_pairs() -> None:
    rule = read_rule(CL.QUORUM, SimpleStrategy(replication_factor=3), frozenset("ABC"), dict.fromkeys("ABC", "dc1"))
    assert minimal_quorums(rule) == tuple(frozenset(p) for p in combinations("ABC", 2))


def test_minimal_write_quorums_with_a_pending_replica_are_three_of_four() -> None:
    rule = write_rule(CL.QUORUM, SimpleStrategy(replication_factor=3), frozenset("ABC"), frozenset("ABCX"),
                      dict.fromkeys("ABCX", "dc1"))
    assert minimal_quorums(rule) == tuple(frozenset(t) for t in combinations("ABCX", 3))


def test_the_exhaustive_simulator_finds_the_ceps_counterexample_too() -> None:
    v = exhaustive.prove_history(rf3_join_x(), window=2)
    assert v.valid is False
    assert ("ks", Range(100, 150), 3, 5) in failing(v)
    assert exhaustive.prove_history(rf3_join_x()).valid is True


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_histories(), LEVELS, LEVELS, st.integers(0, 3), st.sampled_from((None, "dc1", "dc2")))
def test_z3_and_the_exhaustive_simulator_agree_on_many_more_cases(
    h: History, read_cl: CL, write_cl: CL, window: int, dc: str | None
) -> None:
    dc = dc if dc in h.dc_names() else None
    kwargs = dict(read_cl=read_cl, write_cl=write_cl, window=window, read_dc=dc, write_dc=None)
    by_z3 = z3prover.prove_history(h, **kwargs)  # type: ignore[arg-type]
    by_enumeration = exhaustive.prove_history(h, **kwargs)  # type: ignore[arg-type]
    assert (by_z3.valid, by_z3.cause, failing(by_z3)) == (by_enumeration.valid, by_enumeration.cause,
                                                          failing(by_enumeration))


def test_all_blocks_for_the_replication_factor_not_the_group() -> None:
    """Cassandra's ConsistencyLevel.blockFor(ALL) is the RF (+ pending for writes): with fewer
    replicas than that in the group there is no ALL quorum at all."""
    dc_of = dict.fromkeys("ABCX", "dc1")
    rf3 = SimpleStrategy(replication_factor=3)
    assert minimal_quorums(read_rule(CL.ALL, rf3, frozenset("AB"), dc_of)) == ()
    w = write_rule(CL.ALL, rf3, frozenset("ABC"), frozenset("ABCX"), dc_of)
    assert minimal_quorums(w) == (frozenset("ABCX"),)
