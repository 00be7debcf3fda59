"""CMS reconfiguration and INITIALIZE_CMS (the migration from gossip).

Reconfiguration (Cassandra's PrepareCMSReconfiguration / AdvanceCMSReconfiguration): PREPARE records
the plan and holds the metadata keyspace's lock (`reconfiguring`), or commits as a no-op when the
membership would not change; candidates must not be in a topology sequence. Each ADVANCE takes one
step, so the read and write sets differ by at most one node at any epoch: additions first (a node
enters the write set, then - next epoch, after it has streamed the log - the read set), then
removals (a node leaves both sets in one epoch), then a separate last step that ends the
reconfiguration and unlocks. An ADVANCE may carry `sequence_index`; a stale or duplicate one is
rejected. CANCEL drops write-only members and unlocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import evolve

from impl.metadata.metadata import Metadata
from impl.metadata.records import CMSState
from impl.metadata.results import Accepted, Malformed, Rejected, Result, id_list, node_field
from spec.cms_placement import Placement, diff
from spec.nodes import NodeId, NodeState, NodeVersion


def prepare_cms_reconfiguration(m: Metadata, t: Mapping[str, Any]) -> Result:
    if "placement" in t:
        planned = _placed(m, t)
        if m.cms.reconfiguring:
            return Rejected("CMS: a reconfiguration is already in progress")
        if isinstance(planned, Rejected):
            return planned
        add, remove = planned
        if not add and not remove:
            return Accepted(metadata=m.next(), kind="PREPARE_CMS_RECONFIGURATION")  # no-op
    else:
        add = id_list(t, "add", default=[])
        remove = id_list(t, "remove", default=[])
    if set(add) & set(remove):
        raise Malformed("PREPARE_CMS_RECONFIGURATION: a node is both added and removed")
    if m.cms.reconfiguring:
        return Rejected("CMS: a reconfiguration is already in progress")
    if not add and not remove:
        return Rejected("CMS: empty reconfiguration")
    for n in add:
        rec = m.directory.get(n)
        if rec is None:
            return Rejected(f"CMS: {n} is not registered")
        if rec.state is not NodeState.JOINED:
            return Rejected(f"CMS: {n} must be JOINED to become a member, not {rec.state.value}")
        if n in m.cms.writes:
            return Rejected(f"CMS: {n} is already a member")
    for n in remove:
        if n not in m.cms.writes:
            return Rejected(f"CMS: {n} is not a member")
    if not (m.cms.writes | set(add)) - set(remove):
        return Rejected("CMS: the reconfiguration would leave no members")
    for n in add:
        if n in m.sequences or any(s.replaced == n for s in m.sequences.values()):
            return Rejected(f"CMS: {n} is in an in-progress sequence")
    if (m.cms.writes | set(add)) - set(remove) == m.cms.writes:
        return Accepted(metadata=m.next(), kind="PREPARE_CMS_RECONFIGURATION")  # no-op
    cms = evolve(
        m.cms, reconfiguring=True, pending_add=tuple(sorted(add)), pending_remove=tuple(sorted(remove))
    )
    return Accepted(metadata=m.next(cms=cms), kind="PREPARE_CMS_RECONFIGURATION")


def _placed(m: Metadata, t: Mapping[str, Any]) -> tuple[list[str], list[str]] | Rejected:
    """The change of a reconfiguration computed where it executes, as Cassandra's
    PrepareCMSReconfiguration.Simple/Complex do in `execute(prev)` (spec/cms_placement.py): from
    this metadata's JOINED nodes, full members and in-progress sequences."""
    raw = t.get("placement")
    if not isinstance(raw, Mapping):
        raise Malformed("PREPARE_CMS_RECONFIGURATION: field 'placement' must be an object")
    size = raw.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise Malformed("PREPARE_CMS_RECONFIGURATION: placement size must be a positive integer")
    without = raw.get("without")
    if without is not None and (not isinstance(without, str) or not without):
        raise Malformed("PREPARE_CMS_RECONFIGURATION: placement 'without' must be a node id")
    named = {**raw, "kind": "PREPARE_CMS_RECONFIGURATION placement"}  # (names the field in a refusal)
    p = Placement(size=size, down=frozenset(id_list(named, "down", default=[])),
                  without=None if without is None else NodeId(without))
    joined = [n for n, rec in m.directory.items() if rec.state is NodeState.JOINED]
    busy = set(m.sequences) | {str(s.replaced) for s in m.sequences.values() if s.replaced is not None}
    planned = diff(joined, m.cms.reads, p, busy)
    if isinstance(planned, str):
        return Rejected(f"CMS: {planned}")
    return sorted(planned[0]), sorted(planned[1])


