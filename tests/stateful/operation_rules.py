"""The CEP-named rules both stateful machines share: register, PREPARE of each operation, the
next step of a sequence, cancel, and the schema race. A machine supplies `metadata` (the spec's
current state, which decides what is worth proposing) and `commit` (what to do with a proposal).
"""

from __future__ import annotations

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

    @rule(location=locations())
    def register(self, location: Location) -> None:
        self.counter += 1
        self.commit(Register(node=NodeId(f"new{self.counter}"), location=location))

    @precondition(lambda self: self.nodes_in(NodeState.REGISTERED))
    @rule(data=st.data(), tokens=st.lists(small_tokens, min_size=1, max_size=3, unique=True))
    def prepare_join(self, data: st.DataObject, tokens: list[int]) -> None:
        node = data.draw(st.sampled_from(self.nodes_in(NodeState.REGISTERED)))
        self.commit(PrepareJoin(node=node, tokens=tuple(tokens)))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(data=st.data(), remove=st.booleans())
    def prepare_leave(self, data: st.DataObject, remove: bool) -> None:
        self.commit(PrepareLeave(node=data.draw(st.sampled_from(self.nodes_in(NodeState.JOINED))), remove=remove))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(data=st.data(), tokens=st.lists(small_tokens, min_size=1, max_size=2, unique=True))
    def prepare_move(self, data: st.DataObject, tokens: list[int]) -> None:
        self.commit(PrepareMove(node=data.draw(st.sampled_from(self.nodes_in(NodeState.JOINED))), tokens=tuple(tokens)))

    @precondition(lambda self: self.nodes_in(NodeState.REGISTERED) and self.nodes_in(NodeState.JOINED))
    @rule(data=st.data())
    def prepare_replace(self, data: st.DataObject) -> None:
        self.commit(PrepareReplace(node=data.draw(st.sampled_from(self.nodes_in(NodeState.REGISTERED))),
                                   replaced=data.draw(st.sampled_from(self.nodes_in(NodeState.JOINED)))))

    @precondition(lambda self: bool(self.metadata.in_progress))
    @rule(data=st.data())
    def next_step(self, data: st.DataObject) -> None:
        seq = data.draw(st.sampled_from(list(self.metadata.in_progress.sequences())))
        self.commit(step_of(seq.kind, seq.next_step, seq.node))

    @precondition(lambda self: bool(self.metadata.in_progress))
    @rule(data=st.data())
    def cancel_sequence(self, data: st.DataObject) -> None:
        seq = data.draw(st.sampled_from(list(self.metadata.in_progress.sequences())))
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
