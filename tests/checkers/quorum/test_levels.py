"""Consistency levels as quorum rules (checkers/quorum/levels.py).

"a write at consistency level CL needs CL's count over the natural (read) replicas plus one
more for every pending replica (in the write group but not in the read group), counted per DC
for LOCAL_/EACH_ levels" (DESIGN.md, after Cassandra's `blockForWrite`).
"""

from __future__ import annotations

import pytest

from checkers.quorum.levels import (
    Requirement,
    barrier_rule,
    majority_rule,
    parse_level,
    read_rule,
    write_rule,
)
from spec.consistency import ConsistencyLevel as CL
from spec.replication import NetworkTopologyStrategy, SimpleStrategy

RF3 = SimpleStrategy(replication_factor=3)
NTS33 = NetworkTopologyStrategy.of({"dc1": 3, "dc2": 3})
DCS = {"A": "dc1", "B": "dc1", "C": "dc1", "X": "dc1", "D": "dc2", "E": "dc2", "F": "dc2", "Y": "dc2"}


def fs(s: str) -> frozenset[str]:
    return frozenset(s)


def counts(rule: object) -> list[tuple[str, int]]:
    return [("".join(sorted(r.among)), r.count) for r in rule.requirements]  # type: ignore[attr-defined]


def test_quorum_of_rf3_is_two_of_the_read_group() -> None:
    assert counts(read_rule(CL.QUORUM, RF3, fs("ABC"), DCS)) == [("ABC", 2)]


def test_a_write_needs_one_more_ack_per_pending_replica() -> None:
    """CEP: X joining makes writes go to A,B,C,X and need 3 acknowledgements of 4."""
    assert counts(write_rule(CL.QUORUM, RF3, fs("ABC"), fs("ABCX"), DCS)) == [("ABCX", 3)]
    assert counts(write_rule(CL.ONE, RF3, fs("ABC"), fs("ABCX"), DCS)) == [("ABCX", 2)]


def test_all_is_every_replica_of_the_group() -> None:
    assert counts(read_rule(CL.ALL, RF3, fs("ABC"), DCS)) == [("ABC", 3)]
    assert counts(write_rule(CL.ALL, RF3, fs("ABC"), fs("ABCX"), DCS)) == [("ABCX", 4)]


def test_network_topology_quorum_counts_the_sum_of_dc_factors() -> None:
    assert counts(read_rule(CL.QUORUM, NTS33, fs("ABCDEF"), DCS)) == [("ABCDEF", 4)]


def test_local_quorum_counts_in_the_coordinators_dc_and_adds_only_local_pending() -> None:
    rule = write_rule(CL.LOCAL_QUORUM, NTS33, fs("ABCDEF"), fs("ABCXDEFY"), DCS, "dc2")
    assert counts(rule) == [("DEFY", 3)]
    assert rule.accepts("DEY") and not rule.accepts("ABCXDE")


def test_each_quorum_counts_per_dc_with_that_dcs_pending_replicas() -> None:
    rule = write_rule(CL.EACH_QUORUM, NTS33, fs("ABCDEF"), fs("ABCXDEF"), DCS)
    assert counts(rule) == [("ABCX", 3), ("DEF", 2)]


def test_each_quorum_under_simple_strategy_is_quorum() -> None:
    """Cassandra uses the plain write handler unless the strategy is NTS."""
    assert counts(read_rule(CL.EACH_QUORUM, RF3, fs("ABC"), DCS)) == [("ABC", 2)]


def test_local_quorum_under_simple_strategy_uses_the_whole_rf() -> None:
    assert counts(read_rule(CL.LOCAL_QUORUM, RF3, fs("ABD"), DCS, "dc1")) == [("AB", 2)]


def test_node_local_is_one_replica_in_the_coordinators_dc_and_ignores_pending() -> None:
    assert counts(write_rule(CL.NODE_LOCAL, NTS33, fs("ABCDEF"), fs("ABCXDEF"), DCS, "dc1")) == [("ABCX", 1)]


def test_dc_dependent_levels_need_a_coordinator_dc() -> None:
    with pytest.raises(ValueError, match="datacenter"):
        read_rule(CL.LOCAL_ONE, NTS33, fs("ABCDEF"), DCS)


def test_a_group_smaller_than_the_count_has_no_quorum() -> None:
    rule = read_rule(CL.QUORUM, NTS33, fs("ABC"), DCS)
    assert not rule.satisfiable and not rule.accepts("ABC")


def test_levels_parse_case_insensitively_and_unknown_names_fail() -> None:
    assert parse_level("local_quorum") is CL.LOCAL_QUORUM
    with pytest.raises(ValueError, match="unknown consistency level"):
        parse_level("ANY_QUORUM")


def test_barrier_levels_count_over_the_affected_replicas() -> None:
    """Cassandra's ProgressBarrier: EACH_QUORUM is a majority of the affected replicas per DC."""
    assert barrier_rule(CL.EACH_QUORUM, fs("ABCXDE"), DCS, None).requirements == (
        Requirement(among=fs("ABCX"), count=3), Requirement(among=fs("DE"), count=2))
    assert counts(barrier_rule(CL.QUORUM, fs("ABCX"), DCS, None)) == [("ABCX", 3)]
    assert counts(barrier_rule(CL.ONE, fs("ABCX"), DCS, None)) == [("ABCX", 1)]
    assert barrier_rule(CL.NODE_LOCAL, fs("ABCX"), DCS, None).requirements == ()


def test_cms_quorums_are_simple_majorities() -> None:
    assert counts(majority_rule(fs("ABC"))) == [("ABC", 2)]
    assert counts(majority_rule(fs("AB"))) == [("AB", 2)]
