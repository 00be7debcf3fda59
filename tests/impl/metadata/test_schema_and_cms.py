"""Schema changes validated at their epoch (the CEP's DDL races), CMS reconfiguration,
INITIALIZE_CMS gates, snapshots."""

from __future__ import annotations

import json
from typing import Any

import pytest

from impl.metadata import Metadata, cms_target_size, execute
from tests.impl.metadata.helpers import ok, register, rejected, run, steps, topology

RING = topology([("A", 100), ("B", 200), ("C", 300)])


def ddl(op: str, **fields: Any) -> dict[str, Any]:
    return {"kind": "SCHEMA_CHANGE", "change": {"op": op, **fields}}


CREATE_TYPE = ddl("CREATE_TYPE", keyspace="ks", type="addr", fields=[["street", "text"]])
DROP_TYPE = ddl("DROP_TYPE", keyspace="ks", type="addr")
CREATE_T_WITH_TYPE = ddl("CREATE_TABLE", keyspace="ks", table="t", columns=[["k", "int"], ["a", "frozen<addr>"]])


def with_type() -> Metadata:
    return ok(Metadata.from_topology(RING), CREATE_TYPE)


def test_create_table_with_a_type_then_drop_type_rejects_the_drop() -> None:
    """CEP: CREATE TABLE using a type racing DROP TYPE -- whichever commits second is rejected."""
    m = ok(with_type(), CREATE_T_WITH_TYPE)
    assert rejected(m, DROP_TYPE) == "ks.addr: type is used by table ks.t"


def test_drop_type_then_create_table_with_it_rejects_the_create() -> None:
    m = ok(with_type(), DROP_TYPE)
    assert rejected(m, CREATE_T_WITH_TYPE) == "ks.t: unknown type addr"


def test_two_create_table_of_one_name_reject_the_second() -> None:
    m = ok(with_type(), ddl("CREATE_TABLE", keyspace="ks", table="t", columns=[["k", "int"]]))
    assert rejected(m, CREATE_T_WITH_TYPE) == "ks.t: table already exists"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (ddl("CREATE_KEYSPACE", keyspace="ks", replication={"class": "SimpleStrategy", "replication_factor": 1}), "ks: keyspace already exists"),
        (ddl("ALTER_KEYSPACE", keyspace="nope", replication={"class": "SimpleStrategy", "replication_factor": 1}), "nope: keyspace does not exist"),
        (ddl("DROP_KEYSPACE", keyspace="nope"), "nope: keyspace does not exist"),
        (ddl("ALTER_TABLE", keyspace="ks", table="nope", add=[["x", "int"]]), "ks.nope: table does not exist"),
        (ddl("DROP_TABLE", keyspace="ks", table="nope"), "ks.nope: table does not exist"),
        (CREATE_TYPE, "ks.addr: type already exists"),
        (ddl("CREATE_TABLE", keyspace="ks", table="u", columns=[["k", "map<int, list<frozen<zip>>>"]]), "ks.u: unknown type zip"),
        (ddl("CREATE_TABLE", keyspace="none", table="u", columns=[["k", "int"]]), "none.u: keyspace does not exist"),
    ],
)
def test_schema_changes_are_validated_against_their_epoch(change: dict[str, Any], reason: str) -> None:
    assert rejected(with_type(), change) == reason


def test_malformed_schema_changes() -> None:
    m = with_type()
    assert rejected(m, ddl("RENAME", keyspace="ks")).startswith("malformed:")
    assert rejected(m, ddl("CREATE_TABLE", keyspace="ks", table="x", columns=[["k"]])).startswith("malformed:")
    assert rejected(m, ddl("CREATE_KEYSPACE", keyspace="k2", replication={"class": "Nope"})).startswith("malformed:")


def test_alter_table_adds_and_drops_columns() -> None:
    m = run(with_type(), [CREATE_T_WITH_TYPE, ddl("ALTER_TABLE", keyspace="ks", table="t", add=[["v", "text"]], drop=["a"])])
    assert m.keyspaces["ks"].tables["t"].columns == (("k", "int"), ("v", "text"))
    ok(m, DROP_TYPE)
    assert rejected(m, ddl("ALTER_TABLE", keyspace="ks", table="t", drop=["zz"])) == "ks.t: column zz does not exist"


