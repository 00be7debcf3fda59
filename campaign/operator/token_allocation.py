"""Tokens for a bootstrapping node, chosen as Cassandra's TokenAllocation would choose them.

Which allocator runs (dht/BootStrapper.getBootstrapTokens, dht/tokenallocator/TokenAllocation,
trunk): with `allocate_tokens_for_local_replication_factor: RF` (cassandra.yaml's default since
4.0, RF 3) Cassandra allocates for a made-up NetworkTopologyStrategy with RF in the new node's
DC; with `allocate_tokens_for_keyspace: KS` for that keyspace's replication. Then
`TokenAllocation.createStrategy` picks the allocation ring — the nodes whose ownership the new
node shares — and TokenAllocatorFactory the allocator:

- SimpleStrategy: the whole ring, RF replicas (nodes as groups);
- NetworkTopologyStrategy, replicas `r` of the DC (its rack counted only if the new node's rack
  already holds a node; else 1):
  - r <= 1: the DC, one replica (NoReplicationTokenAllocator);
  - racks == r: the new node's rack, one replica (NoReplicationTokenAllocator);
  - racks > r: the DC, r replicas, racks as groups (ReplicationAwareTokenAllocator);
  - racks == 1: the DC, r replicas, nodes as groups (ReplicationAwareTokenAllocator);
  - otherwise Cassandra refuses: "Token allocation failed: the number of racks %d in datacenter
    %s is lower than its replication factor %d."

`adjustForCrossDatacenterClashes` then moves a token owned outside the allocation ring up by one
(`nextValidToken`) and refuses one owned inside it ("Allocated token %s already assigned to node
%s. Is another node also allocating tokens?"). The first node of an empty allocation ring starts
at a random token (`getRandomToken`, ThreadLocalRandom in Cassandra): here `java.util.Random(seed)`,
so a plan is reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

from campaign.operator.murmur3 import JavaRandom
from campaign.operator.token_allocator import (
    AllocatorRing,
    NoReplicationAllocator,
    ReplicationAwareAllocator,
)
from spec.nodes import Location, NodeId
from spec.replication import NetworkTopologyStrategy, ReplicationParams, SimpleStrategy
from spec.tokens import MAX_TOKEN, MIN_TOKEN
from spec.topology import NodeSpec

DEFAULT_LOCAL_RF = 3
"""cassandra.yaml's `allocate_tokens_for_local_replication_factor` since 4.0."""


def allocator_name(replicas: int) -> str:
    return "NoReplicationTokenAllocator" if replicas == 1 else "ReplicationAwareTokenAllocator"


def allocate_tokens(nodes: Sequence[NodeSpec], node: str, dc: str, rack: str, num_tokens: int, *,
                    params: ReplicationParams | None = None, local_rf: int = DEFAULT_LOCAL_RF,
                    seed: int = 0) -> tuple[tuple[int, ...], str] | str:
    """(the tokens, what chose them) for `node` joining `nodes` in dc/rack, or Cassandra's refusal.

    `params`: allocate for a keyspace's replication (`allocate_tokens_for_keyspace`); None: for
    `local_rf` replicas in the node's DC (`allocate_tokens_for_local_replication_factor`)."""
    if num_tokens < 1:
        return "num_tokens must be >= 1"
    strategy = params if params is not None else NetworkTopologyStrategy.of({dc: local_rf})
    location: dict[str, tuple[str, str]] = {n.id: (n.location.dc, n.location.rack) for n in nodes if n.tokens}
    location[node] = (dc, rack)
    if isinstance(strategy, SimpleStrategy):
        ring_dc, ring_rack, replicas, by_rack = None, None, strategy.replication_factor, False
    else:
        replicas = strategy.factor(dc)
        dc_racks = {r for d, r in (location[n.id] for n in nodes if n.tokens) if d == dc}
        racks = len(dc_racks) if rack in dc_racks else 1
        if replicas <= 1:
            ring_dc, ring_rack, replicas, by_rack = dc, None, 1, False
        elif racks == replicas:
            ring_dc, ring_rack, replicas, by_rack = dc, rack, 1, False
        elif racks > replicas:
            ring_dc, ring_rack, by_rack = dc, None, True
        elif racks == 1:
            ring_dc, ring_rack, by_rack = dc, None, False
        else:
            return (f"Token allocation failed: the number of racks {racks} in datacenter {dc} is lower than "
                    f"its replication factor {replicas}.")

    def in_ring(n: str) -> bool:
        d, r = location[n]
        return (ring_dc is None or d == ring_dc) and (ring_rack is None or r == ring_rack)

    owners: dict[int, str] = {t: n.id for n in nodes for t in n.tokens}
    ring = AllocatorRing({t: n for t, n in owners.items() if in_ring(n)})
    cls = NoReplicationAllocator if replicas == 1 else ReplicationAwareAllocator
    allocator = cls(ring, replicas, (lambda n: location[n][1]) if by_rack else (lambda n: n))
    random = JavaRandom(seed)

    def random_token() -> int:
        value = random.next_long()
        return MAX_TOKEN if value == MIN_TOKEN else value  # Murmur3Partitioner.normalize

    try:
        chosen = allocator.add_unit(node, num_tokens, random_token)
    except IndexError:  # an emptied queue: Cassandra's allocator throws NoSuchElementException there
        return (f"{allocator_name(replicas)} failed (java.util.NoSuchElementException: a unit's vnode queue ran "
                f"out while taking {num_tokens} tokens)")
    tokens: list[int] = []
    for t in chosen:
        while t in owners:  # adjustForCrossDatacenterClashes
            if in_ring(owners[t]):
                return f"Allocated token {t} already assigned to node {owners[t]}. Is another node also allocating tokens?"
            t += 1
        tokens.append(t)
    where = (f"datacenter {ring_dc}" if ring_rack is None else f"rack {ring_rack} of {ring_dc}") if ring_dc else "the ring"
    how = f"{allocator_name(replicas)} over {where}, {replicas} replica{'s' if replicas != 1 else ''}" + \
          (", racks as groups" if by_rack else "")
    return tuple(sorted(tokens)), how


def grown_cluster(datacenters: Sequence[tuple[str, int, int]], num_tokens: int, *,
                  local_rf: int = DEFAULT_LOCAL_RF, seed: int = 0) -> tuple[NodeSpec, ...]:
    """A cluster bootstrapped node by node as Cassandra would allocate it: for each (dc, nodes,
    racks), nodes `10.<dc index>.0.<i>` on racks r1..rN in turn (for examples, tests and
    benchmarks; a refusal is a ValueError)."""
    nodes: list[NodeSpec] = []
    for d, (dc, count, racks) in enumerate(datacenters, start=1):
        for i in range(count):
            node, rack = f"10.{d}.0.{i + 1}", f"r{i % racks + 1}"
            got = allocate_tokens(nodes, node, dc, rack, num_tokens, local_rf=local_rf, seed=seed + d)
            if isinstance(got, str):
                raise ValueError(got)
            nodes.append(NodeSpec(id=NodeId(node), location=Location(dc=dc, rack=rack), tokens=got[0]))
    return tuple(nodes)


__all__ = ["DEFAULT_LOCAL_RF", "allocate_tokens", "allocator_name", "grown_cluster"]
