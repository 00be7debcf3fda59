"""The CEP-named rules both metadata-level stateful machines share (the metadata machine and
tests/stateful's spec-vs-impl machine): register, PREPARE of each operation, the next step of a
sequence, cancel, and the schema race. A machine supplies `metadata` (the spec's current state,
which decides what is worth proposing) and `commit` (what to do with a proposal).

Choices among the current nodes or sequences are drawn as an index (`pick`, taken modulo the
number of choices), not with `st.data()`, so that a failing program prints as code that runs.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from spec import schema as S
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId, NodeState
from spec.transformations import (
    AlterSchema,
    CancelSequence,
    PrepareJoin,
    PrepareLeave,
    PrepareMove,
    PrepareReplace,
    Register,
    Transformation,
    step_of,
)
from strategies.topologies import locations, small_tokens

PICK = st.integers(0, 7)


class OperationRules(RuleBasedStateMachine):
    """Not a test by itself (no `TestCase`): subclasses add `@initialize` and invariants."""

    def __init__(self) -> None:
        super().__init__()
        self.counter = 0

    @property
    def metadata(self) -> ClusterMetadata:
        raise NotImplementedError

    def commit(self, t: Transformation) -> None:
        raise NotImplementedError

    def nodes_in(self, *states: NodeState) -> list[NodeId]:
        return [n.id for n in self.metadata.directory.in_state(*states)]

    def node_in(self, pick: int, *states: NodeState) -> NodeId:
        nodes = sorted(self.nodes_in(*states))
        return nodes[pick % len(nodes)]

    def sequence(self, pick: int) -> Any:
        seqs = sorted(self.metadata.in_progress.sequences(), key=lambda s: str(s.node))
        return seqs[pick % len(seqs)]

    @rule(location=locations())
    def register(self, location: Location) -> None:
        self.counter += 1
        self.commit(Register(node=NodeId(f"new{self.counter}"), location=location))

    @precondition(lambda self: self.nodes_in(NodeState.REGISTERED))
    @rule(pick=PICK, tokens=st.lists(small_tokens, min_size=1, max_size=3, unique=True))
    def prepare_join(self, pick: int, tokens: list[int]) -> None:
        node = self.node_in(pick, NodeState.REGISTERED)
        self.commit(PrepareJoin(node=node, tokens=tuple(tokens)))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(pick=PICK, remove=st.booleans())
    def prepare_leave(self, pick: int, remove: bool) -> None:
        self.commit(PrepareLeave(node=self.node_in(pick, NodeState.JOINED), remove=remove))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(pick=PICK, tokens=st.lists(small_tokens, min_size=1, max_size=2, unique=True))
    def prepare_move(self, pick: int, tokens: list[int]) -> None:
        self.commit(PrepareMove(node=self.node_in(pick, NodeState.JOINED), tokens=tuple(tokens)))

    @precondition(lambda self: self.nodes_in(NodeState.REGISTERED) and self.nodes_in(NodeState.JOINED))
    @rule(pick=PICK, replaced=PICK)
    def prepare_replace(self, pick: int, replaced: int) -> None:
        self.commit(PrepareReplace(node=self.node_in(pick, NodeState.REGISTERED),
                                   replaced=self.node_in(replaced, NodeState.JOINED)))

    @precondition(lambda self: bool(self.metadata.in_progress))
    @rule(pick=PICK)
    def next_step(self, pick: int) -> None:
        seq = self.sequence(pick)
        self.commit(step_of(seq.kind, seq.next_step, seq.node))

    @precondition(lambda self: bool(self.metadata.in_progress))
    @rule(pick=PICK)
    def cancel_sequence(self, pick: int) -> None:
        seq = self.sequence(pick)
        self.commit(CancelSequence(node=seq.node))

    @rule(table=st.sampled_from(["t1", "t2"]), with_type=st.booleans())
    def create_table(self, table: str, with_type: bool) -> None:
        """One side of the CEP's race: CREATE TABLE using a user type..."""
        ks = self.metadata.schema.names()[0] if self.metadata.schema.names() else "none"
        columns = (("id", "int"), ("v", "frozen<addr>" if with_type else "text"))
        self.commit(AlterSchema(change=S.CreateTable(keyspace=ks, table=table, columns=columns)))

    @rule(create=st.booleans())
    def create_or_drop_type(self, create: bool) -> None:
        """...and the other: CREATE or DROP TYPE."""
        ks = self.metadata.schema.names()[0] if self.metadata.schema.names() else "none"
        change = (S.CreateType(keyspace=ks, type="addr", fields=(("x", "int"),)) if create
                  else S.DropType(keyspace=ks, type="addr"))
        self.commit(AlterSchema(change=change))
