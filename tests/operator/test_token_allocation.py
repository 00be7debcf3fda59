"""Cassandra's token allocation, ported (campaign/operator/token_allocator.py, token_allocation.py).

The pinned cases are what Cassandra's own allocator classes (dht/tokenallocator at trunk, with
Murmur3Partitioner's midpoint/split/size) returned for the same rings, run once on a JVM: the
port must keep returning them. (A differential run of 1,500 random rings agreed on every ring
without exact ownership ties: docs/operators.md.)"""

from __future__ import annotations

import random

import pytest

from campaign.operator.murmur3 import (
    JavaPriorityQueue,
    JavaRandom,
    java_double_compare,
    midpoint,
    size,
    split,
)
from campaign.operator.token_allocation import allocate_tokens, grown_cluster
from campaign.operator.token_allocator import (
    NoReplicationAllocator,
    ReplicationAwareAllocator,
    Ring,
)
from spec.nodes import Location, NodeId
from spec.replication import SimpleStrategy
from spec.topology import NodeSpec


def test_java_random_is_java_util_random() -> None:
    """Well-known values of `new Random(0)` and `new Random(42)`."""
    assert JavaRandom(0).next_long() == -4962768465676381896
    assert JavaRandom(0).next_double() == 0.730967787376657
    assert JavaRandom(42).next_long() == -5025562857975149833


def test_murmur3_arithmetic_is_the_partitioners() -> None:
    assert size(5, 5) == 1.0 and size(0, 2**62) == 0.25 and size(2**62, 0) == 0.75
    assert midpoint(-10, 10) == 0 and midpoint(-11, 10) == -1  # BigInteger.shiftRight floors
    assert midpoint(2**63 - 1, -(2**63)) in (2**63 - 1, -(2**63))  # a wrapping range of one step
    assert split(0, 100, 0.5) == 50 and split(0, 99, 0.5) == 49  # toBigInteger truncates
    # the wrapping span is (max - min) + right - left, one short of the ring: 19 * 0.5 from 2**63 - 10
    assert split(2**63 - 10, -(2**63) + 10, 0.5) == 2**63 - 1


def test_the_priority_queue_keeps_javas_order_among_equal_weights() -> None:
    q: JavaPriorityQueue[tuple[float, str]] = JavaPriorityQueue(lambda a, b: java_double_compare(b[0], a[0]))
    for i, w in enumerate([1.0, 3.0, 3.0, 2.0, 3.0]):
        q.add((w, f"x{i}"))
    assert [q.poll()[1] for _ in range(5)] == ["x1", "x4", "x2", "x3", "x0"]  # the JDK's siftDown order


PINNED = [  # (replicas, by rack, units, tokens each, racks, new tokens, ring seed) -> Cassandra's tokens
    ((3, False, 6, 8, 3, 4, 11), [-5778617403550674526, 685706112639533448, 2782135848728172279, 8180429332653007858]),
    ((1, False, 5, 16, 1, 16, 12), [
        -8433215550867765579, -7544281161299467913, -6718747266361646435, -4308279785762341539, -3776568015268183713,
        -2045675054239866366, -1099014809415697915, 267836329994419056, 1179702981575442579, 2279007351376708300,
        2708520409121672560, 3749994085367333168, 4630324980161579489, 6722229515848574604, 7423709062496376664,
        8366259611743449311]),
    ((3, True, 9, 4, 4, 8, 13), [-5521514920834114070, -4697132952406142423, -3794193966297208615, -3076569318973161816,
                                 -368952579925499484, 175594394747461538, 2561331874441856019, 8191809548781967598]),
    ((2, True, 4, 2, 2, 1, 14), [-1667062865386045822]),
]


@pytest.mark.parametrize("case, cassandra", PINNED)
def test_the_allocators_choose_the_tokens_cassandras_choose(case: tuple[int, ...], cassandra: list[int]) -> None:
    replicas, by_rack, units, per, racks, n, seed = case
    rng = random.Random(seed)
    owners: dict[int, str] = {}
    for u in range(units):
        for _ in range(per):
            owners[rng.randrange(-(2**63), 2**63)] = f"u{u}"
    rack = {f"u{u}": f"r{u % racks}" for u in range(units)} | {"NEW": "r0"}
    cls = NoReplicationAllocator if replicas == 1 else ReplicationAwareAllocator
    allocator = cls(Ring(owners), replicas, (lambda u: rack[u]) if by_rack else (lambda u: u))
    assert sorted(allocator.add_unit("NEW", n, lambda: 42)) == cassandra


def node(name: str, dc: str, rack: str, tokens: tuple[int, ...]) -> NodeSpec:
    return NodeSpec(id=NodeId(name), location=Location(dc=dc, rack=rack), tokens=tokens)


def test_the_allocation_ring_and_the_allocator_follow_token_allocation_create_strategy() -> None:
    three_racks = grown_cluster([("dc1", 6, 3)], 4)
    assert "NoReplicationTokenAllocator over rack r1 of dc1" in allocate_tokens(three_racks, "x", "dc1", "r1", 4)[1]
    one_rack = grown_cluster([("dc1", 4, 1)], 4)
    assert "ReplicationAwareTokenAllocator over datacenter dc1, 3 replicas" in allocate_tokens(one_rack, "x", "dc1", "r1", 4)[1]
    four_racks = grown_cluster([("dc1", 8, 4)], 4)
    assert "racks as groups" in allocate_tokens(four_racks, "x", "dc1", "r1", 4)[1]
    new_rack = allocate_tokens(three_racks, "x", "dc1", "r9", 4)  # a rack no node has yet counts as one
    assert "ReplicationAwareTokenAllocator over datacenter dc1" in new_rack[1]
    two_racks = [node("a", "dc1", "r1", (1,)), node("b", "dc1", "r2", (2,))]
    assert allocate_tokens(two_racks, "x", "dc1", "r1", 4) == (
        "Token allocation failed: the number of racks 2 in datacenter dc1 is lower than its replication factor 3.")
    keyspace = allocate_tokens(one_rack, "x", "dc1", "r1", 4, params=SimpleStrategy(replication_factor=2))
    assert "over the ring, 2 replicas" in keyspace[1]
    assert allocate_tokens(one_rack, "x", "dc1", "r1", 0) == "num_tokens must be >= 1"


def test_a_new_dc_starts_at_the_seeded_random_token_moved_past_a_token_another_dc_owns() -> None:
    first = JavaRandom(7).next_long()
    got = allocate_tokens([node("a", "dc1", "r1", (first,))], "x", "dc2", "r1", 1, seed=7)
    assert got[0] == (first + 1,)  # adjustForCrossDatacenterClashes: nextValidToken


def test_allocated_tokens_are_new_sorted_and_deterministic() -> None:
    nodes = grown_cluster([("dc1", 5, 1), ("dc2", 4, 1)], 16)
    a = allocate_tokens(nodes, "x", "dc2", "r1", 16)
    assert a == allocate_tokens(nodes, "x", "dc2", "r1", 16)
    tokens = a[0]
    owned = {t for n in nodes for t in n.tokens}
    assert len(tokens) == 16 and list(tokens) == sorted(tokens) and not owned & set(tokens)
