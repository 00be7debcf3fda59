"""TOPOLOGY.json <-> spec values. Every problem is a one-line `BadInput`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from campaign.errors import BadInput
from campaign.formats.jsonio import field, load_json
from spec.nodes import Location, NodeId, NodeVersion
from spec.replication import NetworkTopologyStrategy, ReplicationParams, SimpleStrategy
from spec.tokens import MAX_TOKEN, MIN_TOKEN
from spec.topology import NodeSpec, Topology


def load_topology(path: str | Path) -> Topology:
    return parse_topology(load_json(path, "topology"), str(path))


def parse_topology(doc: Any, where: str = "topology") -> Topology:
    if not isinstance(doc, dict):
        raise BadInput(f"{where}: expected an object with 'nodes' and 'keyspaces'")
    raw_nodes = field(doc, "nodes", list, where)
    if not raw_nodes:
        raise BadInput(f"{where}: a topology needs at least one node")
    nodes = [parse_node(n, f"{where}: nodes[{i}]", tokens_required=True) for i, n in enumerate(raw_nodes)]
    seen: set[str] = set()
    owners: dict[int, str] = {}
    for n in nodes:
        if n.id in seen:
            raise BadInput(f"{where}: duplicate node id {n.id}")
        seen.add(n.id)
        for t in n.tokens:
            if t in owners:
                raise BadInput(f"{where}: duplicate token {t} (nodes {owners[t]} and {n.id})")
            owners[t] = n.id
    raw_keyspaces = field(doc, "keyspaces", list, where, default=[])
    keyspaces: list[tuple[str, ReplicationParams]] = []
    for i, k in enumerate(raw_keyspaces):
        kw = f"{where}: keyspaces[{i}]"
        name = field(k, "name", str, kw)
        if not name:
            raise BadInput(f"{kw}: keyspace name must not be empty")
        if name in (n for n, _ in keyspaces):
            raise BadInput(f"{where}: duplicate keyspace {name}")
        keyspaces.append((name, parse_replication(field(k, "replication", dict, kw), f"{kw} ({name})")))
    return Topology(nodes=tuple(nodes), keyspaces=tuple(keyspaces))


def parse_token(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{where}: token {value!r} is not an integer")
    if not MIN_TOKEN <= value <= MAX_TOKEN:  # a node may own the minimum token, as in Cassandra
        raise BadInput(f"{where}: token {value} is outside the Murmur3 range [-2**63, 2**63-1]")
    return value


def parse_tokens(raw: Any, where: str) -> tuple[int, ...]:
    if not isinstance(raw, list):
        raise BadInput(f"{where}: 'tokens' must be a list of integers")
    tokens = tuple(parse_token(t, where) for t in raw)
    if len(set(tokens)) != len(tokens):
        raise BadInput(f"{where}: duplicate token in {list(tokens)}")
    return tokens


def parse_node(raw: Any, where: str, *, tokens_required: bool) -> NodeSpec:
    node_id = field(raw, "id", str, where)
    if not node_id:
        raise BadInput(f"{where}: node id must not be empty")
    where = f"{where} ({node_id})"
    dc = field(raw, "dc", str, where)
    rack = field(raw, "rack", str, where)
    if not dc or not rack:
        raise BadInput(f"{where}: dc and rack must not be empty")
    tokens: tuple[int, ...] = ()
    if tokens_required or "tokens" in raw:
        tokens = parse_tokens(field(raw, "tokens", list, where), where)
        if tokens_required and not tokens:
            raise BadInput(f"{where}: a node needs at least one token")
    version = field(raw, "version", str, where, default="6.0")
    return NodeSpec(id=NodeId(node_id), location=Location(dc=dc, rack=rack), tokens=tokens,
                    version=NodeVersion(release=version))


def parse_replication(raw: dict[str, Any], where: str) -> ReplicationParams:
    cls = field(raw, "class", str, where)
    short = cls.rsplit(".", 1)[-1]
    if short == "SimpleStrategy":
        rf = _rf(field(raw, "replication_factor", (int, str), where), f"{where}: replication_factor")
        if rf < 1:
            raise BadInput(f"{where}: replication_factor must be at least 1, got {rf}")
        return SimpleStrategy(replication_factor=rf)
    if short == "NetworkTopologyStrategy":
        factors = {dc: _rf(v, f"{where}: {dc}") for dc, v in raw.items() if dc != "class"}
        if not factors or sum(factors.values()) < 1:
            raise BadInput(f"{where}: NetworkTopologyStrategy needs a positive replication factor for some DC")
        if any(v < 0 for v in factors.values()):
            raise BadInput(f"{where}: replication factors must not be negative")
        return NetworkTopologyStrategy.of(factors)
    raise BadInput(f"{where}: unknown replication class {cls!r} (SimpleStrategy or NetworkTopologyStrategy)")


def _rf(value: Any, where: str) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{where}: replication factor {value!r} is not an integer")
    return value


def replication_json(params: ReplicationParams) -> dict[str, Any]:
    if isinstance(params, SimpleStrategy):
        return {"class": "SimpleStrategy", "replication_factor": params.replication_factor}
    return {"class": "NetworkTopologyStrategy", **dict(params.dc_factors)}
