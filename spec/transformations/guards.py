"""Guards several transformations share: node lookups and token availability."""

from __future__ import annotations

from collections.abc import Sequence

from spec.metadata import ClusterMetadata
from spec.nodes import Node, NodeId, NodeState
from spec.replication import SimpleStrategy
from spec.tokens import is_valid_token
from spec.transformations.base import Rejected


def node_in_state(m: ClusterMetadata, node: NodeId, kind: str, *states: NodeState) -> Node | Rejected:
    found = m.directory.get(node)
    if found is None:
        return Rejected(f"{node}: {kind} of unknown node")
    if found.state not in states:
        return Rejected(f"{node}: {kind} needs state {'/'.join(s.name for s in states)}, not {found.state.name}")
    return found


def tokens_representable(m: ClusterMetadata, node: NodeId, kind: str, tokens: Sequence[int]) -> Rejected | None:
    """What a token map can hold: some tokens, none repeated, none owned by another node.
    Validity and availability checks belong to the operator layer (`spec.operator_checks`)."""
    if not tokens:
        return Rejected(f"{node}: {kind} needs at least one token")
    if len(set(tokens)) != len(tokens):
        return Rejected(f"{node}: {kind} repeats a token")
    for t in tokens:
        if not is_valid_token(t):
            return Rejected(f"{node}: {kind} token {t} is outside the Murmur3 range")
        owner = m.token_map.owner_of(t)
        if owner is not None and owner != node:
            return Rejected(f"{node}: {kind} token {t} is already owned by {owner}")
    return None


def joined_count_allows_leave(m: ClusterMetadata, node: NodeId, kind: str) -> Rejected | None:
    """Cassandra's PrepareLeave.validateReplicationForDecommission: per keyspace, the JOINED
    nodes of the leaving node's DC (NTS) or of the cluster (SimpleStrategy), the leaving node
    included, must outnumber the replication factor. Only JOINED nodes count, so a node whose
    leave is prepared but not started still counts (two concurrent leaves count each other)."""

    joined = [n for n in m.directory.in_state(NodeState.JOINED)]
    dc = m.directory.location(node).dc
    for ks in m.schema.keyspaces:
        params = ks.replication
        if isinstance(params, SimpleStrategy):
            count, rf = len(joined), params.replication_factor
        else:
            count, rf = sum(1 for n in joined if n.dc == dc), params.factor(dc)
        if count <= rf:
            return Rejected(f"{node}: {kind}: not enough live nodes to maintain replication factor "
                            f"{rf} of {ks.name} ({count} JOINED)")
    return None


def leaves_enough_replicas(m: ClusterMetadata, node: NodeId, kind: str) -> Rejected | None:
    """The old rule (now the fix `leave-counts-in-flight`): a DC must keep at least RF token
    owners once every leave in flight has finished."""

    leaving = {s.node for s in m.in_progress.sequences() if s.kind.value in ("LEAVE", "REMOVE")}
    remaining = m.token_map.owners() - leaving - {node}
    dc = m.directory.location(node).dc
    for ks in m.schema.keyspaces:
        params = ks.replication
        if isinstance(params, SimpleStrategy):
            if len(remaining) < params.replication_factor:
                return Rejected(f"{node}: {kind} would leave {len(remaining)} nodes for "
                                f"{ks.name} with replication factor {params.replication_factor}")
        else:
            rf = params.factor(dc)
            in_dc = sum(1 for n in remaining if m.directory.location(n).dc == dc)
            if rf and in_dc < rf:
                return Rejected(f"{node}: {kind} would leave {in_dc} nodes in {dc} for "
                                f"{ks.name} with replication factor {rf}")
    return None
