"""The data path's pure parts: tokens, ConsistencyLevel arithmetic, last-write-wins storage,
the progress barrier's levels and fallback chain, the streaming plan."""

from __future__ import annotations

import pytest

from impl.data.consistency import block_for
from impl.data.partitioner import murmur3_x64_128_low, token
from impl.node.progress_barrier import relax, satisfied
from impl.node.storage import ReplicaStorage, in_range


def test_tokens_are_murmur3_x64_128_first_half() -> None:
    # the published x64-128 (seed 0) vector for "hello": h1 = 0xcbd8a7b341bd9b02
    assert murmur3_x64_128_low(b"hello") == 0xCBD8A7B341BD9B02
    assert murmur3_x64_128_low(b"") == 0
    assert token("hello") == 0xCBD8A7B341BD9B02 - 2**64  # as a signed long
    assert -(2**63) < token("k1") < 2**63


SIMPLE3 = ("SimpleStrategy", (("replication_factor", 3),))
NTS = ("NetworkTopologyStrategy", (("dc1", 3), ("dc2", 2)))


@pytest.mark.parametrize(("cl", "pending", "total"), [
    ("ONE", [], 1), ("TWO", [], 2), ("THREE", [], 3), ("QUORUM", [], 2), ("ALL", [], 3),
    ("QUORUM", ["dc1"], 3), ("ALL", ["dc1"], 4), ("ONE", ["dc1", "dc1"], 3),
])
def test_block_for_counts_pending_replicas_on_top(cl: str, pending: list[str], total: int) -> None:
    assert block_for(cl, *SIMPLE3, "dc1", pending).total == total


def test_local_and_each_quorum_count_per_datacenter() -> None:
    r = block_for("LOCAL_QUORUM", *NTS, "dc2", ["dc1", "dc2"])
    assert (r.total, r.local_dc) == (2 + 1, "dc2")  # only dc2's pending replica counts
    assert block_for("QUORUM", *NTS, "dc1", ["dc2"]).total == 3 + 1
    each = block_for("EACH_QUORUM", *NTS, "dc1", ["dc2"])
    assert each.per_dc == (("dc1", 2), ("dc2", 2 + 1))
    dc = {"a": "dc1", "b": "dc1", "c": "dc2", "d": "dc2", "e": "dc2"}.__getitem__
    assert not each.satisfied(["a", "b", "c", "d"], dc)
    assert each.satisfied(["a", "b", "c", "d", "e"], dc)
    assert block_for("EACH_QUORUM", *SIMPLE3, "dc1").total == 2  # QUORUM without NTS


def test_storage_keeps_the_newest_cell_whatever_the_arrival_order() -> None:
    data: dict[tuple[str, str], tuple[int, int]] = {}
    s = ReplicaStorage(data)
    assert s.apply("ks", "k", 10, 1)
    assert not s.apply("ks", "k", 5, 2)
    assert s.read("ks", "k") == (10, 1)
    assert s.apply("ks", "k", 10, 3)  # a tie goes to the larger value, on every replica
    assert s.read("ks", "k") == (10, 3)
    assert in_range(5, 0, 10) and not in_range(0, 0, 10) and in_range(-7, 10, 0)


def test_the_barrier_relaxes_along_cassandras_chain_down_to_the_minimum() -> None:
    assert relax("EACH_QUORUM", "EACH_QUORUM") is None
    assert relax("EACH_QUORUM", "ONE") == "QUORUM"
    assert relax("QUORUM", "ONE") == "LOCAL_QUORUM"
    assert relax("LOCAL_QUORUM", "ONE") == "ONE"
    assert relax("ONE", "ONE") is None
    assert relax("ONE", "NODE_LOCAL") == "NODE_LOCAL"


def test_barrier_levels_over_the_ranges_replicas() -> None:
    dc = {"a": "dc1", "b": "dc1", "c": "dc1", "x": "dc2", "y": "dc2"}.__getitem__
    groups = [frozenset("abcx"), frozenset("bcxy")]
    assert not satisfied("EACH_QUORUM", groups, {"a", "b", "x"}, dc, "dc1")  # dc2 of group 2: 1 of 2
    assert satisfied("EACH_QUORUM", groups, {"a", "b", "c", "x", "y"}, dc, "dc1")
    assert satisfied("QUORUM", groups, {"b", "c", "x"}, dc, "dc1")
    assert not satisfied("QUORUM", groups, {"a", "b"}, dc, "dc1")
    assert satisfied("LOCAL_QUORUM", groups, {"b", "c"}, dc, "dc1")
    assert satisfied("ONE", groups, {"b"}, dc, "dc1") and not satisfied("ONE", groups, {"y"}, dc, "dc1")
    assert satisfied("NODE_LOCAL", groups, set(), dc, "dc1")


def test_streaming_takes_each_gained_range_from_the_replica_giving_it_up() -> None:
    from impl.metadata import Metadata, execute
    from impl.node.streaming import plan

    quarter = 2**64 // 4
    topo = {"nodes": [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [-(2**63) + quarter * i - 1]}
                      for i in range(1, 5)],
            "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]}
    m = Metadata.from_topology(topo)
    for t in ({"kind": "REGISTER", "node": {"id": "j1", "dc": "dc1", "rack": "r1"}},
              {"kind": "PREPARE_JOIN", "node": "j1", "tokens": [-(2**63) + quarter * 5 // 2]},
              {"kind": "START_JOIN", "node": "j1"}):
        m = execute(m, t).metadata
    tasks = plan(m, "j1", None)
    assert tasks and all(dest == "j1" for _, dest, _, _ in tasks)
    for ks, _, sources, ranges in tasks:
        for left, right in ranges:
            # the single strict source is in the old read group and not in the new one
            seq = m.sequences["j1"]
            entry = next(e for e in seq.transitions[m.keyspaces[ks].replication.key]
                         if (e.left, e.right) == (left, right))
            assert sources == tuple(sorted(entry.before - entry.after)) and len(sources) == 1
    # when the node giving the range up is the one being replaced, the others stream it
    m2 = Metadata.from_topology(topo)
    for t in ({"kind": "REGISTER", "node": {"id": "r1", "dc": "dc1", "rack": "r1"}},
              {"kind": "PREPARE_REPLACE", "node": "r1", "replaced": "n3"}):
        m2 = execute(m2, t).metadata
    for _, dest, sources, _ in plan(m2, "r1", "n3"):
        assert dest == "r1" and "n3" not in sources and sources
