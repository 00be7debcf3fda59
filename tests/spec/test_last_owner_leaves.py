"""A forced removal of the last token owner (reachable through the replace-cms-member finding:
the replacement of the only node, then `removenode --force` of the replacement)."""

from __future__ import annotations

from campaign.formats.placements import placements_json
from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from impl.metadata import Accepted, Metadata, execute
from spec.metadata import ClusterMetadata
from spec.transformations.base import Rejected

TOPOLOGY = {"nodes": [{"id": "n1", "dc": "dc1", "rack": "r1", "tokens": [199]}],
            "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 1}}]}
STEPS = [{"kind": "REGISTER", "node": {"id": "x1", "dc": "dc1", "rack": "r1"}},
         {"kind": "PREPARE_REPLACE", "node": "x1", "replaced": "n1"},
         {"kind": "START_REPLACE", "node": "x1"}, {"kind": "MID_REPLACE", "node": "x1"},
         {"kind": "FINISH_REPLACE", "node": "x1"},
         {"kind": "PREPARE_LEAVE", "node": "x1", "remove": True, "force": True},
         {"kind": "START_LEAVE", "node": "x1"}, {"kind": "MID_LEAVE", "node": "x1"},
         {"kind": "FINISH_LEAVE", "node": "x1"}]


def test_removing_the_last_token_owner_leaves_no_range_in_spec_and_impl() -> None:
    """Found by a 5,000-run campaign (refine seed 3141014212): the spec's plan crashed on an
    empty ring instead of planning every range to no replica, as impl does."""
    m = ClusterMetadata.initial(parse_topology(TOPOLOGY))
    im = Metadata.from_topology(TOPOLOGY)
    for t in STEPS:
        r = parse_transformation(t).execute(m)
        ir = execute(im, t)
        assert not isinstance(r, Rejected) and isinstance(ir, Accepted), t["kind"]
        m, im = r.metadata, ir.metadata
    # no token is left, so no range either (the placement computed from scratch), on both sides
    ((_, placement),) = m.placements.items()
    assert placement.reads.entries == () and placement.writes.entries == ()
    assert im.placements_json() == placements_json(m.placements) == placements_json(m.placements_from_scratch())
