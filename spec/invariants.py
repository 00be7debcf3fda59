"""Invariants of cluster metadata, as functions from metadata to the violations found.

Each returns a tuple of one-line violation messages (empty when it holds), so tests, the
stateful machines and checkers can call them one by one and name the invariant that broke.
"""

from __future__ import annotations

from collections.abc import Callable

from spec.cms import CMS_LOCK_HOLDER, CMSStepKind
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.placement import ReplicaGroups
from spec.replication import NetworkTopologyStrategy, ReplicationParams, SimpleStrategy
from spec.sequences import OperationKind
from spec.tokens import ring_ranges

Invariant = Callable[[ClusterMetadata], tuple[str, ...]]


def ranges_tile_the_ring(m: ClusterMetadata) -> tuple[str, ...]:
    """Every token is owned: the ranges are the ring cut at every owned or pending token."""
    expected = ring_ranges(tuple(m.boundaries()))
    out = []
    for ks, p in m.placements.items():
        for name, groups in (("reads", p.reads), ("writes", p.writes)):
            if groups.ranges != expected:
                out.append(f"{ks} {name}: ranges {list(groups.ranges)} do not tile the ring at {sorted(m.boundaries())}")
    return tuple(out)


def reads_are_write_replicas(m: ClusterMetadata) -> tuple[str, ...]:
    """A read replica must already be a write replica."""
    out = []
    for ks, p in m.placements.items():
        for (r, reads), (w, writes) in zip(p.reads, p.writes, strict=False):
            if r != w:
                out.append(f"{ks}: read range {r} and write range {w} are not aligned")
            elif not reads <= writes:
                out.append(f"{ks} {r}: read replicas {sorted(reads - writes)} are not write replicas")
    return tuple(out)


