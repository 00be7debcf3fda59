"""Small builders for spec tests: rings written the way the CEP writes them."""

from __future__ import annotations

from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId
from spec.operations import Operation, OperationRun, run_operations
from spec.replication import ReplicationParams, SimpleStrategy
from spec.topology import NodeSpec, Topology


def node(node_id: str, *tokens: int, dc: str = "dc1", rack: str = "r1") -> NodeSpec:
    return NodeSpec(id=NodeId(node_id), location=Location(dc=dc, rack=rack), tokens=tuple(tokens))


RF2 = SimpleStrategy(replication_factor=2)


def ring(*nodes: NodeSpec, replication: ReplicationParams = RF2, keyspace: str = "ks") -> Topology:
    return Topology(nodes=tuple(nodes), keyspaces=((keyspace, replication),))


def run(topology: Topology, *ops: Operation) -> OperationRun:
    result = run_operations(topology, ops)
    assert result.rejection is None, result.rejection
    return result


def table(m: ClusterMetadata, keyspace: str = "ks", direction: str = "reads") -> dict[tuple[int, int], str]:
    """`{(left, right): "ABX"}`: replica ids concatenated in sorted order."""
    groups = getattr(m.placements.get(keyspace), direction)
    return {(r.left, r.right): "".join(sorted(replicas)) for r, replicas in groups}
