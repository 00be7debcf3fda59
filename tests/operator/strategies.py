"""Hypothesis strategies for live clusters as nodetool prints them (tests/operator only)."""

from __future__ import annotations

import random
import uuid

from hypothesis import strategies as st

from tests.operator.nodetool_print import VERSIONS, Cluster, Flags, Node

DC_NAMES = ("dc1", "us-east", "DC_2", "eu west")
RACK_NAMES = ("r1", "rack2", "rack-us-east-1a", "RAC1", "zone b")
"""A rack of 12 characters or more runs into nodetool ring's Status column; one has a space."""


def address(rng: random.Random, ipv6: bool, dc: int, i: int) -> str:
    if ipv6:  # Java's Inet6Address.getHostAddress: eight groups, no compression, lower case
        return f"2001:db8:{dc:x}:0:0:0:{rng.getrandbits(16):x}:{i:x}"
    return f"10.{dc}.{i // 250}.{i % 250 + 1}"


@st.composite
def clusters(draw: st.DrawFn, *, tokens_per_node: tuple[int, ...] = (1, 16, 256), max_nodes: int = 9,
             keyspaces: bool = True) -> Cluster:
    """1-3 DCs, 1, 16 or 256 tokens a node, IPv4 or IPv6, Simple and NTS keyspaces."""
    per_node = draw(st.sampled_from(tokens_per_node))
    rng = random.Random(draw(st.integers(0, 2**32)))
    dcs = draw(st.lists(st.sampled_from(DC_NAMES), min_size=1, max_size=3, unique=True))
    limit = 4 if per_node == 256 else max_nodes
    counts = [draw(st.integers(1, max(1, limit // len(dcs)))) for _ in dcs]
    ipv6 = draw(st.booleans())
    total = sum(counts) * per_node
    chosen: set[int] = set()
    while len(chosen) < total:
        chosen.add(rng.randrange(-(2**63), 2**63))
    tokens = list(chosen)
    rng.shuffle(tokens)
    nodes = []
    k = 0
    for d, (dc, count) in enumerate(zip(dcs, counts, strict=True)):
        racks = draw(st.lists(st.sampled_from(RACK_NAMES), min_size=1, max_size=3, unique=True))
        for i in range(count):
            host_id = None if draw(st.integers(0, 9)) == 0 else str(uuid.UUID(int=rng.getrandbits(128), version=4))
            nodes.append(Node(ip=address(rng, ipv6, d + 1, i), hostname=f"cass-{d + 1}-{i}.example.com", dc=dc,
                              rack=racks[i % len(racks)], tokens=tuple(tokens[k:k + per_node]), host_id=host_id,
                              load=draw(st.one_of(st.none(), st.floats(0, 2**42)))))
            k += per_node
    cluster = Cluster(nodes=nodes)
    if keyspaces:
        for j in range(draw(st.integers(0, 3))):
            name = draw(st.sampled_from(["ks", "app", "MyKs", "events_2024"])) + (str(j) if j else "")
            if draw(st.booleans()):
                cluster.keyspaces.append((name, {"class": "SimpleStrategy",
                                                 "replication_factor": str(draw(st.integers(1, 3)))}))
            else:
                chosen = draw(st.lists(st.sampled_from(dcs), min_size=1, max_size=len(dcs), unique=True))
                cluster.keyspaces.append((name, {"class": "NetworkTopologyStrategy",
                                                 **{dc: str(draw(st.integers(1, 3))) for dc in chosen}}))
    return cluster


versions = st.sampled_from(VERSIONS)
flags = st.builds(Flags, resolve=st.booleans(), print_port=st.booleans())


__all__ = ["clusters", "flags", "versions"]
