"""`SpecVsImplMachine`: the same commands to the spec and to impl's metadata engine, compared
after every step (acceptance, epoch, placements, node states, tokens, CMS sets).

impl receives each transformation through the JSON wire shape (docs/transformations-json.md),
as its CMS members do; it never sees a spec object.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from campaign.formats.placements import placements_json
from campaign.formats.transformations import transformation_json
from impl.metadata import Accepted, Metadata, execute
from spec import schema as S
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId, NodeState
from spec.sequences import Step
from spec.topology import Topology
from spec.transformations import (
    AdvanceCMSReconfiguration,
    AlterSchema,
    CancelSequence,
    PrepareCMSReconfiguration,
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
from tests.refinement.test_spec_vs_impl import abstract, observed, topology_json


class SpecVsImplMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.spec: ClusterMetadata | None = None
        self.impl: Metadata | None = None
        self.counter = 0

    @property
    def m(self) -> ClusterMetadata:
        assert self.spec is not None
        return self.spec

    def both(self, t: Transformation) -> None:
        """Commit `t` on both sides; they must both accept or both refuse it."""
        assert self.impl is not None
        spec_result = t.execute(self.m)
        impl_result = execute(self.impl, transformation_json(t))
        spec_ok = not isinstance(spec_result, Rejected)
        impl_ok = isinstance(impl_result, Accepted)
        assert spec_ok == impl_ok, (t, getattr(spec_result, "reason", "ok"), getattr(impl_result, "reason", "ok"))
        if spec_ok and isinstance(impl_result, Accepted) and not isinstance(spec_result, Rejected):
            self.spec, self.impl = spec_result.metadata, impl_result.metadata

    def nodes_in(self, *states: NodeState) -> list[NodeId]:
        return [n.id for n in self.m.directory.in_state(*states)]

    @initialize(topology=topologies(max_nodes=5, max_tokens=3))
    def start_from(self, topology: Topology) -> None:
        self.spec = ClusterMetadata.initial(topology)
        self.impl = Metadata.from_topology(topology_json(topology))

    @rule(location=locations())
    def register(self, location: Location) -> None:
        self.counter += 1
        self.both(Register(node=NodeId(f"new{self.counter}"), location=location))

    @precondition(lambda self: self.nodes_in(NodeState.REGISTERED))
    @rule(data=st.data(), tokens=st.lists(small_tokens, min_size=1, max_size=3, unique=True))
    def prepare_join(self, data: st.DataObject, tokens: list[int]) -> None:
        self.both(PrepareJoin(node=data.draw(st.sampled_from(self.nodes_in(NodeState.REGISTERED))), tokens=tuple(tokens)))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(data=st.data(), remove=st.booleans())
    def prepare_leave(self, data: st.DataObject, remove: bool) -> None:
        self.both(PrepareLeave(node=data.draw(st.sampled_from(self.nodes_in(NodeState.JOINED))), remove=remove))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(data=st.data(), tokens=st.lists(small_tokens, min_size=1, max_size=2, unique=True))
    def prepare_move(self, data: st.DataObject, tokens: list[int]) -> None:
        self.both(PrepareMove(node=data.draw(st.sampled_from(self.nodes_in(NodeState.JOINED))), tokens=tuple(tokens)))

    @precondition(lambda self: self.nodes_in(NodeState.REGISTERED) and self.nodes_in(NodeState.JOINED))
    @rule(data=st.data())
    def prepare_replace(self, data: st.DataObject) -> None:
        self.both(PrepareReplace(node=data.draw(st.sampled_from(self.nodes_in(NodeState.REGISTERED))),
                                 replaced=data.draw(st.sampled_from(self.nodes_in(NodeState.JOINED)))))

    @precondition(lambda self: bool(self.m.in_progress))
    @rule(data=st.data())
    def next_step(self, data: st.DataObject) -> None:
        seq = data.draw(st.sampled_from(list(self.m.in_progress.sequences())))
        self.both(step_of(seq.kind, seq.next_step, seq.node))

    @precondition(lambda self: bool(self.m.in_progress))
    @rule(data=st.data(), step=st.sampled_from([Step.START, Step.MID, Step.FINISH]))
    def step_out_of_order(self, data: st.DataObject, step: Step) -> None:
        seq = data.draw(st.sampled_from(list(self.m.in_progress.sequences())))
        self.both(step_of(seq.kind, step, seq.node))

    @precondition(lambda self: bool(self.m.in_progress))
    @rule(data=st.data())
    def cancel_sequence(self, data: st.DataObject) -> None:
        self.both(CancelSequence(node=data.draw(st.sampled_from(list(self.m.in_progress.sequences()))).node))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(data=st.data())
    def reconfigure_cms(self, data: st.DataObject) -> None:
        joined = self.nodes_in(NodeState.JOINED)
        add = data.draw(st.sets(st.sampled_from(joined), max_size=2))
        remove = data.draw(st.sets(st.sampled_from(sorted(self.m.cms.members)), max_size=1))
        self.both(PrepareCMSReconfiguration(add=add - remove, remove=remove))

    @rule()
    def advance_cms_reconfiguration(self) -> None:
        self.both(AdvanceCMSReconfiguration())

    @rule(table=st.sampled_from(["t1", "t2"]), with_type=st.booleans(), drop_type=st.booleans())
    def schema_race(self, table: str, with_type: bool, drop_type: bool) -> None:
        ks = self.m.schema.names()[0] if self.m.schema.names() else "none"
        change: Any
        if drop_type:
            change = S.DropType(keyspace=ks, type="addr")
        elif with_type:
            change = S.CreateType(keyspace=ks, type="addr", fields=(("x", "int"),))
        else:
            change = S.CreateTable(keyspace=ks, table=table, columns=(("id", "int"), ("v", "frozen<addr>")))
        self.both(AlterSchema(change=change))

    @invariant()
    def same_epoch(self) -> None:
        if self.impl is not None:
            assert self.impl.epoch == self.m.epoch

    @invariant()
    def same_placements(self) -> None:
        if self.impl is not None:
            assert self.impl.placements_json() == placements_json(self.m.placements)

    @invariant()
    def same_nodes_tokens_and_cms(self) -> None:
        if self.impl is not None:
            assert observed(self.impl) == abstract(self.m)


TestSpecVsImplMachine = SpecVsImplMachine.TestCase
