"""Schema changes validated at their epoch: the CEP's races cannot both succeed."""

from __future__ import annotations

from spec import schema as S
from spec.invariants import check_invariants
from spec.metadata import ClusterMetadata
from spec.operations import Join, Resume, run_operations
from spec.replication import SimpleStrategy
from spec.sequences import Step
from spec.transformations import AlterSchema, Rejected, Success, Transformation
from tests.spec.helpers import node, ring, run


def commit(m: ClusterMetadata, *ts: Transformation) -> list[str | None]:
    """Commit in order; the reason of each rejection, None for each success."""
    out: list[str | None] = []
    for t in ts:
        r = t.execute(m)
        if isinstance(r, Success):
            m = r.metadata
            out.append(None)
        else:
            out.append(r.reason)
    return out


BASE = ClusterMetadata.initial(ring(node("A", 100), node("B", 200), node("C", 300)))
WITH_TYPE = AlterSchema(change=S.CreateType(keyspace="ks", type="ud_type", fields=(("x", "int"),))).execute(BASE)
assert isinstance(WITH_TYPE, Success)
CREATE_FOO = AlterSchema(change=S.CreateTable(keyspace="ks", table="foo", columns=(("id", "int"), ("bar", "ud_type"))))
DROP_TYPE = AlterSchema(change=S.DropType(keyspace="ks", type="ud_type"))


def test_create_table_with_a_type_then_drop_type_rejects_the_drop() -> None:
    """CEP "Racing DROP X validations": CREATE TABLE foo (..., bar ud_type) vs DROP TYPE ud_type."""
    assert commit(WITH_TYPE.metadata, CREATE_FOO, DROP_TYPE) == [None, "type ks.ud_type is still used by foo"]


def test_drop_type_then_create_table_with_it_rejects_the_create() -> None:
    assert commit(WITH_TYPE.metadata, DROP_TYPE, CREATE_FOO) == [None, "table ks.foo uses unknown type ud_type"]


def test_racing_create_table_of_one_name_commits_once() -> None:
    """CEP "Racing CREATE TABLE statements": the second is rejected, not given a second id."""
    create = AlterSchema(change=S.CreateTable(keyspace="ks", table="t", columns=(("id", "int"),)))
    assert commit(BASE, create, create) == [None, "table ks.t already exists"]


def test_alter_of_a_dropped_table_is_rejected() -> None:
    """CEP: "if an event which performs DROP TABLE t ... has been committed, a subsequent event
    which performs an ALTER TABLE t command should be rejected"."""
    create = AlterSchema(change=S.CreateTable(keyspace="ks", table="t", columns=(("id", "int"),)))
    drop = AlterSchema(change=S.DropTable(keyspace="ks", table="t"))
    alter = AlterSchema(change=S.AlterTable(keyspace="ks", table="t", add=(("v", "text"),)))
    assert commit(BASE, create, drop, alter) == [None, None, "table ks.t does not exist"]


def test_create_keyspace_computes_its_placements_from_the_token_map() -> None:
    create = AlterSchema(change=S.CreateKeyspace(keyspace="ks3", replication=SimpleStrategy(replication_factor=3)))
    r = create.execute(BASE)
    assert isinstance(r, Success)
    groups = r.metadata.placements.get("ks3").reads
    assert all(replicas == {"A", "B", "C"} for _, replicas in groups)
    assert check_invariants(r.metadata) == ()


def test_drop_keyspace_removes_its_placements() -> None:
    r = AlterSchema(change=S.DropKeyspace(keyspace="ks")).execute(BASE)
    assert isinstance(r, Success) and r.metadata.placements.keyspaces() == ()


def test_keyspace_changes_wait_for_topology_operations_to_finish() -> None:
    """AlterSchema rejects placement-affecting changes while ranges are locked; a keyspace with
    params in use joins their placement, transitions in flight included."""
    m = run(ring(node("A", 100), node("B", 200), node("C", 300)), Join(node=node("X", 150), until=Step.START)).final
    r = AlterSchema(change=S.CreateKeyspace(keyspace="k2", replication=SimpleStrategy(replication_factor=1))).execute(m)
    assert isinstance(r, Rejected) and "affects placements" in r.reason
    twin = AlterSchema(change=S.CreateKeyspace(keyspace="k3", replication=SimpleStrategy(replication_factor=2))).execute(m)
    assert not isinstance(twin, Rejected)
    assert twin.metadata.placements.get("k3") == m.placements.get("ks")
    done = run_operations(twin.metadata, [Resume(node="X")]).final
    assert done.placements.get("k3") == done.placements.get("ks") == done.placements_from_scratch().get("ks")


def test_schema_ddl_during_a_cms_reconfiguration_is_rejected() -> None:
    """PrepareCMSReconfiguration locks the metadata keyspace's whole range: placement-affecting
    DDL waits for the last ADVANCE, which unlocks; table DDL does not."""
    from spec.transformations import AdvanceCMSReconfiguration, PrepareCMSReconfiguration

    m = run(ring(node("A", 100), node("B", 200), node("C", 300))).final
    r = PrepareCMSReconfiguration(add={"B"}).execute(m)
    assert not isinstance(r, Rejected)
    m = r.metadata
    create = AlterSchema(change=S.CreateKeyspace(keyspace="k2", replication=SimpleStrategy(replication_factor=1)))
    refused = create.execute(m)
    assert isinstance(refused, Rejected) and "system_cluster_metadata" in refused.reason
    table = AlterSchema(change=S.CreateTable(keyspace="ks", table="t", columns=(("id", "int"),)))
    assert not isinstance(table.execute(m), Rejected)
    for index in range(3):
        stale = AdvanceCMSReconfiguration(sequence_index=index + 1).execute(m)
        assert isinstance(stale, Rejected)
        r = AdvanceCMSReconfiguration(sequence_index=index).execute(m)
        assert not isinstance(r, Rejected)
        m = r.metadata
    assert m.cms.reconfiguration is None and not m.locked_ranges
    assert not isinstance(create.execute(m), Rejected)


def test_types_inside_collections_count_as_uses() -> None:
    assert S.referenced_types("frozen<map<int, list<address>>>") == {"address"}
    assert S.referenced_types("map<text, int>") == frozenset()
