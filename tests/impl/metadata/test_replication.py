"""Placement from scratch: SimpleStrategy, NetworkTopologyStrategy with racks, vnodes, bad input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from impl.metadata import InvalidTopology, Metadata, ReplicationParams, placement_from_scratch
from spec.tokens import MIN_TOKEN
from tests.impl.metadata.helpers import groups, topology


def node(nid: str, token: int | list[int], dc: str = "dc1", rack: str = "r1") -> dict[str, Any]:
    return {"id": nid, "dc": dc, "rack": rack, "tokens": token if isinstance(token, list) else [token]}


NTS3 = {"ks": {"class": "NetworkTopologyStrategy", "dc1": 3}}


def replicas(m: Metadata, ks: str = "ks") -> dict[tuple[int, int], str]:
    return {k: "".join(sorted(r)) for k, (r, _) in groups(m, ks).items()}


def test_simple_strategy_takes_the_first_rf_distinct_nodes_clockwise() -> None:
    """DESIGN: range (left, right] belongs to the owner of right; replicas walk clockwise."""
    m = Metadata.from_topology(
        topology([("A", [100, 150]), ("B", 200), ("C", 300)], {"ks": {"class": "SimpleStrategy", "replication_factor": 2}})
    )
    assert replicas(m) == {(300, 100): "AB", (100, 150): "AB", (150, 200): "BC", (200, 300): "AC"}


def test_nts_repeats_the_first_racks_met_when_a_dc_has_fewer_racks_than_rf() -> None:
    """Two racks, RF 3: one node per rack, then the first repeat met on the walk."""
    m = Metadata.from_topology(
        topology([node("A", 100, rack="r1"), node("B", 200, rack="r1"), node("C", 300, rack="r2"), node("D", 400, rack="r2")], NTS3)
    )
    assert replicas(m) == {(400, 100): "ABC", (100, 200): "BCD", (200, 300): "ACD", (300, 400): "ABD"}


def test_nts_prefers_distinct_racks() -> None:
    m = Metadata.from_topology(
        topology(
            [node("A", 100, rack="r1"), node("B", 200, rack="r1"), node("C", 300, rack="r2"), node("D", 400, rack="r3")],
            {"ks": {"class": "NetworkTopologyStrategy", "dc1": 2}},
        )
    )
    assert replicas(m) == {(400, 100): "AC", (100, 200): "BC", (200, 300): "CD", (300, 400): "AD"}


def test_nts_counts_each_dc_separately_and_caps_rf_by_dc_size() -> None:
    m = Metadata.from_topology(
        topology(
            [node("A", 100), node("B", 200, dc="dc2"), node("C", 300), node("D", 400, dc="dc2")],
            {"ks": {"class": "NetworkTopologyStrategy", "dc1": 3, "dc2": 1}, "one": {"class": "NetworkTopologyStrategy", "dc2": 1}},
        )
    )
    assert replicas(m) == {(400, 100): "ABC", (100, 200): "ABC", (200, 300): "ACD", (300, 400): "ACD"}
    assert replicas(m, "one") == {(400, 100): "B", (100, 200): "B", (200, 300): "D", (300, 400): "D"}


def test_one_token_owns_the_whole_ring() -> None:
    m = Metadata.from_topology(topology([("A", 5)]))
    assert m.placements_json()["ks"]["reads"] == [{"range": [5, 5], "replicas": ["A"]}]
    assert m.read_replicas("ks", MIN_TOKEN + 1) == ("A",)


def test_keyspaces_with_equal_replication_share_one_placement() -> None:
    m = Metadata.from_topology(
        topology([("A", 1), ("B", 2)], {"a": {"class": "SimpleStrategy", "replication_factor": 1}, "b": {"class": "SimpleStrategy", "replication_factor": "1"}})
    )
    assert len(m.placements) == 1
    assert m.placements_json()["a"] == m.placements_json()["b"]


def test_first_node_by_id_is_the_only_cms_member() -> None:
    m = Metadata.from_topology(topology([("C", 1), ("B", 2), ("D", 3)]))
    assert m.cms_members() == ("B",)
    assert m.epoch == 0
    assert m.cms_initialized


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (topology([("A", 1), ("A", 2)]), "duplicate node id A"),
        (topology([("A", 1), ("B", 1)]), "duplicate token 1"),
        (topology([("A", MIN_TOKEN - 1)]), "bad token"),
        (topology([("A", 2**63)]), "bad token"),
        (topology([node("A", "5")]), "bad token"),  # type: ignore[arg-type]
        (topology([node("A", [True])]), "bad token"),  # type: ignore[list-item]
        (topology([("A", 1)], {"ks": {"class": "OldNetworkTopologyStrategy"}}), "unknown replication class"),
        (topology([("A", 1)], {"ks": {"class": "SimpleStrategy", "replication_factor": 0}}), ">= 1"),
        (topology([("A", 1)], {"ks": {"class": "NetworkTopologyStrategy", "dc1": -1}}), ">= 0"),
        (topology([("A", 1)], {"ks": {"class": "NetworkTopologyStrategy", "dc1": 0}}), "positive replication factor"),
    ],
)
def test_invalid_topologies_raise_one_line_errors(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidTopology) as err:
        Metadata.from_topology(doc)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


# -- an independent, slow, obviously-correct NTS walk to cross-check the fast one ---------------


def naive_nts(factors: dict[str, int], ring: list[tuple[int, str]], loc: dict[str, tuple[str, str]]) -> list[frozenset[str]]:
    ring = sorted(ring)
    out = []
    for i in range(len(ring)):
        walk = [ring[(i + k) % len(ring)][1] for k in range(len(ring))]
        chosen: set[str] = set()
        for dc, rf in factors.items():
            dc_nodes = [n for n in dict.fromkeys(walk) if loc[n][0] == dc]
            racks = {loc[n][1] for n in dc_nodes}
            want = min(rf, len(dc_nodes))
            picked: list[str] = []
            seen: set[str] = set()
            # first pass: one node per rack, in walk order, while racks remain to be seen
            for n in dc_nodes:
                if len(picked) == want:
                    break
                if loc[n][1] not in seen:
                    seen.add(loc[n][1])
                    picked.append(n)
                elif rf - len(racks) > len([p for p in picked if p in repeats(picked, loc)]):
                    picked.append(n)
            chosen |= set(picked)
        out.append(frozenset(chosen))
    return out


def repeats(picked: list[str], loc: dict[str, tuple[str, str]]) -> set[str]:
    """Picked nodes whose rack was already used by an earlier pick."""
    seen: set[str] = set()
    out = set()
    for p in picked:
        if loc[p][1] in seen:
            out.add(p)
        seen.add(loc[p][1])
    return out


@given(
    st.lists(
        st.tuples(st.sampled_from(["dc1", "dc2"]), st.sampled_from(["r1", "r2", "r3"]), st.integers(1, 3)),
        min_size=1,
        max_size=9,
    ),
    st.integers(1, 4),
    st.integers(1, 3),
    st.randoms(use_true_random=False),
)
def test_nts_agrees_with_a_naive_walk(
    shape: list[tuple[str, str, int]], rf1: int, rf2: int, rnd: Any
) -> None:
    tokens = rnd.sample(range(-1000, 1000), sum(k for _, _, k in shape))
    ring, loc = [], {}
    for i, (dc, rack, k) in enumerate(shape):
        nid = f"n{i}"
        loc[nid] = (dc, rack)
        ring += [(tokens.pop(), nid) for _ in range(k)]
    doc = {
        "nodes": [{"id": n, "dc": d, "rack": r, "tokens": [t for t, o in ring if o == n]} for n, (d, r) in loc.items()],
        "keyspaces": [{"name": "ks", "replication": {"class": "NetworkTopologyStrategy", "dc1": rf1, "dc2": rf2}}],
    }
    m = Metadata.from_topology(doc)
    params = ReplicationParams.parse(doc["keyspaces"][0]["replication"])
    fast = placement_from_scratch(params, m.token_map)
    assert list(fast.reads) == naive_nts({"dc1": rf1, "dc2": rf2}, ring, loc)
