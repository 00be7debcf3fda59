"""REGISTER, UNREGISTER and ALTER_TOPOLOGY: changes to the directory that move no data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import evolve

from impl.metadata.metadata import Metadata, placement_from_scratch
from impl.metadata.records import DEFAULT_VERSION, NodeRecord
from impl.metadata.results import Accepted, Malformed, Rejected, Result, node_field
from impl.metadata.sequences import params_in_use
from spec.nodes import NodeState


def register(m: Metadata, t: Mapping[str, Any]) -> Result:
    doc = t.get("node")
    if not isinstance(doc, Mapping):
        raise Malformed("REGISTER: field 'node' must be an object with id, dc, rack")
    for name in ("id", "dc", "rack"):
        if not isinstance(doc.get(name), str) or not doc[name]:
            raise Malformed(f"REGISTER: node field {name!r} must be a non-empty string")
    version = doc.get("version", DEFAULT_VERSION)
    if not isinstance(version, str) or not version:
        raise Malformed("REGISTER: node field 'version' must be a non-empty string")
    node = doc["id"]
    if node in m.directory:
        return Rejected(f"{node}: already registered")
    rec = NodeRecord(
        id=node, dc=doc["dc"], rack=doc["rack"], state=NodeState.REGISTERED, version=version
    )
    return Accepted(metadata=m.next(directory={**m.directory, node: rec}), kind="REGISTER")


def unregister(m: Metadata, t: Mapping[str, Any]) -> Result:
    """Cassandra's Unregister: present, and in one of the start states the caller allows
    (`allowed`, the transformation's `allowedNodeStartStates`; absent: every state, as for an
    entry from before Version.V2); nothing else (no sequence or CMS check)."""
    node = node_field(t)
    allowed = _allowed(t)
    rec = m.directory.get(node)
    if rec is None:
        return Rejected(f"Can not unregister {node} since it is not present in the directory.")
    if rec.state not in allowed:
        names = ", ".join(s.name for s in NodeState if s in allowed)  # EnumSet's toString
        return Rejected(f"Can't unregister {node} - node state is {rec.state.name} not [{names}]")
    directory = {n: r for n, r in m.directory.items() if n != node}
    return Accepted(metadata=m.next(directory=directory), kind="UNREGISTER")


def _allowed(t: Mapping[str, Any]) -> frozenset[NodeState]:
    raw = t.get("allowed")
    if raw is None:
        return frozenset(NodeState)
    if not isinstance(raw, list) or not all(isinstance(s, str) and s in NodeState.__members__ for s in raw):
        raise Malformed("UNREGISTER: field 'allowed' must be a list of node states")
    return frozenset(NodeState[s] for s in raw)


def alter_topology(m: Metadata, t: Mapping[str, Any]) -> Result:
    """Change nodes' dc/rack; refused when it would change any placement (Cassandra's rule)."""
    changes = t.get("changes")
    if not isinstance(changes, list) or not changes:
        raise Malformed("ALTER_TOPOLOGY: field 'changes' must be a non-empty list")
    updates: dict[str, tuple[str, str]] = {}
    for c in changes:
        if not isinstance(c, Mapping):
            raise Malformed("ALTER_TOPOLOGY: each change must be an object {node, dc, rack}")
        node = node_field(c)
        dc, rack = c.get("dc"), c.get("rack")
        if not isinstance(dc, str) or not dc or not isinstance(rack, str) or not rack:
            raise Malformed(f"ALTER_TOPOLOGY: {node}: dc and rack must be non-empty strings")
        if node in updates:
            raise Malformed(f"ALTER_TOPOLOGY: {node} changed twice")
        updates[node] = (dc, rack)
    for node in updates:
        if node not in m.directory:
            return Rejected(f"ALTER_TOPOLOGY: {node} is not registered")
    if m.sequences or m.cms.reconfiguring:  # AlterTopology: no lock may be held
        holder = min(m.sequences) if m.sequences else "CMS reconfiguration"
        return Rejected(f"ALTER_TOPOLOGY: not allowed while a sequence is in progress ({holder})")
    tm = m.token_map.relocated(updates)
    for key, params in sorted(params_in_use(m).items()):
        fresh = placement_from_scratch(params, tm)
        if not fresh.same_as(m.placements[key]):
            names = sorted(n for n, ks in m.keyspaces.items() if ks.replication.key == key)
            return Rejected(f"ALTER_TOPOLOGY: would change the placements of keyspace {names[0]}")
    directory = dict(m.directory)
    for node, (dc, rack) in updates.items():
        directory[node] = evolve(directory[node], dc=dc, rack=rack)
    return Accepted(metadata=m.next(directory=directory, token_map=tm), kind="ALTER_TOPOLOGY")


def startup(m: Metadata, t: Mapping[str, Any]) -> Result:
    """Cassandra's Startup: a new address (refused while any sequence is in progress, or when
    another node has it) and/or a new release. Placements name node ids: none change."""
    node = node_field(t)
    rec = m.directory.get(node)
    if rec is None:
        return Rejected(f"{node}: not registered")
    address, version = t.get("address"), t.get("version")
    for name, value in (("address", address), ("version", version)):
        if value is not None and (not isinstance(value, str) or not value):
            raise Malformed(f"STARTUP: field {name!r} must be a non-empty string")
    if address is not None and address != rec.broadcast:
        if m.sequences:
            return Rejected(f"{node}: cannot update the address while sequences are in progress")
        for other in m.directory.values():
            if other.id != node and other.broadcast == address:
                return Rejected(f"{node}: address {address} conflicts with {other.id}")
        rec = evolve(rec, address=None if address == node else address)
    if version is not None:
        rec = evolve(rec, version=version)
    return Accepted(metadata=m.next(directory={**m.directory, node: rec}), kind="STARTUP")
