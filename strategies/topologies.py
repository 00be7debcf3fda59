"""Hypothesis strategies for topologies: the campaign's topology generator (strategies/cases.py)
drawn by Hypothesis, so examples shrink towards the simplest (one DC, one rack, one token, RF 1).
"""

from __future__ import annotations

from hypothesis import strategies as st

from campaign.formats.topology import parse_replication, parse_topology
from spec.nodes import Location
from spec.replication import ReplicationParams
from spec.tokens import MAX_TOKEN, MIN_TOKEN
from spec.topology import Topology
from strategies import cases
from strategies.draws import HypothesisDraw

DCS = cases.DCS
RACKS = cases.RACKS

# Small token space by default: collisions and neighbouring tokens are where bugs live.
small_tokens = st.integers(min_value=-cases.SMALL_TOKENS, max_value=cases.SMALL_TOKENS)
any_tokens = st.integers(min_value=MIN_TOKEN + 1, max_value=MAX_TOKEN)


def locations(max_dcs: int = 3, max_racks: int = 3) -> st.SearchStrategy[Location]:
    return st.builds(Location, dc=st.sampled_from(DCS[:max_dcs]), rack=st.sampled_from(RACKS[:max_racks]))


@st.composite
def replication(draw: st.DrawFn, dcs: tuple[str, ...], max_rf: int = 3) -> ReplicationParams:
    """A replication of a keyspace over `dcs` (cases.replication)."""
    return parse_replication(cases.replication(HypothesisDraw(draw), dcs, max_rf), "generated replication")


@st.composite
def topologies(draw: st.DrawFn, *, max_nodes: int = 8, max_tokens: int = 16, max_dcs: int = 3,
               max_racks: int = 3, max_keyspaces: int = 2, token_span: int = cases.SMALL_TOKENS) -> Topology:
    """1 to `max_nodes` nodes in 1-3 DCs and 1-3 racks, 1 to `max_tokens` tokens each, 1-2 keyspaces;
    tokens distinct across nodes, from [-token_span, token_span]."""
    doc = cases.topology(HypothesisDraw(draw), min_nodes=1, max_nodes=max_nodes, token_span=token_span,
                         max_tokens=max_tokens, max_keyspaces=max_keyspaces, max_dcs=max_dcs, max_racks=max_racks)
    return parse_topology(doc, "generated topology")
