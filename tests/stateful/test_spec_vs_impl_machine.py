"""`SpecVsImplMachine`: the same commands to the spec and to impl's metadata engine, compared
after every step (acceptance, epoch, placements, node states, tokens, CMS sets).

impl receives each transformation through the JSON wire shape (docs/transformations-json.md),
as its CMS members do; it never sees a spec object.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from campaign.formats.placements import placements_json
from campaign.formats.transformations import transformation_json
from impl.metadata import Accepted, Metadata, execute
from spec.metadata import ClusterMetadata
from spec.nodes import NodeState
from spec.sequences import Step
from spec.topology import Topology
from spec.transformations import (
    AdvanceCMSReconfiguration,
    PrepareCMSReconfiguration,
    Rejected,
    Transformation,
    step_of,
)
from strategies.operation_rules import PICK, OperationRules
from strategies.topologies import topologies
from tests.refinement.test_spec_vs_impl import abstract, observed, topology_json


class SpecVsImplMachine(OperationRules):
    def __init__(self) -> None:
        super().__init__()
        self.spec: ClusterMetadata | None = None
        self.impl: Metadata | None = None

    @property
    def m(self) -> ClusterMetadata:
        assert self.spec is not None
        return self.spec

    @property
    def metadata(self) -> ClusterMetadata:
        return self.m

    def commit(self, t: Transformation) -> None:
        """Commit `t` on both sides; they must both accept or both refuse it."""
        assert self.impl is not None
        spec_result = t.execute(self.m)
        impl_result = execute(self.impl, transformation_json(t))
        spec_ok = not isinstance(spec_result, Rejected)
        impl_ok = isinstance(impl_result, Accepted)
        assert spec_ok == impl_ok, (t, getattr(spec_result, "reason", "ok"), getattr(impl_result, "reason", "ok"))
        if spec_ok and isinstance(impl_result, Accepted) and not isinstance(spec_result, Rejected):
            self.spec, self.impl = spec_result.metadata, impl_result.metadata

    @initialize(topology=topologies(max_nodes=5, max_tokens=3))
    def start_from(self, topology: Topology) -> None:
        self.spec = ClusterMetadata.initial(topology)
        self.impl = Metadata.from_topology(topology_json(topology))

    @precondition(lambda self: bool(self.m.in_progress))
    @rule(pick=PICK, step=st.sampled_from([Step.START, Step.MID, Step.FINISH]))
    def step_out_of_order(self, pick: int, step: Step) -> None:
        seq = self.sequence(pick)
        self.commit(step_of(seq.kind, step, seq.node))

    @precondition(lambda self: self.nodes_in(NodeState.JOINED))
    @rule(add_picks=st.sets(PICK, max_size=2), remove_picks=st.sets(PICK, max_size=1))
    def reconfigure_cms(self, add_picks: set[int], remove_picks: set[int]) -> None:
        joined = sorted(self.nodes_in(NodeState.JOINED))
        members = sorted(self.m.cms.members)
        add = {joined[i % len(joined)] for i in add_picks}
        remove = {members[i % len(members)] for i in remove_picks} if members else set()
        self.commit(PrepareCMSReconfiguration(add=add - remove, remove=remove))

    @rule()
    def advance_cms_reconfiguration(self) -> None:
        self.commit(AdvanceCMSReconfiguration())

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
