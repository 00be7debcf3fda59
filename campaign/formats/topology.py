"""TOPOLOGY.json <-> spec values. Every problem is a one-line `BadInput`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from campaign.errors import BadInput
from campaign.formats.fields import describe, field, known_keys, obj
from campaign.formats.jsonio import in_file, load_json, parsing
from spec.nodes import Location, NodeId, NodeState, NodeVersion
from spec.replication import NetworkTopologyStrategy, ReplicationParams, SimpleStrategy
from spec.tokens import MAX_TOKEN, MIN_TOKEN
from spec.topology import NodeSpec, Topology

# Cassandra's CassandraVersion pattern (major.minor[.patch[.hotfix]][-prerelease][+build]), ASCII only
_VERSION = re.compile(r"\d{1,9}\.\d{1,9}(\.\d{1,9}(\.\d{1,9})?)?(-[-.\w]+)?([.+][.\w]+)?", re.ASCII)
_TOP_KEYS = ("nodes", "keyspaces")
_NODE_KEYS = ("id", "dc", "rack", "tokens", "version")


def load_topology(path: str | Path) -> Topology:
    doc = load_json(path, "topology")
    try:
        with parsing(str(path)):
            return parse_topology(doc, str(path))
    except BadInput as e:
        raise in_file(e, path) from None


def parse_topology(doc: Any, where: str = "topology", *, gossip: bool = False) -> Topology:
    """TOPOLOGY.json. With `gossip` (a scenario's pre-TCM cluster), a node may also carry a
    `state` (NodeState name) and, unless JOINED, no tokens."""
    if not isinstance(doc, dict):
        raise BadInput(f"{where}: expected an object with 'nodes' and 'keyspaces'")
    known_keys(doc, _TOP_KEYS, where)
    raw_nodes = field(doc, "nodes", list, where)
    if not raw_nodes:
        raise BadInput(f"{where}: a topology needs at least one node")
    nodes = [parse_node(n, f"{where}: nodes[{i}]", tokens_required=True, gossip=gossip)
             for i, n in enumerate(raw_nodes)]
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
        known_keys(k, ("name", "replication"), kw)
        keyspaces.append((name, parse_replication(field(k, "replication", dict, kw), f"{kw} ({name})",
                                                  datacenters={n.location.dc for n in nodes})))
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


def parse_version(value: Any, where: str) -> str:
    """A Cassandra release ("6.0", "5.0.2", "4.1-beta1"), as Cassandra's CassandraVersion reads it."""
    if not isinstance(value, str) or not _VERSION.fullmatch(value):
        raise BadInput(f"{where}: version {describe(value)} is not a Cassandra release like \"6.0\" or \"5.0.2\"")
    return value


def parse_node(raw: Any, where: str, *, tokens_required: bool, gossip: bool = False) -> NodeSpec:
    node_id = field(raw, "id", str, where)
    if not node_id:
        raise BadInput(f"{where}: node id must not be empty")
    where = f"{where} ({node_id})"
    known_keys(obj(raw, where), _NODE_KEYS + (("state",) if gossip else ()), where)
    dc = field(raw, "dc", str, where)
    rack = field(raw, "rack", str, where)
    if not dc or not rack:
        raise BadInput(f"{where}: dc and rack must not be empty")
    state = NodeState.JOINED
    if "state" in raw:
        value = raw["state"]
        if not isinstance(value, str) or value not in NodeState.__members__:
            raise BadInput(f"{where}: unknown state {describe(value)} "
                           f"(one of {', '.join(NodeState.__members__)})")
        state = NodeState[value]
    tokens: tuple[int, ...] = ()
    if tokens_required or "tokens" in raw:
        tokens = parse_tokens(field(raw, "tokens", list, where, default=[]), where)
        if tokens_required and not tokens and state is NodeState.JOINED:
            raise BadInput(f"{where}: a node needs at least one token")
    version = parse_version(field(raw, "version", str, where, default="6.0"), where)
    return NodeSpec(id=NodeId(node_id), location=Location(dc=dc, rack=rack), tokens=tokens,
                    version=NodeVersion(release=version))


def parse_replication(raw: dict[str, Any], where: str, *,
                      datacenters: set[str] | None = None) -> ReplicationParams:
    """Replication parameters. With `datacenters` (the DCs that hold nodes), a
    NetworkTopologyStrategy naming any other DC is refused, as Cassandra's
    `NetworkTopologyStrategy.recognizedOptions` (the valid datacenters of the cluster metadata,
    checked by `AbstractReplicationStrategy.validateExpectedOptions`) refuses it: such a
    keyspace would have no replicas there and every quorum over it would be vacuous."""
    cls = field(raw, "class", str, where)
    short = cls.rsplit(".", 1)[-1]
    if short == "SimpleStrategy":
        known_keys(raw, ("class", "replication_factor"), where)
        rf = _rf(field(raw, "replication_factor", (int, str), where), f"{where}: replication_factor")
        if rf < 1:
            raise BadInput(f"{where}: replication_factor must be at least 1, got {rf}")
        return SimpleStrategy(replication_factor=rf)
    if short == "NetworkTopologyStrategy":
        if "replication_factor" in raw:
            raise BadInput(f"{where}: replication_factor is an option of SimpleStrategy; "
                           "NetworkTopologyStrategy takes a factor per datacenter")
        factors = {dc: _rf(v, f"{where}: {describe(dc)}") for dc, v in raw.items() if dc != "class"}
        if datacenters is not None:
            unknown = sorted(dc for dc in factors if dc not in datacenters)
            if unknown:
                raise BadInput(f"{where}: NetworkTopologyStrategy names datacenter {describe(unknown[0])}, "
                               f"where no node is (datacenters: {', '.join(sorted(datacenters))}); "
                               "Cassandra refuses an unknown datacenter")
        if not factors or sum(factors.values()) < 1:
            raise BadInput(f"{where}: NetworkTopologyStrategy needs a positive replication factor for some DC")
        if any(v < 0 for v in factors.values()):
            raise BadInput(f"{where}: replication factors must not be negative")
        return NetworkTopologyStrategy.of(factors)
    raise BadInput(f"{where}: unknown replication class {cls!r} (SimpleStrategy or NetworkTopologyStrategy)")


_RF = re.compile(r"\s*-?[0-9]{1,9}\s*", re.ASCII)


def _rf(value: Any, where: str) -> int:
    """An integer, or a string of ASCII digits (CQL writes replication options as strings)."""
    if isinstance(value, str) and _RF.fullmatch(value):
        return int(value)
    if isinstance(value, str) and "/" in value:
        raise BadInput(f"{where}: transient replication ({describe(value)}) is not modelled")
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{where}: replication factor {describe(value)} is not an integer")
    return value


def replication_json(params: ReplicationParams) -> dict[str, Any]:
    if isinstance(params, SimpleStrategy):
        return {"class": "SimpleStrategy", "replication_factor": params.replication_factor}
    return {"class": "NetworkTopologyStrategy", **dict(params.dc_factors)}
