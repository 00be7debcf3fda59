"""The operator layer: what Cassandra refuses, and does, before it submits a transformation.

Transformations follow Cassandra's TCM classes, which leave some checks to the code that builds
and submits them (StorageService, SingleNodeSequences, Startup, BootStrapper, nodetool). OPS.json
runs these checks by default; an operation with `"operator_checks": false` skips them, so the
harness can drive transformations the way a racing or direct submission could. Every refusal
is Cassandra's message (trunk 6bbe85ef), and each rule names its method.

The spec has no failure detector, so the liveness rules (replace and removenode refuse a node
the submitting node sees alive; `abortbootstrap` refuses a live one; the CMS reconfiguration
leaves down nodes out) are impl's (impl/node/operator.py): the spec's operations assume the
replaced or removed node is dead and every other node is up.
"""

from __future__ import annotations

from collections.abc import Sequence

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.sequences import OperationKind
from spec.tokens import is_valid_token
from spec.transformations.cms_reconfiguration import PrepareCMSReconfiguration


def _valid(node: NodeId, what: str, tokens: Sequence[int]) -> str | None:
    if not tokens:
        return f"{node}: {what} needs at least one token"
    if len(set(tokens)) != len(tokens):
        return f"{node}: {what} repeats a token"
    for t in tokens:
        if not is_valid_token(t):
            return f"{node}: {what} token {t} is outside the Murmur3 range"
    return None


def join(m: ClusterMetadata, node: NodeId, tokens: Sequence[int]) -> str | None:
    """BootStrapper.getSpecifiedTokens (`initial_token`): a token some node owns in the token
    map is refused; a token only pending in another sequence is not (the PREPARE's range-lock
    check refuses that one)."""
    bad = _valid(node, "join", tokens)
    if bad is not None:
        return bad
    for t in tokens:
        if m.token_map.owner_of(t) is not None:
            return (f"Bootstrapping to existing token {t} is not allowed (decommission/removenode the "
                    f"old node first).")
    return None


def move(m: ClusterMetadata, node: NodeId, tokens: Sequence[int]) -> str | None:
    """StorageService.move(String newToken) takes one token; SingleNodeSequences.move refuses, in
    this order, a token already in the token map (the node's own included) and a node that holds
    more than one token ("This doesn't make any sense in a vnodes environment")."""
    bad = _valid(node, "move", tokens)
    if bad is not None:
        return bad
    if len(tokens) != 1:
        return f"{node}: move takes one token (StorageService.move(String newToken)), not {len(tokens)}"
    if tokens[0] in m.token_map.tokens:
        return f"target token {tokens[0]} is already owned by another node."
    if len(m.token_map.tokens_of(node)) > 1:
        return "This node has more than one token and cannot be moved thusly."
    return None


def replace(m: ClusterMetadata, replaced: NodeId) -> str | None:
    """StorageService.initServer, before the replacement registers: the replaced node must be
    JOINED (`directory.peerState(replaceAddress) != JOINED`)."""
    if m.directory.state(replaced) is not NodeState.JOINED:
        return f"Cannot replace node {replaced} which is not currently joined"
    return None


def remove(m: ClusterMetadata, node: NodeId) -> str | None:
    """SingleNodeSequences.removeNode, its checks that need no failure detector: the id must be
    in the directory, and must have no sequence of its own (`inProgressSequences.contains`: a
    node being replaced passes, its PREPARE_LEAVE then meets the replace's locks)."""
    if node not in m.directory:
        return "Host ID not found."
    if m.in_progress.get(node) is not None:
        return "Can not remove a node that has an in-progress sequence"
    return None


def decommission(m: ClusterMetadata, node: NodeId) -> str | None:
    """SingleNodeSequences.decommission: a node with an in-progress sequence other than a leave
    is refused (a leave in progress is resumed, not prepared again)."""
    seq = m.in_progress.get(node)
    if seq is not None and seq.kind is not OperationKind.LEAVE:
        return "Can not decommission a node that has an in-progress sequence"
    return None


def abort_bootstrap(m: ClusterMetadata, node: NodeId) -> str | None:
    """StorageService.abortBootstrap, after its liveness check: the node's state must be
    REGISTERED, BOOTSTRAPPING or BOOT_REPLACING, and a sequence of its own must be a join or a
    replace."""
    state = m.directory.state(node)
    if state not in (NodeState.REGISTERED, NodeState.BOOTSTRAPPING, NodeState.BOOT_REPLACING):
        return f"Can't abort bootstrap for node {node} since the state is {state.name if state else None}"
    seq = m.in_progress.get(node)
    if seq is not None and seq.kind not in (OperationKind.JOIN, OperationKind.REPLACE):
        return f"Can't abort bootstrap for {node} since it is not bootstrapping"
    return None


def cancel(m: ClusterMetadata, node: NodeId, kind: OperationKind | None) -> str | None:
    """InProgressSequences.cancelInProgressSequences (JMX `CMSOperations.cancelInProgressSequences`,
    `nodetool removenode abort`): no liveness or state check, only that the node has a sequence
    of the expected kind."""
    seq = m.in_progress.get(node)
    if seq is None:
        return f"No in progress sequence for {node}"
    if kind is not None and seq.kind is not kind:
        return f"No in progress sequence of kind {kind.value} for {node} (only {seq.kind.value} in progress)"
    return None


def cms_candidates(m: ClusterMetadata, exclude: frozenset[NodeId], down: frozenset[NodeId]) -> list[NodeId]:
    """CMSPlacementStrategy.DefaultNodeFilter: JOINED, in no in-progress sequence, and passing
    the caller's predicate (not excluded, not down); lowest ids first (the harness's stand-in for
    the placement of the metadata range over the filtered ring)."""
    return sorted(n.id for n in m.directory.in_state(NodeState.JOINED)
                  if n.id not in exclude and n.id not in down and m.in_progress.involving(n.id) is None)


def reconfigure_cms_without(m: ClusterMetadata, to_remove: NodeId, down: frozenset[NodeId] = frozenset()
                            ) -> PrepareCMSReconfiguration | str | None:
    """ReconfigureCMS.maybeReconfigureCMS(metadata, toRemove), run before replace (Startup),
    decommission, removenode and assassinate: nothing when `to_remove` is not a CMS member;
    otherwise a PrepareCMSReconfiguration.Simple keeping the CMS's size (`ReplicationParams.meta`:
    here, its current member count) without `to_remove` and without down nodes, refused by
    `verify` when fewer than a majority of that size would be left. The harness names the change
    (`add`, `remove`): Cassandra's Simple computes it inside `execute`, and here it executes on
    the metadata it was computed from, so the two agree (impl's nodes, which submit and execute
    on different metadata, use the `placement` form: spec/cms_placement.py)."""
    members = m.cms.members
    if to_remove not in members:
        return None
    keep = sorted(members - {to_remove})
    size = len(members)
    add = cms_candidates(m, frozenset(members) | {to_remove}, down)[: max(0, size - len(keep))]
    if len(keep) + len(add) < size // 2 + 1:
        return "Too many nodes are currently DOWN to safely perform the reconfiguration"
    return PrepareCMSReconfiguration(add=frozenset(add), remove=frozenset({to_remove}))


__all__ = ["abort_bootstrap", "cancel", "cms_candidates", "decommission", "join", "move",
           "reconfigure_cms_without", "remove", "replace"]
