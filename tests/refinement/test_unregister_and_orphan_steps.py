"""Issue 21's model points, spec and impl alike (trunk 6bbe85ef):

- `Unregister` carries the start states its caller allows (`new Unregister(nodeId,
  EnumSet.of(...))`): `nodetool abortbootstrap` REGISTERED/BOOTSTRAPPING/BOOT_REPLACING,
  `nodetool cms unregister` and Register at a LEFT node's address LEFT; absent (an entry written
  before `Version.V2`, or the test helper `Unregister.unregister`) every state.
- `Directory.withNodeState` is `states.withForce(...)`: writing a state for an id with no peer
  entry does not fail. A step of a sequence whose node was unregistered still fails, for other
  reasons: with keyspaces, START and MID change placements, and `Transformer.build()` sorts every
  replica group (`sorted_replica_groups_enabled`, default true) with `PrimaryRangeComparator`,
  whose `directory.peerId(endpoint)` of the unregistered node is null (NullPointerException);
  FINISH calls `Directory.withRackAndDC`, whose `locations.get(id)` is null.
"""

from __future__ import annotations

from typing import Any

from campaign.formats.transformations import parse_transformation, transformation_json
from tests.refinement.test_cassandra_rules import RING4, SIMPLE, both, register, topology

ABORT = ["REGISTERED", "BOOTSTRAPPING", "BOOT_REPLACING"]


def unregister(node: str, *allowed: str) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "UNREGISTER", "node": node}
    if allowed:
        out["allowed"] = list(allowed)
    return out


def test_unregister_allows_only_the_states_its_caller_names() -> None:
    _, _, verdicts = both(topology(RING4, SIMPLE), [
        register("X"),
        unregister("X", "LEFT"),                        # nodetool cms unregister: LEFT only
        unregister("B", *ABORT),                        # abortbootstrap of a JOINED node
        unregister("Y", "LEFT"),
        {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
        {"kind": "START_JOIN", "node": "X"},
        unregister("X", *ABORT),                        # abortbootstrap: BOOTSTRAPPING is allowed
    ])
    assert verdicts[1] == "Can't unregister X - node state is REGISTERED not [LEFT]"
    assert verdicts[2] == "Can't unregister B - node state is JOINED not [REGISTERED, BOOTSTRAPPING, BOOT_REPLACING]"
    assert verdicts[3] == "Can not unregister Y since it is not present in the directory."
    assert verdicts[4:] == [None, None, None]


def test_an_unregister_without_allowed_states_allows_every_state() -> None:
    # Unregister.Serializer: an entry from before Version.V2 deserializes as EnumSet.allOf
    _, _, verdicts = both(topology(RING4, SIMPLE), [unregister("B")])
    assert verdicts == [None]


def test_the_allowed_states_travel_on_the_wire() -> None:
    t = unregister("X", "LEFT", "REGISTERED")
    parsed = parse_transformation(t)
    # Cassandra's EnumSet order, whatever order the file gives
    assert transformation_json(parsed) == {"kind": "UNREGISTER", "node": "X", "allowed": ["REGISTERED", "LEFT"]}
    assert transformation_json(parse_transformation(unregister("X"))) == {"kind": "UNREGISTER", "node": "X"}


def test_start_of_an_unregistered_joiner_fails_in_transformer_build() -> None:
    _, _, verdicts = both(topology(RING4, SIMPLE), [
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
        unregister("X", *ABORT), {"kind": "START_JOIN", "node": "X"}])
    assert verdicts[:3] == [None, None, None]
    reason = verdicts[3] or ""
    assert reason.startswith("X: START_JOIN: commit failed")
    assert "PrimaryRangeComparator" in reason and "sorted_replica_groups_enabled" in reason


def test_mid_after_the_joiner_was_unregistered_fails_in_transformer_build() -> None:
    _, _, verdicts = both(topology(RING4, SIMPLE), [
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
        {"kind": "START_JOIN", "node": "X"}, unregister("X", *ABORT), {"kind": "MID_JOIN", "node": "X"}])
    assert verdicts[:4] == [None] * 4
    assert "PrimaryRangeComparator" in (verdicts[4] or "")


def test_finish_after_the_joiner_was_unregistered_fails_in_with_rack_and_dc() -> None:
    _, _, verdicts = both(topology(RING4, SIMPLE), [
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
        {"kind": "START_JOIN", "node": "X"}, {"kind": "MID_JOIN", "node": "X"},
        unregister("X", *ABORT), {"kind": "FINISH_JOIN", "node": "X"}])
    assert verdicts[:5] == [None] * 5
    assert "Directory.withRackAndDC" in (verdicts[5] or "")


def test_with_no_keyspace_the_state_write_itself_does_not_fail() -> None:
    # no placement changes, so nothing sorts a replica group: withForce writes the state of an
    # id with no peer entry and START_JOIN commits
    _, _, verdicts = both(topology(RING4, {}), [
        register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
        unregister("X", *ABORT), {"kind": "START_JOIN", "node": "X"}, {"kind": "MID_JOIN", "node": "X"},
        {"kind": "FINISH_JOIN", "node": "X"}])
    assert verdicts[:5] == [None] * 5
    assert "Directory.withRackAndDC" in (verdicts[5] or "")


def test_a_cancelled_join_leaves_its_node_registered_even_from_left() -> None:
    # BootstrapAndJoin.cancel: `.withNodeState(startJoin.nodeId(), NodeState.REGISTERED)`,
    # whatever the state at PREPARE (PrepareJoin accepts a LEFT node)
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_LEAVE", "node": "D"}, {"kind": "START_LEAVE", "node": "D"},
        {"kind": "MID_LEAVE", "node": "D"}, {"kind": "FINISH_LEAVE", "node": "D"},
        {"kind": "PREPARE_JOIN", "node": "D", "tokens": [450]}, {"kind": "CANCEL_SEQUENCE", "node": "D"}])
    assert verdicts == [None] * 6
    assert spec_m.directory.state("D").name == "REGISTERED"
    assert impl_m.node_state("D").name == "REGISTERED"


def test_prepare_leave_refuses_a_full_cms_member_only() -> None:
    # PrepareLeave.execute: `prev.isCMSMember(prev.directory.endpoint(leaving))`, and
    # ClusterMetadata.isCMSMember is `fullCMSMembers().contains(endpoint)`, the read members: a
    # node only joining the CMS (in its write set) may leave the ring
    _, _, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["D"]}, {"kind": "ADVANCE_CMS_RECONFIGURATION"},
        {"kind": "PREPARE_LEAVE", "node": "D", "force": True}, {"kind": "PREPARE_LEAVE", "node": "A", "force": True}])
    assert verdicts[:3] == [None, None, None]
    assert verdicts[3] is not None and "CMS" in verdicts[3]
