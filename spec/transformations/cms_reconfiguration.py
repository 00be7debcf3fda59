"""CMS reconfiguration: PREPARE, ADVANCE (one single-node step per epoch), CANCEL.

Adding a member takes two epochs (write set, then — after the log is streamed to it — read set);
removing one takes one. Additions run before removals, so the CMS grows before it shrinks.
"""

from __future__ import annotations

from attrs import evolve, field, frozen

from spec.cms import CMSReconfiguration, CMSStep, CMSStepKind
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState, node_set
from spec.transformations.base import Rejected, Result, Success, Transformation


@frozen(kw_only=True)
class PrepareCMSReconfiguration(Transformation):
    kind = "PREPARE_CMS_RECONFIGURATION"
    add: frozenset[NodeId] = field(converter=node_set, default=frozenset())
    remove: frozenset[NodeId] = field(converter=node_set, default=frozenset())

    def execute(self, m: ClusterMetadata) -> Result:
        cms = m.cms
        if not cms.initialized:
            return Rejected(f"{self.kind} before the CMS is initialized")
        if cms.reconfiguration is not None:
            return Rejected(f"{self.kind} while another CMS reconfiguration is in progress")
        if not self.add and not self.remove:
            return Rejected(f"{self.kind} with nothing to add or remove")
        if self.add & self.remove:
            return Rejected(f"{self.kind} adds and removes {sorted(self.add & self.remove)[0]}")
        for node in sorted(self.add):
            if m.directory.state(node) is not NodeState.JOINED:
                return Rejected(f"{node}: {self.kind} can only add JOINED nodes")
            if node in cms.members:
                return Rejected(f"{node}: {self.kind} adds a node already in the CMS")
        for node in sorted(self.remove):
            if node not in cms.members:
                return Rejected(f"{node}: {self.kind} removes a node not in the CMS")
        if not (cms.members | self.add) - self.remove:
            return Rejected(f"{self.kind} would leave the CMS empty")
        steps = [CMSStep(k, n) for n in sorted(self.add) for k in (CMSStepKind.ADD_TO_WRITES, CMSStepKind.ADD_TO_READS)]
        steps += [CMSStep(CMSStepKind.REMOVE, n) for n in sorted(self.remove)]
        return Success(m.next_epoch(cms=evolve(cms, reconfiguration=CMSReconfiguration(tuple(steps)))))


@frozen(kw_only=True)
class AdvanceCMSReconfiguration(Transformation):
    kind = "ADVANCE_CMS_RECONFIGURATION"

    def execute(self, m: ClusterMetadata) -> Result:
        cms = m.cms
        if cms.reconfiguration is None:
            return Rejected(f"{self.kind} with no CMS reconfiguration in progress")
        step, *rest = cms.reconfiguration.remaining
        reads, writes = cms.reads, cms.writes
        if step.kind is CMSStepKind.ADD_TO_WRITES:
            writes = writes | {step.node}
        elif step.kind is CMSStepKind.ADD_TO_READS:
            reads = reads | {step.node}
        else:
            reads, writes = reads - {step.node}, writes - {step.node}
        reconfiguration = CMSReconfiguration(tuple(rest)) if rest else None
        return Success(m.next_epoch(cms=evolve(cms, reads=reads, writes=writes, reconfiguration=reconfiguration)))


@frozen(kw_only=True)
class CancelCMSReconfiguration(Transformation):
    """Members added only to the write set are dropped; completed steps stand."""

    kind = "CANCEL_CMS_RECONFIGURATION"

    def execute(self, m: ClusterMetadata) -> Result:
        cms = m.cms
        if cms.reconfiguration is None:
            return Rejected(f"{self.kind} with no CMS reconfiguration in progress")
        writes = cms.writes - (cms.writes - cms.reads)
        return Success(m.next_epoch(cms=evolve(cms, writes=writes, reconfiguration=None)))
