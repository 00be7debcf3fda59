"""The operator layer: what Cassandra refuses before it submits a transformation.

Transformations follow Cassandra's TCM classes, which leave some checks to the code that builds
and submits them (StorageService, BootStrapper, nodetool). OPS.json runs these checks by default;
an operation with `"operator_checks": false` (or `run_operations(..., operator_checks=False)`)
skips them, so the harness can drive transformations the way a racing or buggy operator path
could.

- join: tokens valid, not owned, not claimed by a sequence in flight (BootStrapper's
  "Bootstrapping to existing token" and StorageService's token collision checks).
- move: the same for the destination tokens (StorageService.move: "target token ... is already
  owned by another node").
"""

from __future__ import annotations

from collections.abc import Sequence

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId
from spec.tokens import is_valid_token


def tokens_free(m: ClusterMetadata, node: NodeId, what: str, tokens: Sequence[int]) -> str | None:
    """Why the operator path would refuse these tokens, or None."""
    if not tokens:
        return f"{node}: {what} needs at least one token"
    if len(set(tokens)) != len(tokens):
        return f"{node}: {what} repeats a token"
    pending = m.in_progress.pending_tokens()
    for t in tokens:
        if not is_valid_token(t):
            return f"{node}: {what} token {t} is outside the Murmur3 range"
        owner = m.token_map.owner_of(t)
        if owner is not None:
            return f"{node}: {what} token {t} is already owned by {owner}"
        if t in pending:
            return f"{node}: {what} token {t} is already being acquired"
    return None