def _dc_counts(m: ClusterMetadata, nodes: frozenset[NodeId]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in nodes:
        node = m.directory.get(n)
        if node is None:  # reported by sequences_name_registered_nodes
            continue
        counts[node.dc] = counts.get(node.dc, 0) + 1
    return counts


def _factors(params: ReplicationParams, dcs: set[str]) -> dict[str | None, int]:
    if isinstance(params, SimpleStrategy):
        return {None: params.replication_factor}
    return {dc: params.factor(dc) for dc in dcs | {d for d, _ in params.dc_factors}}


def reads_have_replication_factor(m: ClusterMetadata) -> tuple[str, ...]:
    """Each range has exactly RF read replicas per DC (capped by the DC's nodes); a range an
    operation has locked may sit anywhere between the counts before and after that operation."""
    owners = m.token_map.owners()
    joining = frozenset(s.node for s in m.in_progress.sequences() if s.kind in (OperationKind.JOIN, OperationKind.REPLACE))
    leaving = frozenset(s.node for s in m.in_progress.sequences()
                        if s.kind in (OperationKind.LEAVE, OperationKind.REMOVE))
    low_nodes = _dc_counts(m, owners - leaving)
    high_nodes = _dc_counts(m, owners | joining)
    owner_nodes = _dc_counts(m, owners)
    total_low, total_high = len(owners - leaving), len(owners | joining)
    out = []
    for ks, p in m.placements.items():
        params = m.schema.replication(ks)
        by_group: dict[frozenset[NodeId], dict[str, int]] = {}  # a few replica sets, many ranges
        for r, reads in p.reads:
            locked = m.locked_ranges.covers(ks, r)
            counts = by_group.get(reads)
            if counts is None:
                counts = by_group[reads] = _dc_counts(m, reads)
            for dc, rf in _factors(params, set(counts) | set(high_nodes)).items():
                if dc is None:
                    have, lo, hi = len(reads), min(rf, total_low), min(rf, total_high)
                    exact = min(rf, len(owners))
                else:
                    have = counts.get(dc, 0)
                    lo, hi = min(rf, low_nodes.get(dc, 0)), min(rf, high_nodes.get(dc, 0))
                    exact = min(rf, owner_nodes.get(dc, 0))
                where = f"{ks} {r}" + (f" in {dc}" if dc else "")
                if locked and not lo <= have <= hi:
                    out.append(f"{where}: {have} read replicas, expected {lo}..{hi} during an operation")
                if not locked and have != exact:
                    out.append(f"{where}: {have} read replicas, expected {exact}")
    return tuple(out)


def over_replication_only_in_flight(m: ClusterMetadata) -> tuple[str, ...]:
    """Write groups exceed read groups only in ranges an in-flight operation has locked."""
    out = []
    for ks, p in m.placements.items():
        for (r, reads), (_, writes) in zip(p.reads, p.writes, strict=False):
            if writes != reads and not m.locked_ranges.covers(ks, r):
                out.append(f"{ks} {r}: writes {sorted(writes)} differ from reads {sorted(reads)} outside any lock")
    return tuple(out)


def at_rest_matches_from_scratch(m: ClusterMetadata) -> tuple[str, ...]:
    """With nothing in flight, reads == writes == placements computed from the token map."""
    if m.in_progress:
        return ()
    scratch = m.placements_from_scratch()
    out = []
    for ks, p in m.placements.items():
        expected: ReplicaGroups = scratch.get(ks).reads
        if p.reads != expected:
            out.append(f"{ks}: reads at rest differ from placements computed from scratch")
        if p.writes != expected:
            out.append(f"{ks}: writes at rest differ from placements computed from scratch")
    if set(m.placements.keyspaces()) != set(m.schema.names()):
        out.append(f"placements for {sorted(m.placements.keyspaces())} but schema has {sorted(m.schema.names())}")
    return tuple(out)


def locks_belong_to_sequences(m: ClusterMetadata) -> tuple[str, ...]:
    holders = {h for h, _ in m.locked_ranges.locks}
    performers = {s.node for s in m.in_progress.sequences()}
    if m.cms.reconfiguration is not None:
        performers.add(NodeId(CMS_LOCK_HOLDER))
    if holders != performers:
        return (f"locks held by {sorted(holders)} but sequences of {sorted(performers)}",)
    return ()


def sequences_name_registered_nodes(m: ClusterMetadata) -> tuple[str, ...]:
    """Every node a sequence in flight performs or replaces is in the directory: its remaining
    steps change its state, which Cassandra's Directory cannot do for an unknown node."""
    out = []
    for seq in m.in_progress.sequences():
        for node in (seq.node, seq.replaced):
            if node is not None and node not in m.directory:
                out.append(f"the {seq.kind.value} sequence of {seq.node} names {node}, not in the directory")
    return tuple(out)


def cms_is_consistent(m: ClusterMetadata) -> tuple[str, ...]:
    """CMS read and write sets differ by at most one node, and members are cluster nodes."""
    cms = m.cms
    out = []
    if cms.initialized and not cms.reads:
        out.append("the CMS has no read members")
    if len(cms.reads ^ cms.writes) > 1:
        out.append(f"CMS reads {sorted(cms.reads)} and writes {sorted(cms.writes)} differ by more than one node")
    unknown = sorted(n for n in cms.reads if n not in m.directory)
    if unknown:
        out.append(f"CMS members {unknown} are not in the directory")
    return tuple(out)


def cms_additions_in_directory(m: ClusterMetadata) -> tuple[str, ...]:
    """Every node the CMS is adding is in the directory: a write member not yet a read member,
    and every addition the reconfiguration in progress has still to start. The next step
    (`AdvanceCMSReconfiguration.startAdd` for a pending addition, `finishAdd` for a write member)
    builds `new Replica(prev.directory.endpoint(id), ...)`, whose constructor is
    `Preconditions.checkNotNull(endpoint)`, so it fails for ever; `CancelCMSReconfiguration` looks
    up only the active transition's node (a write member), so a reconfiguration stopped at a
    pending addition can still be cancelled by an operator, one stopped at a write member cannot
    (finding leave-while-joining-cms: a CMS addition replaced, which `maybeReconfigureCMS` lets
    through, since it looks at the full members only)."""
    out = []
    gone = sorted(n for n in m.cms.writes - m.cms.reads if n not in m.directory)
    if gone:
        out.append(f"CMS members being added {gone} are not in the directory "
                   "(the reconfiguration can neither go on nor be cancelled)")
    r = m.cms.reconfiguration
    pending = () if r is None else sorted({s.node for s in r.remaining if s.kind is CMSStepKind.ADD_TO_WRITES})
    lost = [n for n in pending if n not in m.directory]
    if lost:
        out.append(f"CMS additions {lost} are not in the directory "
                   "(the reconfiguration cannot go on; only an operator's cancel ends it)")
    return tuple(out)


def cms_members_have_not_left(m: ClusterMetadata) -> tuple[str, ...]:
    """No full CMS member is LEFT: PrepareLeave refuses a full member (`isCMSMember`), and the
    operator paths reconfigure the CMS before a member leaves; a LEFT member has stopped, so the
    CMS silently works with one member fewer than its placement says."""
    gone = sorted(n for n in m.cms.reads if m.directory.state(n) is NodeState.LEFT)
    return (f"CMS members {gone} have left the ring",) if gone else ()


def nts_only_known_dcs(m: ClusterMetadata) -> tuple[str, ...]:
    """Replicas of an NTS keyspace lie only in DCs it replicates to."""
    out = []
    for ks, p in m.placements.items():
        params = m.schema.replication(ks)
        if isinstance(params, NetworkTopologyStrategy):
            for r, writes in p.writes:
                stray = sorted(n for n in writes
                               if (node := m.directory.get(n)) is not None and params.factor(node.dc) == 0)
                if stray:
                    out.append(f"{ks} {r}: replicas {stray} in DCs without replication")
    return tuple(out)


ALL: tuple[Invariant, ...] = (
    ranges_tile_the_ring,
    reads_are_write_replicas,
    reads_have_replication_factor,
    over_replication_only_in_flight,
    at_rest_matches_from_scratch,
    locks_belong_to_sequences,
    sequences_name_registered_nodes,
    cms_is_consistent,
    cms_additions_in_directory,
    cms_members_have_not_left,
    nts_only_known_dcs,
)


def violations(m: ClusterMetadata) -> tuple[tuple[str, str], ...]:
    """Every violation of every invariant, as (invariant's name, what is wrong)."""
    return tuple((inv.__name__, v) for inv in ALL for v in inv(m))


def check_invariants(m: ClusterMetadata) -> tuple[str, ...]:
    """Every violation of every invariant, each prefixed with the invariant's name."""
    return tuple(f"{name}: {v}" for name, v in violations(m))
