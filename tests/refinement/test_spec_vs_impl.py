"""Differential test: the same transformations through spec/ and impl/metadata must agree.

Both sides get the same topology and the same transformations (impl through the JSON wire
shape). After every step they must agree on acceptance and, when both accept, on the read and
write placements of every keyspace. Rejection reasons are worded differently and not compared.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from campaign.formats.placements import placements_json
from campaign.formats.topology import replication_json
from campaign.formats.transformations import transformation_json
from impl.metadata import Accepted, Metadata, execute
from spec.metadata import ClusterMetadata
from spec.topology import Topology
from spec.transformations import Rejected
from strategies.operations import transformations
from strategies.topologies import topologies


def topology_json(t: Topology) -> dict[str, Any]:
    return {
        "nodes": [{"id": n.id, "dc": n.location.dc, "rack": n.location.rack, "tokens": list(n.tokens)} for n in t.nodes],
        "keyspaces": [{"name": name, "replication": replication_json(p)} for name, p in t.keyspaces],
    }


# Up to 20 steps, each a transformation drawn from the metadata it applies to (a topology of up
# to 6 nodes of 3 tokens): on some seeds most examples outgrow Hypothesis's per-example budget
# and its health check fails the test before any step is compared (seen once in CI's default
# run: --hypothesis-seed=51408797120716086313043059392198778871). Such examples are discarded
# either way; the ones that fit are still compared in full.
@settings(suppress_health_check=[HealthCheck.data_too_large])
@given(topologies(max_nodes=6, max_tokens=3), st.data())
def test_spec_and_impl_accept_the_same_steps_and_place_replicas_alike(topology: Topology, data: st.DataObject) -> None:
    spec_m = ClusterMetadata.initial(topology)
    impl_m = Metadata.from_topology(topology_json(topology))
    assert impl_m.placements_json() == placements_json(spec_m.placements)
    for _ in range(data.draw(st.integers(1, 20), label="steps")):
        t = data.draw(transformations(spec_m))
        spec_r = t.execute(spec_m)
        impl_r = execute(impl_m, transformation_json(t))
        note(f"{t!r}: spec {getattr(spec_r, 'reason', 'ok')} / impl {getattr(impl_r, 'reason', 'ok')}")
        assert isinstance(spec_r, Rejected) == (not isinstance(impl_r, Accepted))
        if isinstance(impl_r, Accepted) and not isinstance(spec_r, Rejected):
            spec_m, impl_m = spec_r.metadata, impl_r.metadata
            assert impl_m.epoch == spec_m.epoch
            assert impl_m.placements_json() == placements_json(spec_m.placements)
            assert observed(impl_m) == abstract(spec_m)


def abstract(m: ClusterMetadata) -> dict[str, Any]:
    """What both sides must agree on beyond placements: node states, tokens, CMS sets."""
    return {
        "states": {n.id: n.state.value for n in m.directory},
        "tokens": {n.id: m.token_map.tokens_of(n.id) for n in m.directory},
        "cms": (tuple(sorted(m.cms.reads)), tuple(sorted(m.cms.writes))),
    }


def observed(m: Metadata) -> dict[str, Any]:
    return {
        "states": {n: m.node_state(n).value for n in sorted(m.directory)},
        "tokens": {n: m.tokens_of(n) for n in sorted(m.directory)},
        "cms": (m.cms_members(), m.cms_write_members()),
    }
