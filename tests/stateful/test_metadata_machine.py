"""`MetadataMachine`: the spec driven by Hypothesis's stateful testing, checked by its invariants.

Rules carry the CEP's operation names; each invariant is its own `@invariant`, so a failure
names the one that broke, and the printed program replays with `state = MetadataMachine()`.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from spec import invariants as inv
from spec import schema as S
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId, NodeState
from spec.topology import Topology
from spec.transformations import (
    AlterSchema,
    CancelSequence,
    PrepareJoin,
    PrepareLeave,
    PrepareMove,
    PrepareReplace,
    Register,
    Rejected,
    Transformation,
    step_of,
)
from strategies.topologies import locations, small_tokens, topologies


class MetadataMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.m: ClusterMetadata | None = None
        self.rejections = 0
        self.counter = 0

    @property
    def metadata(self) -> ClusterMetadata:
        assert self.m is not None
        return self.m

    def commit(self, t: Transformation) -> None:
        result = t.execute(self.metadata)
        if isinstance(result, Rejected):
            self.rejections += 1
            return
        assert result.metadata.epoch == self.metadata.epoch + 1
        self.m = result.metadata

    def nodes_in(self, *states: NodeState) -> list[NodeId]:
        return [n.id for n in self.metadata.directory.in_state(*states)]

    @initialize(topology=topologies(max_nodes=6, max_tokens=3))
    def start_from(self, topology: Topology) -> None:
        self.m = ClusterMetadata.initial(topology)

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
        ks = self.metadata.schema.names()[0] if self.metadata.schema.names() else "none"
        columns = (("id", "int"), ("v", "frozen<addr>" if with_type else "text"))
        self.commit(AlterSchema(change=S.CreateTable(keyspace=ks, table=table, columns=columns)))

    @rule(create=st.booleans())
    def create_or_drop_type(self, create: bool) -> None:
        ks = self.metadata.schema.names()[0] if self.metadata.schema.names() else "none"
        change = (S.CreateType(keyspace=ks, type="addr", fields=(("x", "int"),)) if create
                  else S.DropType(keyspace=ks, type="addr"))
        self.commit(AlterSchema(change=change))

    @invariant()
    def ranges_tile_the_ring(self) -> None:
        assert inv.ranges_tile_the_ring(self.metadata) == ()

    @invariant()
    def reads_are_write_replicas(self) -> None:
        assert inv.reads_are_write_replicas(self.metadata) == ()

    @invariant()
    def reads_have_replication_factor(self) -> None:
        assert inv.reads_have_replication_factor(self.metadata) == ()

    @invariant()
    def over_replication_only_in_flight(self) -> None:
        assert inv.over_replication_only_in_flight(self.metadata) == ()

    @invariant()
    def at_rest_matches_from_scratch(self) -> None:
        assert inv.at_rest_matches_from_scratch(self.metadata) == ()

    @invariant()
    def locks_belong_to_sequences(self) -> None:
        assert inv.locks_belong_to_sequences(self.metadata) == ()

    @invariant()
    def no_table_uses_a_missing_type(self) -> None:
        for ks in self.metadata.schema.keyspaces:
            types = {t.name for t in ks.types}
            for table in ks.tables:
                for _, cql_type in table.columns:
                    assert S.referenced_types(cql_type) <= types


TestMetadataMachine = MetadataMachine.TestCase