def _npe(node: str, where: str) -> str:
    return f"{node}: not in the directory: {where}'s new Replica(directory.endpoint({node}), ...) throws NullPointerException"


def advance_cms_reconfiguration(m: Metadata, t: Mapping[str, Any]) -> Result:
    cms = m.cms
    if not cms.reconfiguring:
        return Rejected("CMS: no reconfiguration in progress")
    index = t.get("sequence_index")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
        raise Malformed("ADVANCE_CMS_RECONFIGURATION: sequence_index must be an integer")
    if index is not None and index != cms.next_index:
        return Rejected(f"CMS: advance {index} was already applied or is not next ({cms.next_index})")
    streaming = cms.writes - cms.reads
    # each step builds new Replica(directory.endpoint(id), ...): a node no longer in the directory
    # (replaced while the CMS was adding it) makes it throw NullPointerException
    step_nodes = sorted(streaming) or list(cms.pending_add[:1]) or list(cms.pending_remove[:1])
    for n in step_nodes:
        if n not in m.directory:
            return Rejected(_npe(n, "AdvanceCMSReconfiguration"))
    if streaming:
        cms = evolve(cms, reads=cms.reads | streaming)
    elif cms.pending_add:
        n, *rest = cms.pending_add
        cms = evolve(cms, writes=cms.writes | {n}, pending_add=tuple(rest))
    elif cms.pending_remove:
        n, *rest = cms.pending_remove
        if not cms.reads - {n}:
            return Rejected(f"CMS: removing {n} would leave no members")
        cms = evolve(
            cms, reads=cms.reads - {n}, writes=cms.writes - {n}, pending_remove=tuple(rest)
        )
    else:  # the separate last step: the sequence ends and the lock is released
        return Accepted(metadata=m.next(cms=CMSState(reads=cms.reads, writes=cms.writes)),
                        kind="ADVANCE_CMS_RECONFIGURATION")
    cms = evolve(cms, next_index=cms.next_index + 1)
    return Accepted(metadata=m.next(cms=cms), kind="ADVANCE_CMS_RECONFIGURATION")


def cancel_cms_reconfiguration(m: Metadata, t: Mapping[str, Any]) -> Result:
    if not m.cms.reconfiguring:
        return Rejected("CMS: no reconfiguration in progress")
    for n in sorted(m.cms.writes - m.cms.reads):
        if n not in m.directory:
            return Rejected(_npe(n, "CancelCMSReconfiguration"))
    cms = CMSState(reads=m.cms.reads, writes=m.cms.reads)
    return Accepted(metadata=m.next(cms=cms), kind="CANCEL_CMS_RECONFIGURATION")


def initialize_cms(m: Metadata, t: Mapping[str, Any]) -> Result:
    """The migration gates, in order, with Cassandra's messages (node ids stand for addresses)."""
    node = node_field(t)
    ignore = id_list(t, "ignore", default=[])
    if node in ignore:
        return Rejected(f"Can't ignore local host {node} when doing CMS migration")
    missing = sorted(set(ignore) - set(m.directory))
    if missing:
        return Rejected(f"Ignored host(s) [{', '.join(missing)}] don't exist in the cluster")
    rec = m.directory.get(node)
    if rec is None:
        return Rejected(f"INITIALIZE_CMS: {node} is not in the cluster")
    if rec.state is not NodeState.JOINED:
        return Rejected(f"Initial CMS node needs to be fully joined, not: {rec.state.value}")
    for n in sorted(m.directory):
        other = m.directory[n]
        if n in ignore or other.state is NodeState.LEFT:
            continue
        if not NodeVersion(release=other.version).is_upgraded:
            return Rejected(f"All nodes are not yet upgraded - {n} is running {other.version}")
    if m.cms_initialized:
        return Rejected("Can't upgrade from gossip since CMS is already initialized")
    if m.migration_initiator is not None and m.migration_initiator != node:
        return Rejected(f"Migration already initiated by {m.migration_initiator}")
    cms = CMSState(reads=frozenset({node}), writes=frozenset({node}))
    return Accepted(
        metadata=m.next(cms=cms, cms_initialized=True, migration_initiator=None),
        kind="INITIALIZE_CMS",
    )
