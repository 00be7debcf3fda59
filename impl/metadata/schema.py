"""Schema: keyspaces with replication params, tables with columns, user types.

Every value is frozen; a change copies only the keyspace it touches (the `keyspaces` dict is
copied shallowly, tables and types of other keyspaces are shared), so applying a schema change
costs O(keyspaces + tables of one keyspace), never a placement computation.
"""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen

from impl.metadata.replication import ReplicationParams

NATIVE_TYPES = frozenset(
    {
        "ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double",
        "duration", "float", "inet", "int", "smallint", "text", "time", "timestamp",
        "timeuuid", "tinyint", "uuid", "varchar", "varint",
    }
)  # fmt: skip
_WRAPPERS = {"frozen": 1, "list": 1, "set": 1, "map": 2, "tuple": -1}


class BadType(ValueError):
    pass


def referenced_types(cql_type: str) -> frozenset[str]:
    """User type names referenced by a CQL type expression; raises BadType when unparsable."""
    out: set[str] = set()
    _parse(cql_type.strip(), out)
    return frozenset(out)


def _parse(text: str, out: set[str]) -> None:
    if not text:
        raise BadType("empty type")
    lt = text.find("<")
    if lt < 0:
        if not (text.replace("_", "a").isalnum()):
            raise BadType(f"bad type {text!r}")
        if text.lower() not in NATIVE_TYPES:
            out.add(text)
        return
    head = text[:lt].strip().lower()
    if not text.endswith(">") or head not in _WRAPPERS:
        raise BadType(f"bad type {text!r}")
    args = _split_args(text[lt + 1 : -1])
    arity = _WRAPPERS[head]
    if (arity > 0 and len(args) != arity) or not args:
        raise BadType(f"bad type {text!r}")
    for a in args:
        _parse(a.strip(), out)


def _split_args(text: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth < 0:
                raise BadType(f"unbalanced type {text!r}")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise BadType(f"unbalanced type {text!r}")
    parts.append("".join(cur))
    return parts


@frozen(kw_only=True)
class Table:
    name: str
    columns: tuple[tuple[str, str], ...]

    def uses(self) -> frozenset[str]:
        out: set[str] = set()
        for _, t in self.columns:
            out |= referenced_types(t)
        return frozenset(out)


@frozen(kw_only=True)
class UserType:
    name: str
    fields: tuple[tuple[str, str], ...]

    def uses(self) -> frozenset[str]:
        out: set[str] = set()
        for _, t in self.fields:
            out |= referenced_types(t)
        return frozenset(out)


@frozen(kw_only=True, eq=False)
class Keyspace:
    name: str
    replication: ReplicationParams
    tables: dict[str, Table]
    types: dict[str, UserType]

    def with_table(self, table: Table) -> Keyspace:
        return evolve(self, tables={**self.tables, table.name: table})

    def without_table(self, name: str) -> Keyspace:
        return evolve(self, tables={k: v for k, v in self.tables.items() if k != name})

    def with_type(self, udt: UserType) -> Keyspace:
        return evolve(self, types={**self.types, udt.name: udt})

    def without_type(self, name: str) -> Keyspace:
        return evolve(self, types={k: v for k, v in self.types.items() if k != name})

    def to_json(self) -> dict[str, Any]:
        return {
            "replication": self.replication.to_json(),
            "tables": {
                n: [list(c) for c in t.columns] for n, t in sorted(self.tables.items())
            },
            "types": {n: [list(f) for f in u.fields] for n, u in sorted(self.types.items())},
        }

    @classmethod
    def from_json(cls, name: str, doc: Any) -> Keyspace:
        return cls(
            name=name,
            replication=ReplicationParams.parse(doc["replication"]),
            tables={
                n: Table(name=n, columns=tuple((str(c), str(t)) for c, t in cols))
                for n, cols in doc["tables"].items()
            },
            types={
                n: UserType(name=n, fields=tuple((str(f), str(t)) for f, t in fields))
                for n, fields in doc["types"].items()
            },
        )
