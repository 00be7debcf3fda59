"""What a node's operator commands refuse before committing anything, decided on that node's own
metadata and failure-detector view (trunk 6bbe85ef; messages verbatim, node ids standing for
addresses). Pure functions: the operation driver (impl/node/operation.py) and the operator's
cancels (impl/node/operator.py) call them.

`alive(peer)` is the asking node's view (Cassandra's `FailureDetector.isAlive` /
`Gossiper.getLiveMembers()` on the node nodetool talks to, or on the starting replacement):
itself always, a peer as its failure detector last judged it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spec.nodes import NodeState

Alive = Callable[[str], bool]


def join(meta: Any, tokens: tuple[int, ...]) -> str | None:
    """BootStrapper.getSpecifiedTokens: a token another node owns in the token map."""
    for t in tokens:
        if meta.token_map.owner_of(t) is not None:
            return f"Bootstrapping to existing token {t} is not allowed (decommission/removenode the old node first)."
    return None


def move(meta: Any, node: str, tokens: tuple[int, ...]) -> str | None:
    """StorageService.move(String newToken) (one token) and SingleNodeSequences.move: a token in
    the token map, then a node holding more than one token."""
    if len(tokens) != 1:
        return f"move takes one token (StorageService.move(String newToken)), not {len(tokens)}"
    if meta.token_map.owner_of(tokens[0]) is not None:
        return f"target token {tokens[0]} is already owned by another node."
    if len(meta.tokens_of(node)) > 1:
        return "This node has more than one token and cannot be moved thusly."
    return None


def replace_joined(meta: Any, replaced: str) -> str | None:
    """StorageService.initServer, before the replacement registers."""
    rec = meta.directory.get(replaced)
    if rec is None or rec.state is not NodeState.JOINED:
        return f"Cannot replace node {replaced} which is not currently joined"
    return None


def replace_live(replaced: str, alive: Alive) -> str | None:
    """Startup.getInitialTransformation, after ReconfigureCMS.maybeReconfigureCMS: the replacement's
    failure detector must not see the replaced node alive (the reconfiguration stays committed)."""
    if alive(replaced):
        return "Cannot replace a live node... "
    return None


def remove(meta: Any, me: str, target: str, alive: Alive) -> str | None:
    """SingleNodeSequences.removeNode, in its order: itself, an unknown id, a node the asking node
    sees alive (`Gossiper.getLiveMembers().contains(endpoint)`), a node with a sequence of its
    own. A node already LEAVING is removed anyway (Cassandra logs a warning)."""
    if target == me:
        return "Cannot remove self"
    if target not in meta.directory:
        return "Host ID not found."
    if alive(target):
        return f"Node {target} is alive and owns this ID. Use decommission command to remove it from the ring"
    if target in meta.sequences:
        return "Can not remove a node that has an in-progress sequence"
    return None


def decommission(meta: Any, node: str) -> str | None:
    """SingleNodeSequences.decommission: another sequence than a leave in progress. (The
    StorageService mode check — "Node in <mode> state; wait for status to become normal" — is
    left to PrepareLeave's JOINED check here.)"""
    seq = meta.sequences.get(node)
    if seq is not None and seq.kind != "LEAVE":
        return "Can not decommission a node that has an in-progress sequence"
    return None


def abort_bootstrap(meta: Any, target: str, alive: Alive) -> str | None:
    """StorageService.abortBootstrap, in its order: alive as the asking node sees it (always, when
    it asks about itself), the state, the sequence's kind."""
    if alive(target):
        return f"Can't abort bootstrap for {target} - it is alive"
    rec = meta.directory.get(target)
    state = rec.state if rec is not None else None
    if state not in (NodeState.REGISTERED, NodeState.BOOTSTRAPPING, NodeState.BOOT_REPLACING):
        return f"Can't abort bootstrap for node {target} since the state is {state.name if state else None}"
    seq = meta.sequences.get(target)
    if seq is not None and seq.kind not in ("JOIN", "REPLACE"):
        return f"Can't abort bootstrap for {target} since it is not bootstrapping"
    return None


def cancel(meta: Any, target: str, kind: str | None) -> str | None:
    """InProgressSequences.cancelInProgressSequences (JMX; `nodetool removenode abort`: REMOVE):
    the local metadata must hold a sequence of the expected kind; nothing else is checked."""
    seq = meta.sequences.get(target)
    if seq is None:
        return f"No in progress sequence for {target}"
    if kind is not None and seq.kind != kind:
        return f"No in progress sequence of kind {kind} for {target} (only {seq.kind} in progress)"
    return None


__all__ = ["Alive", "abort_bootstrap", "cancel", "decommission", "join", "move", "remove",
           "replace_joined", "replace_live"]
