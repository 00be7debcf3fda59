"""In-progress sequences: multi-step operations between their PREPARE and FINISH.

The CEP keeps "pending states for any node to be executed" in the metadata itself, so an
operation interrupted by a crash resumes from the metadata alone. Each sequence remembers the
placement deltas computed at PREPARE; START, MID and FINISH apply their parts of them.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from attrs import evolve, frozen

from spec.locks import AffectedRanges
from spec.nodes import NodeId
from spec.tokens import Range


class Step(enum.IntEnum):
    PREPARE = 0
    START = 1
    MID = 2
    FINISH = 3

    def __repr__(self) -> str:
        return f"Step.{self.name}"


class OperationKind(enum.Enum):
    JOIN = "JOIN"
    LEAVE = "LEAVE"
    REMOVE = "REMOVE"
    MOVE = "MOVE"
    REPLACE = "REPLACE"

    def __repr__(self) -> str:
        return f"OperationKind.{self.name}"

    @property
    def step_suffix(self) -> str:
        """Cassandra's kind names: removenode runs the LEAVE steps."""
        return "LEAVE" if self is OperationKind.REMOVE else self.value


Replicas = frozenset[NodeId]
RangeDelta = tuple[Range, Replicas, Replicas]
"""`(range, added, removed)`: the read replicas a range gains and loses over the operation."""


@frozen
class PlacementDeltas:
    """Per keyspace, how the operation changes each affected range's replicas."""

    by_keyspace: tuple[tuple[str, tuple[RangeDelta, ...]], ...] = ()

    def items(self) -> tuple[tuple[str, tuple[RangeDelta, ...]], ...]:
        return self.by_keyspace

    def for_keyspace(self, keyspace: str) -> tuple[RangeDelta, ...]:
        return dict(self.by_keyspace).get(keyspace, ())


@frozen(kw_only=True)
class InProgressSequence:
    kind: OperationKind
    node: NodeId
    next_step: Step
    tokens: tuple[int, ...] = ()
    """New tokens: the joining node's, or the moving node's destination tokens."""
    replaced: NodeId | None = None
    deltas: PlacementDeltas
    affected: AffectedRanges

    def advanced(self) -> InProgressSequence:
        return evolve(self, next_step=Step(self.next_step + 1))


@frozen
class InProgressSequences:
    by_node: tuple[tuple[NodeId, InProgressSequence], ...] = ()

    def get(self, node: NodeId) -> InProgressSequence | None:
        for n, seq in self.by_node:
            if n == node:
                return seq
        return None

    def with_sequence(self, seq: InProgressSequence) -> InProgressSequences:
        rest = [(n, s) for n, s in self.by_node if n != seq.node]
        return InProgressSequences(tuple(sorted([*rest, (seq.node, seq)], key=lambda e: e[0])))

    def without(self, node: NodeId) -> InProgressSequences:
        return InProgressSequences(tuple(e for e in self.by_node if e[0] != node))

    def sequences(self) -> Iterable[InProgressSequence]:
        return (s for _, s in self.by_node)

    def pending_tokens(self, excluding: NodeId | None = None) -> frozenset[int]:
        """Tokens cut into the placements by PREPARE steps whose FINISH has not yet run."""
        return frozenset(t for n, s in self.by_node if n != excluding for t in s.tokens)

    def involving(self, node: NodeId) -> InProgressSequence | None:
        """The sequence `node` performs or is replaced in."""
        for _, s in self.by_node:
            if s.node == node or s.replaced == node:
                return s
        return None

    def __bool__(self) -> bool:
        return bool(self.by_node)