def test_table_changes_share_the_placements_and_token_map() -> None:
    """A schema change must not recompute placements: the next metadata shares them."""
    m = with_type()
    n = ok(m, CREATE_T_WITH_TYPE)
    assert n.placements is m.placements and n.token_map is m.token_map and n.directory is m.directory


def test_create_keyspace_computes_placements_only_for_new_replication() -> None:
    m = Metadata.from_topology(RING)
    same = ok(m, ddl("CREATE_KEYSPACE", keyspace="k2", replication={"class": "SimpleStrategy", "replication_factor": 2}))
    assert same.placements is m.placements
    other = ok(same, ddl("CREATE_KEYSPACE", keyspace="k3", replication={"class": "SimpleStrategy", "replication_factor": 3}))
    assert other.read_replicas("k3", 150) == ("A", "B", "C")
    dropped = ok(other, ddl("DROP_KEYSPACE", keyspace="k3"))
    assert len(dropped.placements) == 1
    altered = ok(dropped, ddl("ALTER_KEYSPACE", keyspace="ks", replication={"class": "SimpleStrategy", "replication_factor": 1}))
    assert altered.read_replicas("ks", 150) == ("B",) and altered.read_replicas("k2", 150) == ("B", "C")


def test_keyspace_changes_wait_for_topology_sequences() -> None:
    """AlterSchema: changes that affect placements are refused while ranges are locked; a
    keyspace with params already in use shares their placement and goes through."""
    m = run(Metadata.from_topology(RING), [register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]}])
    reason = rejected(m, ddl("CREATE_KEYSPACE", keyspace="k2", replication={"class": "SimpleStrategy", "replication_factor": 1}))
    assert reason.startswith("k2: the schema change affects placements and conflicts with ranges locked by node X")
    ok(m, ddl("CREATE_TABLE", keyspace="ks", table="t", columns=[["k", "int"]]))
    twin = ok(m, ddl("CREATE_KEYSPACE", keyspace="k3", replication={"class": "SimpleStrategy", "replication_factor": 2}))
    assert rejected(twin, ddl("ALTER_KEYSPACE", keyspace="k3", replication={"class": "SimpleStrategy", "replication_factor": 1}))
    ok(twin, ddl("DROP_KEYSPACE", keyspace="k3"))
    assert "affects placements" in rejected(m, ddl("DROP_KEYSPACE", keyspace="ks"))


# -- CMS reconfiguration ------------------------------------------------------------------------

RING5 = topology([(n, t) for n, t in zip("ABCDE", range(100, 600, 100), strict=True)])


def test_cms_add_goes_to_the_write_set_then_the_read_set() -> None:
    """CEP: a new member is added to the write set, streams the log, then joins the read set."""
    m = Metadata.from_topology(RING5)
    m = ok(m, {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["C", "B"], "remove": ["A"]})
    assert m.cms_members() == ("A",)
    seen = []
    while m.cms.reconfiguring:
        m = ok(m, {"kind": "ADVANCE_CMS_RECONFIGURATION"})
        seen.append((m.cms_members(), m.cms_write_members()))
        assert len(set(m.cms_write_members()) ^ set(m.cms_members())) <= 1
    assert seen == [
        (("A",), ("A", "B")),
        (("A", "B"), ("A", "B")),
        (("A", "B"), ("A", "B", "C")),
        (("A", "B", "C"), ("A", "B", "C")),
        (("B", "C"), ("B", "C")),
        (("B", "C"), ("B", "C")),  # the separate last step ends the sequence and unlocks
    ]
    assert rejected(m, {"kind": "ADVANCE_CMS_RECONFIGURATION"}) == "CMS: no reconfiguration in progress"


def test_cms_cancel_drops_write_only_members() -> None:
    m = run(Metadata.from_topology(RING5), [{"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B"], "remove": []}, {"kind": "ADVANCE_CMS_RECONFIGURATION"}])
    assert m.cms_write_members() == ("A", "B")
    m = ok(m, {"kind": "CANCEL_CMS_RECONFIGURATION"})
    assert (m.cms_members(), m.cms_write_members(), m.cms.reconfiguring) == (("A",), ("A",), False)


