"""Hypothesis strategies for topologies: simplest first (one DC, one rack, one token, RF 1)."""

from __future__ import annotations

from hypothesis import strategies as st

from spec.nodes import Location, NodeId
from spec.replication import NetworkTopologyStrategy, ReplicationParams, SimpleStrategy
from spec.tokens import MAX_TOKEN, MIN_TOKEN
from spec.topology import NodeSpec, Topology

DCS = ("dc1", "dc2", "dc3")
RACKS = ("r1", "r2", "r3")

# Small token space by default: collisions and neighbouring tokens are where bugs live.
small_tokens = st.integers(min_value=-1000, max_value=1000)
any_tokens = st.integers(min_value=MIN_TOKEN + 1, max_value=MAX_TOKEN)


def locations(max_dcs: int = 3, max_racks: int = 3) -> st.SearchStrategy[Location]:
    return st.builds(Location, dc=st.sampled_from(DCS[:max_dcs]), rack=st.sampled_from(RACKS[:max_racks]))


def replication(dcs: tuple[str, ...], max_rf: int = 3) -> st.SearchStrategy[ReplicationParams]:
    simple = st.builds(SimpleStrategy, replication_factor=st.integers(1, max_rf))
    nts = st.dictionaries(st.sampled_from(dcs), st.integers(0, max_rf), min_size=1).filter(
        lambda d: sum(d.values()) > 0).map(NetworkTopologyStrategy.of)
    return st.one_of(simple, nts)


@st.composite
def topologies(draw: st.DrawFn, *, max_nodes: int = 8, max_tokens: int = 16, max_dcs: int = 3,
               max_racks: int = 3, max_keyspaces: int = 2,
               tokens: st.SearchStrategy[int] = small_tokens) -> Topology:
    """1-3 DCs, 1-3 racks, 1-16 tokens per node, 1-2 keyspaces; tokens distinct across nodes."""
    n = draw(st.integers(1, max_nodes))
    per_node = draw(st.lists(st.integers(1, max_tokens), min_size=n, max_size=n))
    all_tokens = draw(st.lists(tokens, min_size=sum(per_node), max_size=sum(per_node), unique=True))
    nodes = []
    at = 0
    for i, k in enumerate(per_node):
        nodes.append(NodeSpec(id=NodeId(f"n{i + 1}"), location=draw(locations(max_dcs, max_racks)),
                              tokens=tuple(sorted(all_tokens[at:at + k]))))
        at += k
    dcs = tuple(sorted({x.location.dc for x in nodes}))
    keyspaces = draw(st.lists(replication(dcs), min_size=1, max_size=max_keyspaces))
    return Topology(nodes=tuple(nodes), keyspaces=tuple((f"ks{i + 1}", p) for i, p in enumerate(keyspaces)))
