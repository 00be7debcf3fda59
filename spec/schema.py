"""Distributed schema: keyspaces with their replication, tables and user types.

Each schema change validates against the schema at its epoch, so the CEP's races (CREATE TABLE
with a type racing DROP TYPE; two racing CREATE TABLE) cannot both succeed: whichever commits
second sees the first and is rejected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from attrs import evolve, frozen

from spec.replication import ReplicationParams

NATIVE_TYPES = frozenset({
    "ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration",
    "float", "inet", "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint",
    "uuid", "varchar", "varint",
})
_TYPE_WORDS = frozenset({"frozen", "list", "set", "map", "tuple"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Column = tuple[str, str]
"""`(name, cql_type)`."""


def referenced_types(cql_type: str) -> frozenset[str]:
    """User type names a CQL type mentions (`frozen<map<int, address>>` mentions `address`)."""
    words = _IDENT.findall(cql_type.lower())
    return frozenset(w for w in words if w not in NATIVE_TYPES and w not in _TYPE_WORDS)


@frozen
class UserType:
    name: str
    fields: tuple[Column, ...]


@frozen
class Table:
    name: str
    columns: tuple[Column, ...]

    def uses_type(self, type_name: str) -> bool:
        return any(type_name in referenced_types(t) for _, t in self.columns)


@frozen(kw_only=True)
class Keyspace:
    name: str
    replication: ReplicationParams
    tables: tuple[Table, ...] = ()
    types: tuple[UserType, ...] = ()

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name == name), None)

    def user_type(self, name: str) -> UserType | None:
        return next((t for t in self.types if t.name == name), None)


@frozen
class DistributedSchema:
    keyspaces: tuple[Keyspace, ...] = ()

    @classmethod
    def of(cls, keyspaces: Iterable[Keyspace]) -> DistributedSchema:
        return cls(tuple(sorted(keyspaces, key=lambda k: k.name)))

    def keyspace(self, name: str) -> Keyspace | None:
        return next((k for k in self.keyspaces if k.name == name), None)

    def replication(self, name: str) -> ReplicationParams:
        ks = self.keyspace(name)
        if ks is None:
            raise KeyError(name)
        return ks.replication

    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keyspaces)

    def with_keyspace(self, ks: Keyspace) -> DistributedSchema:
        return DistributedSchema.of([*(k for k in self.keyspaces if k.name != ks.name), ks])

    def without_keyspace(self, name: str) -> DistributedSchema:
        return DistributedSchema(tuple(k for k in self.keyspaces if k.name != name))


# ---- schema changes: each `apply(schema) -> DistributedSchema | str` (a string is the reason)


def _unknown_types(ks: Keyspace, columns: Iterable[Column]) -> list[str]:
    known = {t.name for t in ks.types}
    return sorted({u for _, t in columns for u in referenced_types(t)} - known)


def _duplicate(names: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            return n
        seen.add(n)
    return None


@frozen(kw_only=True)
class CreateKeyspace:
    keyspace: str
    replication: ReplicationParams
    op = "CREATE_KEYSPACE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        if schema.keyspace(self.keyspace) is not None:
            return f"keyspace {self.keyspace} already exists"
        return schema.with_keyspace(Keyspace(name=self.keyspace, replication=self.replication))


@frozen(kw_only=True)
class AlterKeyspace:
    keyspace: str
    replication: ReplicationParams
    op = "ALTER_KEYSPACE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        ks = schema.keyspace(self.keyspace)
        if ks is None:
            return f"keyspace {self.keyspace} does not exist"
        return schema.with_keyspace(evolve(ks, replication=self.replication))


@frozen(kw_only=True)
class DropKeyspace:
    keyspace: str
    op = "DROP_KEYSPACE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        if schema.keyspace(self.keyspace) is None:
            return f"keyspace {self.keyspace} does not exist"
        return schema.without_keyspace(self.keyspace)


@frozen(kw_only=True)
class CreateTable:
    keyspace: str
    table: str
    columns: tuple[Column, ...]
    op = "CREATE_TABLE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        ks = schema.keyspace(self.keyspace)
        if ks is None:
            return f"keyspace {self.keyspace} does not exist"
        if ks.table(self.table) is not None:
            return f"table {self.keyspace}.{self.table} already exists"
        if not self.columns:
            return f"table {self.keyspace}.{self.table} needs at least one column"
        if (dup := _duplicate(n for n, _ in self.columns)) is not None:
            return f"table {self.keyspace}.{self.table} repeats column {dup}"
        if missing := _unknown_types(ks, self.columns):
            return f"table {self.keyspace}.{self.table} uses unknown type {missing[0]}"
        table = Table(self.table, self.columns)
        return schema.with_keyspace(evolve(ks, tables=tuple(sorted((*ks.tables, table), key=lambda t: t.name))))


@frozen(kw_only=True)
class AlterTable:
    keyspace: str
    table: str
    add: tuple[Column, ...] = ()
    drop: tuple[str, ...] = ()
    op = "ALTER_TABLE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        ks = schema.keyspace(self.keyspace)
        table = None if ks is None else ks.table(self.table)
        if ks is None or table is None:
            return f"table {self.keyspace}.{self.table} does not exist"
        names = [n for n, _ in table.columns]
        for d in self.drop:
            if d not in names:
                return f"table {self.keyspace}.{self.table} has no column {d}"
        kept = [c for c in table.columns if c[0] not in self.drop]
        for n, _ in self.add:
            if n in (k for k, _ in kept):
                return f"table {self.keyspace}.{self.table} already has column {n}"
        if (dup := _duplicate(n for n, _ in self.add)) is not None:
            return f"table {self.keyspace}.{self.table} repeats column {dup}"
        if missing := _unknown_types(ks, self.add):
            return f"table {self.keyspace}.{self.table} uses unknown type {missing[0]}"
        columns = (*kept, *self.add)
        if not columns:
            return f"table {self.keyspace}.{self.table} would have no columns"
        new = Table(self.table, columns)
        return schema.with_keyspace(evolve(ks, tables=tuple(new if t.name == self.table else t for t in ks.tables)))


@frozen(kw_only=True)
class DropTable:
    keyspace: str
    table: str
    op = "DROP_TABLE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        ks = schema.keyspace(self.keyspace)
        if ks is None or ks.table(self.table) is None:
            return f"table {self.keyspace}.{self.table} does not exist"
        return schema.with_keyspace(evolve(ks, tables=tuple(t for t in ks.tables if t.name != self.table)))


@frozen(kw_only=True)
class CreateType:
    keyspace: str
    type: str
    fields: tuple[Column, ...]
    op = "CREATE_TYPE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        ks = schema.keyspace(self.keyspace)
        if ks is None:
            return f"keyspace {self.keyspace} does not exist"
        if self.type.lower() in NATIVE_TYPES or self.type.lower() in _TYPE_WORDS:
            return f"type name {self.type} is reserved"
        if ks.user_type(self.type) is not None:
            return f"type {self.keyspace}.{self.type} already exists"
        if not self.fields:
            return f"type {self.keyspace}.{self.type} needs at least one field"
        if (dup := _duplicate(n for n, _ in self.fields)) is not None:
            return f"type {self.keyspace}.{self.type} repeats field {dup}"
        if missing := _unknown_types(ks, self.fields):
            return f"type {self.keyspace}.{self.type} uses unknown type {missing[0]}"
        new = UserType(self.type, self.fields)
        return schema.with_keyspace(evolve(ks, types=tuple(sorted((*ks.types, new), key=lambda t: t.name))))


@frozen(kw_only=True)
class DropType:
    keyspace: str
    type: str
    op = "DROP_TYPE"

    def apply(self, schema: DistributedSchema) -> DistributedSchema | str:
        ks = schema.keyspace(self.keyspace)
        if ks is None or ks.user_type(self.type) is None:
            return f"type {self.keyspace}.{self.type} does not exist"
        users = [t.name for t in ks.tables if t.uses_type(self.type)]
        users += [u.name for u in ks.types if any(self.type in referenced_types(ft) for _, ft in u.fields)]
        if users:
            return f"type {self.keyspace}.{self.type} is still used by {sorted(users)[0]}"
        return schema.with_keyspace(evolve(ks, types=tuple(t for t in ks.types if t.name != self.type)))


SchemaChange = (
    CreateKeyspace | AlterKeyspace | DropKeyspace | CreateTable | AlterTable | DropTable
    | CreateType | DropType
)
