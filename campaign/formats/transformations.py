"""Transformations <-> the JSON shape in docs/transformations-json.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from campaign.errors import BadInput
from campaign.formats.jsonio import field
from campaign.formats.topology import parse_node, parse_replication, parse_tokens, replication_json
from spec import schema as S
from spec import transformations as T
from spec.cms_placement import Placement
from spec.nodes import Location, NodeId, NodeState, NodeVersion
from spec.transformations.register import ALL_STATES

_NODE_ONLY: dict[str, Callable[..., T.Transformation]] = {
    cls.kind: cls for cls in (
        T.StartJoin, T.MidJoin, T.FinishJoin, T.StartLeave, T.MidLeave, T.FinishLeave,
        T.StartMove, T.MidMove, T.FinishMove, T.StartReplace, T.MidReplace, T.FinishReplace,
        T.CancelSequence, T.Assassinate,
    )
}
_NO_FIELDS: dict[str, Callable[[], T.Transformation]] = {
    cls.kind: cls for cls in (T.AdvanceCMSReconfiguration, T.CancelCMSReconfiguration, T.TriggerSnapshot)}


def _columns(raw: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list) or not all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c) for c in raw
    ):
        raise BadInput(f"{where}: columns/fields must be a list of [name, type] pairs")
    return tuple((c[0], c[1]) for c in raw)


def _placement(raw: dict[str, Any], where: str) -> Placement:
    """A reconfiguration computed where it executes (spec/cms_placement.py): `size` (at least 1),
    `down` (node ids), `without` (Simple's member to replace; absent for Complex)."""
    size = field(raw, "size", int, where)
    if isinstance(size, bool) or not 1 <= size <= 1000:
        raise BadInput(f"{where}: size must be an integer from 1 to 1000")
    without = field(raw, "without", str, where, default=None)
    if without == "":
        raise BadInput(f"{where}: without must be a node id")
    return Placement(size=size, down=frozenset(_ids(field(raw, "down", list, where, default=[]), where)),
                     without=None if without is None else NodeId(without))


def _ids(raw: Any, where: str) -> list[NodeId]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise BadInput(f"{where}: expected a list of node ids")
    return [NodeId(x) for x in raw]


def _states(raw: list[Any], where: str) -> frozenset[NodeState]:
    names = {s.name for s in NodeState}
    for x in raw:
        if not isinstance(x, str) or x not in names:
            raise BadInput(f"{where}: allowed: {x!r} is not a node state (one of {', '.join(s.name for s in NodeState)})")
    return frozenset(NodeState(x) for x in raw)


def parse_schema_change(raw: Any, where: str) -> S.SchemaChange:
    op = field(raw, "op", str, where)
    ks = field(raw, "keyspace", str, where)
    w = f"{where} ({op})"
    if op in ("CREATE_KEYSPACE", "ALTER_KEYSPACE"):
        params = parse_replication(field(raw, "replication", dict, w), w)
        return (S.CreateKeyspace if op == "CREATE_KEYSPACE" else S.AlterKeyspace)(keyspace=ks, replication=params)
    if op == "DROP_KEYSPACE":
        return S.DropKeyspace(keyspace=ks)
    if op == "CREATE_TABLE":
        return S.CreateTable(keyspace=ks, table=field(raw, "table", str, w),
                             columns=_columns(field(raw, "columns", list, w), w))
    if op == "ALTER_TABLE":
        drop = field(raw, "drop", list, w, default=[])
        if not all(isinstance(d, str) for d in drop):
            raise BadInput(f"{w}: drop must be a list of column names")
        return S.AlterTable(keyspace=ks, table=field(raw, "table", str, w),
                            add=_columns(field(raw, "add", list, w, default=[]), w), drop=tuple(drop))
    if op == "DROP_TABLE":
        return S.DropTable(keyspace=ks, table=field(raw, "table", str, w))
    if op == "CREATE_TYPE":
        return S.CreateType(keyspace=ks, type=field(raw, "type", str, w), fields=_columns(field(raw, "fields", list, w), w))
    if op == "DROP_TYPE":
        return S.DropType(keyspace=ks, type=field(raw, "type", str, w))
    raise BadInput(f"{where}: unknown schema change {op!r}")


def parse_transformation(raw: Any, where: str = "transformation") -> T.Transformation:
    kind = field(raw, "kind", str, where)
    w = f"{where} ({kind})"
    if kind == "ADVANCE_CMS_RECONFIGURATION" and "sequence_index" in raw:
        index = field(raw, "sequence_index", int, w)
        if index < 0:
            raise BadInput(f"{w}: sequence_index must not be negative")
        return T.AdvanceCMSReconfiguration(sequence_index=index)
    if kind in _NODE_ONLY:
        return _NODE_ONLY[kind](node=NodeId(field(raw, "node", str, w)))
    if kind == "UNREGISTER":
        node = NodeId(field(raw, "node", str, w))
        if "allowed" not in raw:
            return T.Unregister(node=node)
        return T.Unregister(node=node, allowed=_states(field(raw, "allowed", list, w), w))
    if kind in _NO_FIELDS:
        return _NO_FIELDS[kind]()
    if kind == "REGISTER":
        spec = parse_node(field(raw, "node", dict, w), w, tokens_required=False)
        return T.Register(node=spec.id, location=spec.location, version=spec.version)
    if kind in ("PREPARE_JOIN", "PREPARE_MOVE", "UNSAFE_JOIN"):
        cls: Callable[..., T.Transformation] = {
            "PREPARE_JOIN": T.PrepareJoin, "PREPARE_MOVE": T.PrepareMove, "UNSAFE_JOIN": T.UnsafeJoin}[kind]
        return cls(node=NodeId(field(raw, "node", str, w)), tokens=parse_tokens(field(raw, "tokens", list, w), w))
    if kind == "PREPARE_LEAVE":
        return T.PrepareLeave(node=NodeId(field(raw, "node", str, w)), remove=field(raw, "remove", bool, w, default=False),
                              force=field(raw, "force", bool, w, default=False))
    if kind == "PREPARE_REPLACE":
        return T.PrepareReplace(node=NodeId(field(raw, "node", str, w)), replaced=NodeId(field(raw, "replaced", str, w)))
    if kind == "SCHEMA_CHANGE":
        return T.AlterSchema(change=parse_schema_change(field(raw, "change", dict, w), w))
    if kind == "ALTER_TOPOLOGY":
        changes = []
        for i, c in enumerate(field(raw, "changes", list, w)):
            cw = f"{w}: changes[{i}]"
            changes.append((NodeId(field(c, "node", str, cw)), Location(dc=field(c, "dc", str, cw), rack=field(c, "rack", str, cw))))
        return T.AlterTopology(changes=tuple(changes))
    if kind == "PREPARE_CMS_RECONFIGURATION":
        placed = field(raw, "placement", dict, w, default=None)
        if placed is not None:
            return T.PrepareCMSReconfiguration(placement=_placement(placed, f"{w}: placement"))
        return T.PrepareCMSReconfiguration(add=_ids(field(raw, "add", list, w, default=[]), w),
                                           remove=_ids(field(raw, "remove", list, w, default=[]), w))
    if kind == "STARTUP":
        address = field(raw, "address", str, w, default=None)
        version = field(raw, "version", str, w, default=None)
        if address == "" or version == "":
            raise BadInput(f"{w}: address and version must not be empty")
        return T.Startup(node=NodeId(field(raw, "node", str, w)), address=address,
                         version=None if version is None else NodeVersion(release=version))
    if kind == "INITIALIZE_CMS":
        return T.InitializeCMS(node=NodeId(field(raw, "node", str, w)), ignore=_ids(field(raw, "ignore", list, w, default=[]), w))
    raise BadInput(f"{where}: unknown transformation kind {kind!r}")


def schema_change_json(change: S.SchemaChange) -> dict[str, Any]:
    out: dict[str, Any] = {"op": change.op, "keyspace": change.keyspace}
    if isinstance(change, S.CreateKeyspace | S.AlterKeyspace):
        out["replication"] = replication_json(change.replication)
    elif isinstance(change, S.CreateTable):
        out |= {"table": change.table, "columns": [list(c) for c in change.columns]}
    elif isinstance(change, S.AlterTable):
        out |= {"table": change.table, "add": [list(c) for c in change.add], "drop": list(change.drop)}
    elif isinstance(change, S.DropTable):
        out["table"] = change.table
    elif isinstance(change, S.CreateType):
        out |= {"type": change.type, "fields": [list(c) for c in change.fields]}
    elif isinstance(change, S.DropType):
        out["type"] = change.type
    return out


def transformation_json(t: T.Transformation) -> dict[str, Any]:
    """The wire shape of `t`; `parse_transformation(transformation_json(t)) == t`."""
    out: dict[str, Any] = {"kind": t.kind}
    if isinstance(t, T.Register):
        out["node"] = {"id": t.node, "dc": t.location.dc, "rack": t.location.rack, "version": t.version.release}
    elif isinstance(t, T.PrepareJoin | T.PrepareMove | T.UnsafeJoin):
        out |= {"node": t.node, "tokens": list(t.tokens)}
    elif isinstance(t, T.PrepareLeave):
        out |= {"node": t.node, "remove": t.remove} | ({"force": True} if t.force else {})
    elif isinstance(t, T.Startup):
        out["node"] = t.node
        if t.address is not None:
            out["address"] = t.address
        if t.version is not None:
            out["version"] = t.version.release
    elif isinstance(t, T.AdvanceCMSReconfiguration) and t.sequence_index is not None:
        out["sequence_index"] = t.sequence_index
    elif isinstance(t, T.Unregister):
        out["node"] = t.node
        if t.allowed != ALL_STATES:  # Cassandra's EnumSet order
            out["allowed"] = [s.name for s in NodeState if s in t.allowed]
    elif isinstance(t, T.PrepareReplace):
        out |= {"node": t.node, "replaced": t.replaced}
    elif isinstance(t, T.AlterSchema):
        out["change"] = schema_change_json(t.change)
    elif isinstance(t, T.AlterTopology):
        out["changes"] = [{"node": n, "dc": loc.dc, "rack": loc.rack} for n, loc in t.changes]
    elif isinstance(t, T.PrepareCMSReconfiguration) and t.placement is not None:
        p = t.placement
        out["placement"] = {"size": p.size, "down": sorted(p.down)} | ({"without": p.without} if p.without else {})
    elif isinstance(t, T.PrepareCMSReconfiguration):
        out |= {"add": sorted(t.add), "remove": sorted(t.remove)}
    elif isinstance(t, T.InitializeCMS):
        out |= {"node": t.node, "ignore": sorted(t.ignore)}
    elif hasattr(t, "node"):
        out["node"] = t.node
    return out
