"""Transformations survive the JSON wire shape (docs/transformations-json.md) unchanged."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign.errors import BadInput
from campaign.formats.transformations import parse_transformation, transformation_json
from spec import transformations as T
from spec.cms_placement import Placement
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId
from spec.topology import Topology
from strategies.operations import transformations
from strategies.topologies import topologies

EXTRA = [
    T.AlterTopology(changes=((NodeId("A"), Location(dc="dc2", rack="r2")),)),
    T.PrepareCMSReconfiguration(add={"B"}, remove={"A"}),
    T.PrepareCMSReconfiguration(placement=Placement(size=3, down={"C"}, without=NodeId("A"))),
    T.PrepareCMSReconfiguration(placement=Placement(size=5)),
    T.AdvanceCMSReconfiguration(), T.CancelCMSReconfiguration(), T.TriggerSnapshot(),
    T.InitializeCMS(node="A", ignore={"C"}), T.UnsafeJoin(node="X", tokens=(5, 7)), T.Assassinate(node="B"),
    T.Unregister(node="Q"), T.AdvanceCMSReconfiguration(sequence_index=2),
    T.Startup(node="A", address="10.0.0.9"), T.PrepareLeave(node="B", force=True),
]


@given(topologies(max_nodes=4, max_tokens=2), st.data())
def test_generated_transformations_round_trip_through_json(topology: Topology, data: st.DataObject) -> None:
    t = data.draw(st.one_of(transformations(ClusterMetadata.initial(topology)), st.sampled_from(EXTRA)))
    wire = json.loads(json.dumps(transformation_json(t)))
    assert parse_transformation(wire) == t


def test_every_kind_has_a_wire_shape() -> None:
    kinds = {t.kind for t in EXTRA} | {"REGISTER", "PREPARE_JOIN", "PREPARE_LEAVE", "PREPARE_MOVE", "PREPARE_REPLACE",
                                       "SCHEMA_CHANGE"} | {c.kind for c in T.ALL if c.kind.split("_")[0] in ("START", "MID", "FINISH")}
    kinds |= {"CANCEL_SEQUENCE"}
    assert kinds == set(T.BY_KIND)


@pytest.mark.parametrize("placement", [{"size": 0}, {"size": True}, {"size": 3, "down": "A"}, {"size": 3, "without": ""},
                                       {"down": []}, {"size": 10**9}])
def test_a_malformed_placement_is_bad_input_naming_it(placement: dict[str, object]) -> None:
    with pytest.raises(BadInput, match="placement"):
        parse_transformation({"kind": "PREPARE_CMS_RECONFIGURATION", "placement": placement})
