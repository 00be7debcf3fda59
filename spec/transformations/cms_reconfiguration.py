"""CMS reconfiguration: PREPARE, ADVANCE (one single-node step per epoch), CANCEL.

Cassandra's PrepareCMSReconfiguration / AdvanceCMSReconfiguration: PREPARE locks the entire range
of the metadata keyspace (so placement-affecting schema changes wait) unless the membership would
not change (then it commits as a no-op). Adding a member takes two epochs (write set, then, after
the log is streamed to it, read set); removing one takes one; additions run before removals, so
the CMS grows before it shrinks; a separate last ADVANCE drops the sequence and unlocks. Each
ADVANCE may carry its sequence index; a stale or duplicate one is rejected.
"""

from __future__ import annotations

from attrs import evolve, field, frozen

from spec.cms import CMS_LOCK_HOLDER, CMSReconfiguration, CMSStep, CMSStepKind
from spec.cms_placement import Placement, diff
from spec.locks import AffectedRanges
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState, node_set
from spec.tokens import MIN_TOKEN, Range
from spec.transformations.base import Rejected, Result, Success, Transformation


@frozen(kw_only=True)
class PrepareCMSReconfiguration(Transformation):
    """With `placement`, the change is computed from the metadata it executes on, as Cassandra's
    Simple and Complex compute theirs in `execute(prev)` (spec/cms_placement.py); `add` and
    `remove` then stay empty. Without it, the change is the one named (an operator's or a test's
    explicit plan)."""

    kind = "PREPARE_CMS_RECONFIGURATION"
    add: frozenset[NodeId] = field(converter=node_set, default=frozenset())
    remove: frozenset[NodeId] = field(converter=node_set, default=frozenset())
    placement: Placement | None = None

    def execute(self, m: ClusterMetadata) -> Result:
        cms = m.cms
        if not cms.initialized:
            return Rejected(f"{self.kind} before the CMS is initialized")
        if cms.reconfiguration is not None:
            return Rejected(f"{self.kind} while another CMS reconfiguration is in progress")
        if self.placement is not None:
            joined = [n.id for n in m.directory.in_state(NodeState.JOINED)]
            busy = {n for n in joined if m.in_progress.involving(n) is not None}
            planned = diff(joined, cms.members, self.placement, busy)
            if isinstance(planned, str):
                return Rejected(f"{self.kind}: {planned}")
            if not planned[0] and not planned[1]:
                return Success(m.next_epoch())  # "resulted in no required modifications"
            return PrepareCMSReconfiguration(add=planned[0], remove=planned[1]).execute(m)
        if not self.add and not self.remove:
            return Rejected(f"{self.kind} with nothing to add or remove")
        if self.add & self.remove:
            return Rejected(f"{self.kind} adds and removes {sorted(self.add & self.remove)[0]}")
        for node in sorted(self.add):
            if m.directory.state(node) is not NodeState.JOINED:
                return Rejected(f"{node}: {self.kind} can only add JOINED nodes")
            if node in cms.members:
                return Rejected(f"{node}: {self.kind} adds a node already in the CMS")
            if m.in_progress.involving(node) is not None:
                # CMSPlacementStrategy's candidates exclude nodes in a sequence
                return Rejected(f"{node}: {self.kind} adds a node in an in-progress sequence")
        for node in sorted(self.remove):
            if node not in cms.members:
                return Rejected(f"{node}: {self.kind} removes a node not in the CMS")
        if not (cms.members | self.add) - self.remove:
            return Rejected(f"{self.kind} would leave the CMS empty")
        if (cms.members | self.add) - self.remove == cms.members:
            return Success(m.next_epoch())  # "resulted in no required modifications"
        steps = [CMSStep(k, n) for n in sorted(self.add) for k in (CMSStepKind.ADD_TO_WRITES, CMSStepKind.ADD_TO_READS)]
        steps += [CMSStep(CMSStepKind.REMOVE, n) for n in sorted(self.remove)]
        steps.append(CMSStep(CMSStepKind.FINISH, NodeId(CMS_LOCK_HOLDER)))
        whole = AffectedRanges.of({CMS_LOCK_HOLDER: [Range(MIN_TOKEN, MIN_TOKEN)]})
        return Success(m.next_epoch(cms=evolve(cms, reconfiguration=CMSReconfiguration(tuple(steps))),
                                    locked_ranges=m.locked_ranges.lock(NodeId(CMS_LOCK_HOLDER), whole)))


def unknown_endpoint(node: str, where: str) -> str:
    """Cassandra's NullPointerException for a CMS step whose node has left the directory."""
    return f"{node}: not in the directory: {where}'s new Replica(directory.endpoint({node}), ...) throws NullPointerException"


@frozen(kw_only=True)
class AdvanceCMSReconfiguration(Transformation):
    kind = "ADVANCE_CMS_RECONFIGURATION"
    sequence_index: int | None = None
    """The step this ADVANCE is for; None (hand-written operations) means the next one."""

    def execute(self, m: ClusterMetadata) -> Result:
        cms = m.cms
        if cms.reconfiguration is None:
            return Rejected(f"{self.kind} with no CMS reconfiguration in progress")
        index = cms.reconfiguration.next_index
        if self.sequence_index is not None and self.sequence_index != index:
            return Rejected(f"{self.kind} ({self.sequence_index}) has already been applied or is not next "
                            f"(expected {index})")
        step, *rest = cms.reconfiguration.remaining
        reads, writes = cms.reads, cms.writes
        if step.kind is not CMSStepKind.FINISH and step.node not in m.directory:
            # startAdd / finishAdd / executeRemove: new Replica(prev.directory.endpoint(id), ...),
            # whose constructor is Preconditions.checkNotNull(endpoint) (a node replaced meanwhile)
            return Rejected(unknown_endpoint(step.node, "AdvanceCMSReconfiguration"))
        if step.kind is CMSStepKind.FINISH:
            return Success(m.next_epoch(cms=evolve(cms, reconfiguration=None),
                                        locked_ranges=m.locked_ranges.unlock(NodeId(CMS_LOCK_HOLDER))))
        if step.kind is CMSStepKind.ADD_TO_WRITES:
            writes = writes | {step.node}
        elif step.kind is CMSStepKind.ADD_TO_READS:
            reads = reads | {step.node}
        else:
            if not (reads - {step.node}) or not (writes - {step.node}):
                return Rejected(f"{step.node}: removing it would leave no nodes in the CMS")
            reads, writes = reads - {step.node}, writes - {step.node}
        reconfiguration = CMSReconfiguration(tuple(rest), index + 1)
        return Success(m.next_epoch(cms=evolve(cms, reads=reads, writes=writes, reconfiguration=reconfiguration)))


@frozen(kw_only=True)
class CancelCMSReconfiguration(Transformation):
    """Members added only to the write set are dropped; completed steps stand."""

    kind = "CANCEL_CMS_RECONFIGURATION"

    def execute(self, m: ClusterMetadata) -> Result:
        cms = m.cms
        if cms.reconfiguration is None:
            return Rejected(f"{self.kind} with no CMS reconfiguration in progress")
        for node in sorted(cms.writes - cms.reads):
            if node not in m.directory:  # the active transition's pending replica, looked up likewise
                return Rejected(unknown_endpoint(node, "CancelCMSReconfiguration"))
        writes = cms.writes - (cms.writes - cms.reads)
        return Success(m.next_epoch(cms=evolve(cms, writes=writes, reconfiguration=None),
                                    locked_ranges=m.locked_ranges.unlock(NodeId(CMS_LOCK_HOLDER))))
