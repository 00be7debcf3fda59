"""SCHEMA_CHANGE: DDL validated against the schema at its epoch.

Because every change is validated against the metadata it is applied to, the CEP's races are
impossible: of CREATE TABLE using a type and DROP TYPE, whichever commits second sees the other
and is rejected; of two CREATE TABLE of one name, the second sees the table.

Cassandra's AlterSchema: a change that affects placements (a keyspace created with replication
params not yet in use, altered replication, the drop of the last keyspace with some params) is
rejected while any range is locked, by a topology sequence or by a CMS reconfiguration. Other
keyspace changes go through: placements are keyed by replication params, so a keyspace created
with params in use shares their placement, in-flight transitions included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from impl.metadata.metadata import Metadata, placement_from_scratch
from impl.metadata.replication import BadReplication, ReplicationParams
from impl.metadata.results import Accepted, Malformed, Rejected, Result, string_field
from impl.metadata.schema import BadType, Keyspace, Table, UserType, referenced_types


def schema_change(m: Metadata, t: Mapping[str, Any]) -> Result:
    change = t.get("change")
    if not isinstance(change, Mapping):
        raise Malformed("SCHEMA_CHANGE: field 'change' must be an object")
    op = change.get("op")
    handler = _OPS.get(op) if isinstance(op, str) else None
    if handler is None:
        raise Malformed(f"SCHEMA_CHANGE: unknown op {op!r}")
    return handler(m, change)


def _accept(m: Metadata, keyspaces: dict[str, Keyspace], **more: Any) -> Accepted:
    return Accepted(metadata=m.next(keyspaces=keyspaces, **more), kind="SCHEMA_CHANGE")


def _params(change: Mapping[str, Any]) -> ReplicationParams:
    try:
        return ReplicationParams.parse(change.get("replication"))
    except BadReplication as e:
        raise Malformed(f"SCHEMA_CHANGE: {e}") from None


def _columns(change: Mapping[str, Any], name: str, *, required: bool = True) -> tuple[tuple[str, str], ...]:
    raw = change.get(name, None if required else [])
    if not isinstance(raw, list):
        raise Malformed(f"SCHEMA_CHANGE: field {name!r} must be a list of [name, type]")
    out = []
    for c in raw:
        if (
            not isinstance(c, list | tuple)
            or len(c) != 2
            or not all(isinstance(x, str) and x for x in c)
        ):
            raise Malformed(f"SCHEMA_CHANGE: bad column {c!r} (want [name, type])")
        out.append((c[0], c[1]))
    if len({n for n, _ in out}) != len(out):
        raise Malformed(f"SCHEMA_CHANGE: field {name!r} repeats a name")
    return tuple(out)


def _unknown_type(ks: Keyspace, cols: tuple[tuple[str, str], ...], subject: str) -> Rejected | None:
    for _, cql in cols:
        try:
            used = referenced_types(cql)
        except BadType as e:
            raise Malformed(f"SCHEMA_CHANGE: {subject}: {e}") from None
        for u in sorted(used):
            if u not in ks.types:
                return Rejected(f"{subject}: unknown type {u}")
    return None


def _locked(m: Metadata, subject: str, keyspaces: dict[str, Keyspace]) -> Rejected | None:
    """Refuse a placement-affecting change while ranges are locked."""
    if not m.sequences and not m.cms.reconfiguring:
        return None
    wanted = {ks.replication.key for ks in keyspaces.values()}
    if wanted == set(m.placements):
        return None
    holder = f"node {min(m.sequences)}" if m.sequences else "the CMS reconfiguration"
    return Rejected(
        f"{subject}: the schema change affects placements and conflicts with ranges locked by {holder}"
    )


def _with_placements(m: Metadata, keyspaces: dict[str, Keyspace]) -> dict[str, Any]:
    """Placements for exactly the params in use: new params computed, unused ones dropped."""
    wanted = {ks.replication.key: ks.replication for ks in keyspaces.values()}
    if wanted.keys() == m.placements.keys():
        return {}
    placements = {
        key: m.placements[key] if key in m.placements else placement_from_scratch(p, m.token_map)
        for key, p in wanted.items()
    }
    return {"placements": placements}


def create_keyspace(m: Metadata, c: Mapping[str, Any]) -> Result:
    name = string_field(c, "keyspace")
    params = _params(c)
    if name in m.keyspaces:
        return Rejected(f"{name}: keyspace already exists")
    keyspaces = {**m.keyspaces, name: Keyspace(name=name, replication=params, tables={}, types={})}
    if (busy := _locked(m, name, keyspaces)) is not None:
        return busy
    return _accept(m, keyspaces, **_with_placements(m, keyspaces))


def alter_keyspace(m: Metadata, c: Mapping[str, Any]) -> Result:
    name = string_field(c, "keyspace")
    params = _params(c)
    ks = m.keyspaces.get(name)
    if ks is None:
        return Rejected(f"{name}: keyspace does not exist")
    keyspaces = {**m.keyspaces, name: Keyspace(name=name, replication=params, tables=ks.tables, types=ks.types)}
    if ks.replication.key != params.key and (m.sequences or m.cms.reconfiguring):
        holder = f"node {min(m.sequences)}" if m.sequences else "the CMS reconfiguration"
        return Rejected(f"{name}: altering replication affects placements and conflicts with ranges "
                        f"locked by {holder}")
    return _accept(m, keyspaces, **_with_placements(m, keyspaces))


def drop_keyspace(m: Metadata, c: Mapping[str, Any]) -> Result:
    name = string_field(c, "keyspace")
    if name not in m.keyspaces:
        return Rejected(f"{name}: keyspace does not exist")
    keyspaces = {k: v for k, v in m.keyspaces.items() if k != name}
    if (busy := _locked(m, name, keyspaces)) is not None:
        return busy
    return _accept(m, keyspaces, **_with_placements(m, keyspaces))


def _keyspace(m: Metadata, c: Mapping[str, Any], subject: str) -> Keyspace | Rejected:
    ks = m.keyspaces.get(string_field(c, "keyspace"))
    if ks is None:
        return Rejected(f"{subject}: keyspace does not exist")
    return ks


def create_table(m: Metadata, c: Mapping[str, Any]) -> Result:
    table = string_field(c, "table")
    subject = f"{string_field(c, 'keyspace')}.{table}"
    cols = _columns(c, "columns")
    ks = _keyspace(m, c, subject)
    if isinstance(ks, Rejected):
        return ks
    if table in ks.tables:
        return Rejected(f"{subject}: table already exists")
    if (bad := _unknown_type(ks, cols, subject)) is not None:
        return bad
    ks = ks.with_table(Table(name=table, columns=cols))
    return _accept(m, {**m.keyspaces, ks.name: ks})


def alter_table(m: Metadata, c: Mapping[str, Any]) -> Result:
    table = string_field(c, "table")
    subject = f"{string_field(c, 'keyspace')}.{table}"
    add = _columns(c, "add", required=False)
    drop = c.get("drop", [])
    if not isinstance(drop, list) or not all(isinstance(d, str) and d for d in drop):
        raise Malformed("SCHEMA_CHANGE: field 'drop' must be a list of column names")
    ks = _keyspace(m, c, subject)
    if isinstance(ks, Rejected):
        return ks
    current = ks.tables.get(table)
    if current is None:
        return Rejected(f"{subject}: table does not exist")
    names = [n for n, _ in current.columns]
    for d in drop:
        if d not in names:
            return Rejected(f"{subject}: column {d} does not exist")
    kept = tuple(col for col in current.columns if col[0] not in drop)
    for n, _ in add:
        if any(n == k for k, _ in kept):
            return Rejected(f"{subject}: column {n} already exists")
    if (bad := _unknown_type(ks, add, subject)) is not None:
        return bad
    ks = ks.with_table(Table(name=table, columns=kept + add))
    return _accept(m, {**m.keyspaces, ks.name: ks})


def drop_table(m: Metadata, c: Mapping[str, Any]) -> Result:
    table = string_field(c, "table")
    subject = f"{string_field(c, 'keyspace')}.{table}"
    ks = _keyspace(m, c, subject)
    if isinstance(ks, Rejected):
        return ks
    if table not in ks.tables:
        return Rejected(f"{subject}: table does not exist")
    ks = ks.without_table(table)
    return _accept(m, {**m.keyspaces, ks.name: ks})


def create_type(m: Metadata, c: Mapping[str, Any]) -> Result:
    name = string_field(c, "type")
    subject = f"{string_field(c, 'keyspace')}.{name}"
    fields = _columns(c, "fields")
    ks = _keyspace(m, c, subject)
    if isinstance(ks, Rejected):
        return ks
    if name in ks.types:
        return Rejected(f"{subject}: type already exists")
    if (bad := _unknown_type(ks, fields, subject)) is not None:
        return bad
    ks = ks.with_type(UserType(name=name, fields=fields))
    return _accept(m, {**m.keyspaces, ks.name: ks})


def drop_type(m: Metadata, c: Mapping[str, Any]) -> Result:
    name = string_field(c, "type")
    subject = f"{string_field(c, 'keyspace')}.{name}"
    ks = _keyspace(m, c, subject)
    if isinstance(ks, Rejected):
        return ks
    if name not in ks.types:
        return Rejected(f"{subject}: type does not exist")
    for tname in sorted(ks.tables):
        if name in ks.tables[tname].uses():
            return Rejected(f"{subject}: type is used by table {ks.name}.{tname}")
    for uname in sorted(ks.types):
        if name in ks.types[uname].uses():
            return Rejected(f"{subject}: type is used by type {ks.name}.{uname}")
    ks = ks.without_type(name)
    return _accept(m, {**m.keyspaces, ks.name: ks})


_OPS = {
    "CREATE_KEYSPACE": create_keyspace,
    "ALTER_KEYSPACE": alter_keyspace,
    "DROP_KEYSPACE": drop_keyspace,
    "CREATE_TABLE": create_table,
    "ALTER_TABLE": alter_table,
    "DROP_TABLE": drop_table,
    "CREATE_TYPE": create_type,
    "DROP_TYPE": drop_type,
}
