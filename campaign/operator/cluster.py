"""A live cluster as nodetool and cqlsh show it, and the TOPOLOGY.json it stands for.

`read_cluster` joins `nodetool ring` (DC, rack, tokens, liveness, state: always needed),
`nodetool status` (host IDs, and a second look at liveness and state: optional) and the schema
(keyspaces: optional). Node ids are the addresses as nodetool printed them, so both outputs must
come from the same flags (`-r` prints host names, `-pp` ports): a node one file names and the other
does not is refused, as is a node whose DC, rack, token count or state the two disagree on.

A node that is not Up and Normal is never planned around silently (`conditions`): a Joining,
Leaving or Moving node means an operation is in flight, which a TOPOLOGY.json (every node JOINED)
cannot hold; a Down node (or "?": not yet seen live or dead) is still a JOINED owner of its
tokens under TCM, and may be kept with `allow_down` — planning its removenode or replace is the
usual reason to read such a cluster.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.cql_schema import SchemaKeyspaces, parse_schema
from campaign.formats.nodetool_common import Mode, NodeLiveness
from campaign.formats.nodetool_ring import parse_ring
from campaign.formats.nodetool_status import parse_status
from campaign.formats.topology import parse_topology, replication_json
from spec.topology import Topology


@frozen(kw_only=True)
class LiveNode:
    id: str
    dc: str
    rack: str
    tokens: tuple[int, ...]
    liveness: NodeLiveness
    mode: Mode
    host_id: str | None
    line: int
    """Its first row in the ring file."""


@frozen(kw_only=True)
class LiveCluster:
    nodes: tuple[LiveNode, ...]
    schema: SchemaKeyspaces | None


def read_cluster(ring: tuple[str, str], status: tuple[str, str] | None = None,
                 schema: tuple[str, str] | None = None) -> LiveCluster:
    """The cluster from (text, file name) pairs of the three outputs."""
    ring_nodes = parse_ring(*ring)
    status_nodes = {n.address: n for n in parse_status(*status)} if status is not None else {}
    ring_where = ring[1]
    nodes = []
    for r in ring_nodes:
        liveness, mode, host_id = r.liveness, r.mode, None
        s = status_nodes.get(r.address)
        if status is not None:
            if s is None:
                raise BadInput(f"{status[1]}: no row for {r.address} ({ring_where} line {r.line}): cut, or printed "
                               "with other -r/-pp options or at another time than the ring?")
            at = f"{status[1]}: line {s.line}: {r.address}"
            if (s.dc, s.rack) != (r.dc, r.rack):
                raise BadInput(f"{at} is in {s.dc}/{s.rack}, but in {r.dc}/{r.rack} in {ring_where} (line {r.line})")
            if s.token_count != len(r.tokens) or (s.token is not None and (s.token,) != r.tokens):
                what = f"token {s.token}" if s.token is not None else f"{s.token_count} tokens"
                raise BadInput(f"{at} has {what}, but {len(r.tokens)} in {ring_where} (line {r.line}): "
                               "the two were printed at different times?")
            if s.mode is not r.mode:
                raise BadInput(f"{at} is {s.mode.value}, but {r.mode.value} in {ring_where} (line {r.line}): an "
                               "operation started or ended between the two commands; run both again")
            # a node either output saw down is not up (the two are two looks, seconds apart)
            if NodeLiveness.DOWN in (r.liveness, s.liveness):
                liveness = NodeLiveness.DOWN
            elif NodeLiveness.UNKNOWN in (r.liveness, s.liveness):
                liveness = NodeLiveness.UNKNOWN
            host_id = s.host_id
        nodes.append(LiveNode(id=r.address, dc=r.dc, rack=r.rack, tokens=r.tokens, liveness=liveness,
                              mode=mode, host_id=host_id, line=r.line))
    extra = sorted(set(status_nodes) - {r.address for r in ring_nodes})
    if extra and status is not None:
        s = status_nodes[extra[0]]
        raise BadInput(f"{status[1]}: line {s.line}: {s.address} is not in {ring_where}: were both printed with the "
                       "same -r/-pp options, at the same time?")
    keyspaces = parse_schema(schema[0], schema[1], {n.dc for n in nodes}) if schema is not None else None
    return LiveCluster(nodes=tuple(nodes), schema=keyspaces)


def condition(node: LiveNode) -> str | None:
    """What a node that is not Up and Normal means for a plan (None for Up and Normal)."""
    if node.mode is Mode.JOINING:
        return (f"{node.id} is Joining: a bootstrap or a replacement is in flight (BOOTSTRAPPING or BOOT_REPLACING); "
                "finish it (nodetool bootstrap resume) or abort it (nodetool abortbootstrap), then read the ring again")
    if node.mode is Mode.LEAVING:
        return (f"{node.id} is Leaving: a decommission or a removenode is in flight; let it finish (nodetool "
                "decommission resumes it; nodetool removenode status) or cancel it, then read the ring again")
    if node.mode is Mode.MOVING:
        return f"{node.id} is Moving: a move is in flight; let it finish, then read the ring again"
    if node.liveness is NodeLiveness.DOWN:
        return (f"{node.id} is Down: it still owns its tokens (JOINED); give --allow-down {node.id} to plan with it, "
                "e.g. its removenode or replace")
    if node.liveness is NodeLiveness.UNKNOWN:
        return (f"{node.id} has status ?: the asking node's gossip has seen it neither live nor dead; give "
                f"--allow-down {node.id} to plan with it as a possibly down owner of its tokens")
    return None


def check_conditions(cluster: LiveCluster, allow_down: Iterable[str], where: str) -> tuple[str, ...]:
    """Refuse (one line) a node that is not Up and Normal unless allowed; the warnings for the
    down nodes allowed. `--allow-down` of an unknown or healthy node is refused too."""
    allowed = set(allow_down)
    by_id = {n.id: n for n in cluster.nodes}
    for a in sorted(allowed):
        node = by_id.get(a)
        if node is None:
            raise BadInput(f"--allow-down: {a!r} is not a node of {where}")
        if node.liveness is NodeLiveness.UP or node.mode is not Mode.NORMAL:
            state = "Up" if node.liveness is NodeLiveness.UP else node.mode.value
            raise BadInput(f"--allow-down {a}: that node is {state}; the option is for a Down (or ?) node")
    blocking = [(n, c) for n in cluster.nodes if (c := condition(n)) is not None and n.id not in allowed]
    if blocking:
        (first, line), rest = blocking[0], blocking[1:]
        more = ("; also " + ", ".join(f"{n.id} ({n.mode.value if n.mode is not Mode.NORMAL else n.liveness.value})"
                                      for n, _ in rest)) if rest else ""
        raise BadInput(f"{where}: line {first.line}: {line}{more}")
    return tuple(f"{n.id} is {n.liveness.value}: kept as a JOINED owner of its tokens (--allow-down)"
                 for n in cluster.nodes if n.id in allowed)


def topology_doc(cluster: LiveCluster) -> dict[str, object]:
    """TOPOLOGY.json: nodes in ring order (by DC, then first token), tokens ascending."""
    keyspaces = cluster.schema.keyspaces if cluster.schema is not None else ()
    return {"nodes": [{"id": n.id, "dc": n.dc, "rack": n.rack, "tokens": sorted(n.tokens)} for n in cluster.nodes],
            "keyspaces": [{"name": name, "replication": replication_json(p)} for name, p in keyspaces]}


def topology_of(cluster: LiveCluster) -> Topology:
    """The spec's topology (checked as every TOPOLOGY.json is)."""
    return parse_topology(topology_doc(cluster), "the cluster read")


def topology_text(doc: dict[str, object]) -> str:
    """TOPOLOGY.json with one node per line (256 tokens a node stay readable)."""
    nodes = doc["nodes"]
    keyspaces = doc["keyspaces"]
    assert isinstance(nodes, list) and isinstance(keyspaces, list)
    lines = ['{"nodes": [']
    lines += [f"  {json.dumps(n)}{',' if i < len(nodes) - 1 else ''}" for i, n in enumerate(nodes)]
    lines.append(' ], "keyspaces": [')
    lines += [f"  {json.dumps(k)}{',' if i < len(keyspaces) - 1 else ''}" for i, k in enumerate(keyspaces)]
    lines.append("]}")
    return "\n".join(lines) + "\n"


__all__ = ["LiveCluster", "LiveNode", "check_conditions", "condition", "read_cluster", "topology_doc",
           "topology_of", "topology_text"]