def test_cms_members_must_be_joined_nodes() -> None:
    m = ok(Metadata.from_topology(RING5), register("X"))
    assert rejected(m, {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["X"], "remove": []}) == (
        "CMS: X must be JOINED to become a member, not REGISTERED"
    )
    assert rejected(m, {"kind": "PREPARE_CMS_RECONFIGURATION", "add": [], "remove": ["A"]}) == (
        "CMS: the reconfiguration would leave no members"
    )
    m = ok(m, {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B"], "remove": []})
    assert rejected(m, {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["C"], "remove": []}) == (
        "CMS: a reconfiguration is already in progress"
    )


@pytest.mark.parametrize(("nodes", "size"), [(1, 1), (2, 1), (3, 3), (5, 3), (6, 5), (100, 5), (101, 10)])
def test_cms_target_size_follows_the_cep(nodes: int, size: int) -> None:
    assert cms_target_size(nodes) == size


# -- INITIALIZE_CMS ------------------------------------------------------------------------------

GOSSIP = topology([("A", 100), ("B", 200), ("C", 300)])


def gossip(**kw: Any) -> Metadata:
    return Metadata.from_gossip(GOSSIP, **kw)


@pytest.mark.parametrize(
    ("meta", "t", "reason"),
    [
        (gossip(), {"node": "A", "ignore": ["A"]}, "Can't ignore local host A when doing CMS migration"),
        (gossip(), {"node": "A", "ignore": ["Z", "B"]}, "Ignored host(s) [Z] don't exist in the cluster"),
        (gossip(states={"A": "BOOTSTRAPPING"}), {"node": "A"}, "Initial CMS node needs to be fully joined, not: BOOTSTRAPPING"),
        (gossip(versions={"C": "5.0.2"}), {"node": "A"}, "All nodes are not yet upgraded - C is running 5.0.2"),
        (gossip(initiated_by="B"), {"node": "A"}, "Migration already initiated by B"),
    ],
)
def test_initialize_cms_gates(meta: Metadata, t: dict[str, Any], reason: str) -> None:
    assert rejected(meta, {"kind": "INITIALIZE_CMS", **t}) == reason


def test_initialize_cms_makes_the_initiator_the_only_member() -> None:
    m = gossip(versions={"C": "5.0"})
    assert rejected(m, register("X")).startswith("REGISTER: the CMS is not initialized")
    m = ok(m, {"kind": "INITIALIZE_CMS", "node": "B", "ignore": ["C"]})
    assert m.cms_initialized and m.cms_members() == ("B",)
    assert rejected(m, {"kind": "INITIALIZE_CMS", "node": "B", "ignore": ["C"]}) == (
        "Can't upgrade from gossip since CMS is already initialized"
    )
    left = gossip(versions={"C": "4.1"}, states={"C": "LEFT"})
    ok(left, {"kind": "INITIALIZE_CMS", "node": "A"})


# -- snapshots -----------------------------------------------------------------------------------


def test_snapshot_round_trip_preserves_the_digest_mid_sequence() -> None:
    m = run(
        Metadata.from_topology(RING5),
        [
            ddl("CREATE_TYPE", keyspace="ks", type="addr", fields=[["s", "text"]]),
            ddl("CREATE_TABLE", keyspace="ks", table="t", columns=[["k", "int"], ["a", "frozen<addr>"]]),
            register("X"),
            {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
            steps("JOIN", "X")[0],
            {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B"], "remove": []},
            {"kind": "TRIGGER_SNAPSHOT"},
        ],
    )
    back = Metadata.from_json(json.loads(json.dumps(m.to_json())))
    assert back.digest() == m.digest()
    assert back.to_json() == m.to_json()
    # the restored metadata continues exactly like the original
    a = run(m, steps("JOIN", "X")[1:])
    b = run(back, steps("JOIN", "X")[1:])
    assert a.digest() == b.digest()


def test_digest_changes_with_any_commit() -> None:
    m = Metadata.from_topology(RING)
    n = ok(m, {"kind": "TRIGGER_SNAPSHOT"})
    assert n.digest() != m.digest()
    assert Metadata.from_topology(RING).digest() == m.digest()


def test_execute_is_pure() -> None:
    m = Metadata.from_topology(RING)
    before = m.to_json()
    execute(m, register("X"))
    execute(m, {"kind": "PREPARE_LEAVE", "node": "C"})
    assert m.to_json() == before
