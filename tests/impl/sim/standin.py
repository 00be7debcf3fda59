"""A tiny stand-in for impl.metadata with the same interface, for simulator tests.

It knows only what the simulator's tests exercise: schema changes (keyspaces, tables, types,
with the CEP's races), REGISTER, CMS reconfiguration and INITIALIZE_CMS. Values are immutable
(frozensets and tuples), so the simulator can share them between nodes.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from attrs import evolve, frozen

_NATIVE = {"int", "text", "bigint", "uuid", "boolean", "double", "blob", "timestamp"}


@frozen(kw_only=True)
class Accepted:
    metadata: StandinMetadata
    kind: str


@frozen(kw_only=True)
class Rejected:
    reason: str


Schema = tuple[tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]], ...]


@frozen(kw_only=True)
class StandinMetadata:
    epoch: int
    nodes: tuple[str, ...]
    # keyspace -> (tables: ((name, columns json)...), types: ((name, fields json)...))
    keyspaces: tuple[tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]], ...]
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    pending_add: tuple[str, ...] = ()
    pending_remove: tuple[str, ...] = ()
    reconfiguring: bool = False
    initialized: bool = True

    def cms_members(self) -> tuple[str, ...]:
        return self.reads

    def cms_write_members(self) -> tuple[str, ...]:
        return self.writes

    def to_json(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "nodes": list(self.nodes),
                "keyspaces": [[k, [list(t) for t in ts], [list(t) for t in ty]]
                              for k, ts, ty in self.keyspaces],
                "reads": list(self.reads), "writes": list(self.writes),
                "pending_add": list(self.pending_add),
                "pending_remove": list(self.pending_remove),
                "reconfiguring": self.reconfiguring, "initialized": self.initialized}

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()

    def ks(self, name: str) -> tuple[dict[str, str], dict[str, str]] | None:
        for k, ts, ty in self.keyspaces:
            if k == name:
                return dict(ts), dict(ty)
        return None

    def with_ks(self, name: str, tables: dict[str, str] | None,
                types: dict[str, str] | None) -> StandinMetadata:
        rest = [k for k in self.keyspaces if k[0] != name]
        if tables is not None and types is not None:
            rest.append((name, tuple(sorted(tables.items())), tuple(sorted(types.items()))))
        return evolve(self, keyspaces=tuple(sorted(rest)), epoch=self.epoch + 1)


def _user_types(col_type: str) -> set[str]:
    return {w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", col_type)
            if w not in _NATIVE and w not in {"frozen", "list", "set", "map"}}


class StandinEngine:
    def from_topology(self, doc: dict[str, Any]) -> StandinMetadata:
        nodes = tuple(sorted(str(n["id"]) for n in doc["nodes"]))
        kss = tuple(sorted((str(k["name"]), (), ()) for k in doc.get("keyspaces", [])))
        return StandinMetadata(epoch=0, nodes=nodes, keyspaces=kss, reads=nodes[:1],
                               writes=nodes[:1])

    def from_gossip(self, doc: dict[str, Any], versions: Any = None,
                    states: Any = None) -> StandinMetadata:
        m = self.from_topology(doc)
        return evolve(m, reads=(), writes=(), initialized=False)

    def from_json(self, d: dict[str, Any]) -> StandinMetadata:
        return StandinMetadata(
            epoch=d["epoch"], nodes=tuple(d["nodes"]),
            keyspaces=tuple((k, tuple(tuple(t) for t in ts), tuple(tuple(t) for t in ty))
                            for k, ts, ty in d["keyspaces"]),
            reads=tuple(d["reads"]), writes=tuple(d["writes"]),
            pending_add=tuple(d["pending_add"]), pending_remove=tuple(d["pending_remove"]),
            reconfiguring=d["reconfiguring"], initialized=d["initialized"])

    def execute(self, m: StandinMetadata, t: dict[str, Any]) -> Accepted | Rejected:
        kind = t["kind"]
        if kind == "SCHEMA_CHANGE":
            r = self._schema(m, t["change"])
        elif kind == "REGISTER":
            nid = t["node"]["id"]
            if nid in m.nodes:
                return Rejected(reason=f"node {nid} is already registered")
            r = evolve(m, nodes=tuple(sorted((*m.nodes, nid))), epoch=m.epoch + 1)
        elif kind == "PREPARE_CMS_RECONFIGURATION":
            if m.reconfiguring:
                return Rejected(reason="a CMS reconfiguration is already in progress")
            r = evolve(m, reconfiguring=True, pending_add=tuple(t["add"]),
                       pending_remove=tuple(t["remove"]), epoch=m.epoch + 1)
        elif kind == "ADVANCE_CMS_RECONFIGURATION":
            r = self._advance(m)
        elif kind == "INITIALIZE_CMS":
            if m.initialized:
                return Rejected(reason="CMS is already initialized")
            r = evolve(m, reads=(t["node"],), writes=(t["node"],), initialized=True,
                       epoch=m.epoch + 1)
        else:
            return Rejected(reason=f"unsupported kind {kind}")
        if isinstance(r, str):
            return Rejected(reason=r)
        return Accepted(metadata=r, kind=kind)

    def _advance(self, m: StandinMetadata) -> StandinMetadata | str:
        if not m.reconfiguring:
            return "no CMS reconfiguration in progress"
        joining = [w for w in m.writes if w not in m.reads]
        if joining:
            return evolve(m, reads=tuple(sorted((*m.reads, joining[0]))), epoch=m.epoch + 1)
        if m.pending_add:
            x, rest = m.pending_add[0], m.pending_add[1:]
            return evolve(m, writes=tuple(sorted((*m.writes, x))), pending_add=rest,
                          epoch=m.epoch + 1)
        if m.pending_remove:
            x, rest = m.pending_remove[0], m.pending_remove[1:]
            done = not rest
            return evolve(m, reads=tuple(r for r in m.reads if r != x),
                          writes=tuple(w for w in m.writes if w != x), pending_remove=rest,
                          reconfiguring=not done, epoch=m.epoch + 1)
        return evolve(m, reconfiguring=False, epoch=m.epoch + 1)

    def _schema(self, m: StandinMetadata, c: dict[str, Any]) -> StandinMetadata | str:
        op, name = c["op"], c["keyspace"]
        cur = m.ks(name)
        if op == "CREATE_KEYSPACE":
            return f"keyspace {name} already exists" if cur else m.with_ks(name, {}, {})
        if cur is None:
            return f"keyspace {name} does not exist"
        tables, types = cur
        if op == "ALTER_KEYSPACE":
            return m.with_ks(name, tables, types)
        if op == "DROP_KEYSPACE":
            return m.with_ks(name, None, None)
        if op == "CREATE_TABLE":
            if c["table"] in tables:
                return f"table {name}.{c['table']} already exists"
            for _, ty in c["columns"]:
                missing = _user_types(ty) - set(types)
                if missing:
                    return f"unknown type {name}.{sorted(missing)[0]}"
            tables[c["table"]] = json.dumps(c["columns"])
            return m.with_ks(name, tables, types)
        if op == "ALTER_TABLE":
            if c["table"] not in tables:
                return f"table {name}.{c['table']} does not exist"
            cols = json.loads(tables[c["table"]])
            have = {n for n, _ in cols}
            for n, ty in c.get("add", []):
                if n in have:
                    return f"column {n} already exists"
                if _user_types(ty) - set(types):
                    return f"unknown type in {ty}"
                cols.append([n, ty])
            tables[c["table"]] = json.dumps(cols)
            return m.with_ks(name, tables, types)
        if op == "DROP_TABLE":
            if c["table"] not in tables:
                return f"table {name}.{c['table']} does not exist"
            del tables[c["table"]]
            return m.with_ks(name, tables, types)
        if op == "CREATE_TYPE":
            if c["type"] in types:
                return f"type {name}.{c['type']} already exists"
            types[c["type"]] = json.dumps(c["fields"])
            return m.with_ks(name, tables, types)
        if op == "DROP_TYPE":
            if c["type"] not in types:
                return f"type {name}.{c['type']} does not exist"
            for t, cols in tables.items():
                if any(c["type"] in _user_types(ty) for _, ty in json.loads(cols)):
                    return f"type {name}.{c['type']} is used by table {t}"
            del types[c["type"]]
            return m.with_ks(name, tables, types)
        return f"unknown schema op {op}"
