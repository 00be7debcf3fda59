"""Adapter: the spec's `ClusterMetadata` states (an `OperationRun`) to the prover's `History`.

Each state becomes an `EpochPlacements`: for every keyspace, its replication parameters from the
schema and its read and write groups cut at the union of both directions' range boundaries (the
spec keeps them aligned; this does not rely on it). Datacenters are gathered from every state's
directory, because a node that has left may no longer be in the last one.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from attrs import evolve

from checkers.quorum.model import (
    EpochPlacements,
    History,
    KeyspacePlacement,
    LockedBarrier,
    RangeGroups,
    StepBarrier,
)
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId
from spec.placement import DataPlacement, ReplicaGroups
from spec.sequences import OperationKind
from spec.tokens import Range, ring_ranges
from spec.transformations.base import Transformation


def _lookup(groups: ReplicaGroups, token: int) -> frozenset[str]:
    rights = [r.right for r, _ in groups.entries]
    i = bisect_left(rights, token)
    return frozenset(groups.entries[i if i < len(rights) else 0][1])


def keyspace_placement(name: str, m: ClusterMetadata, placement: DataPlacement) -> KeyspacePlacement:
    reads, writes = placement.reads, placement.writes
    params = m.schema.replication(name)
    if reads.ranges == writes.ranges:
        ranges = tuple(RangeGroups(range=r, reads=frozenset(rd), writes=frozenset(wr))
                       for (r, rd), (_, wr) in zip(reads.entries, writes.entries, strict=True))
        return KeyspacePlacement(keyspace=name, replication=params, ranges=ranges)
    cuts = {r.right for r in reads.ranges} | {r.right for r in writes.ranges}
    ranges = tuple(RangeGroups(range=p, reads=_lookup(reads, p.right), writes=_lookup(writes, p.right))
                   for p in ring_ranges(tuple(cuts)))
    return KeyspacePlacement(keyspace=name, replication=params, ranges=ranges)


def epoch_placements(m: ClusterMetadata) -> EpochPlacements:
    keyspaces = tuple(keyspace_placement(name, m, p) for name, p in m.placements.items() if p.reads.entries)
    return EpochPlacements(epoch=m.epoch, keyspaces=keyspaces,
                           cms_reads=frozenset(m.cms.reads), cms_writes=frozenset(m.cms.writes))


def history_from_states(states: Iterable[ClusterMetadata]) -> History:
    """A `History` of the given metadata states (in epoch order)."""
    states = tuple(states)
    dcs: dict[str, str] = {}
    for m in states:
        for node in m.directory:
            dcs.setdefault(node.id, node.location.dc)
    return History.of((epoch_placements(m) for m in states), dcs)


def step_barriers(states: Sequence[ClusterMetadata], transformations: Sequence[Transformation | None], *,
                  waits_for_replaced: bool = False, two_epoch_cancel: bool = False) -> tuple[StepBarrier, ...]:
    """The progress barrier before each sequence step of a run, as Cassandra's ProgressBarrier
    builds it: for every range the sequence locked, the replicas of the current read and write
    groups of the ranges that contain it (DataPlacement.matchRange: a locked range that no
    current range contains, such as a range PREPARE has split, yields none), minus the node
    being replaced or removed (BootstrapAndReplace, removenode's UnbootstrapAndLeave). START_JOIN
    follows ProgressBarrier.immediate; a cancel, UNSAFE_JOIN and ASSASSINATE have no barrier.

    `waits_for_replaced` is the fix `barrier-waits-for-replaced`: the replaced or removed node
    counts like any other replica. `two_epoch_cancel` is the fix `two-epoch-cancel`: the second
    CANCEL_SEQUENCE of a split cancel (the same transformation committed twice in a row,
    spec.operations) waits for a barrier on the first, as a forward step would.
    """
    out: list[StepBarrier] = []
    for i in range(1, len(states)):
        t = transformations[i] if i < len(transformations) else None
        if t is None:
            continue
        second_cancel = (two_epoch_cancel and t.kind == "CANCEL_SEQUENCE" and i >= 2
                         and transformations[i - 1] is t)
        if not second_cancel and (t.kind == "START_JOIN" or not t.kind.startswith(("START_", "MID_", "FINISH_"))):
            continue
        ranges = locked_barriers(states[i - 1], getattr(t, "node"),  # noqa: B009  # every step names its node
                                 waits_for_replaced=waits_for_replaced)
        if ranges is not None:
            out.append(StepBarrier(epoch=states[i].epoch, ranges=ranges))
    return tuple(out)


def locked_barriers(prev: ClusterMetadata, node: NodeId, *,
                    waits_for_replaced: bool = False) -> tuple[LockedBarrier, ...] | None:
    """The barrier of `node`'s sequence in `prev` (None: no sequence): per locked range, the
    replicas of the current read and write groups of the ranges containing it, minus the
    replaced or removed node (see `step_barriers`)."""
    seq = prev.in_progress.get(node)
    if seq is None:
        return None
    excluded: frozenset[str] = frozenset()
    if not waits_for_replaced:
        if seq.kind is OperationKind.REPLACE and seq.replaced is not None:
            excluded = frozenset({seq.replaced})
        elif seq.kind is OperationKind.REMOVE:
            excluded = frozenset({seq.node})
    ranges: list[LockedBarrier] = []
    for ks, locked in seq.affected.by_keyspace:
        if ks not in prev.placements.keyspaces():
            continue
        placement = prev.placements.get(ks)
        directions = [(groups, [r.right for r, _ in groups.entries]) for groups in (placement.reads, placement.writes)]
        for lock in locked:
            members: set[str] = set()
            for groups, rights in directions:
                members |= _containing(groups, rights, lock)
            ranges.append(LockedBarrier(keyspace=ks, range=lock, participants=frozenset(members) - excluded))
    return tuple(ranges)


def _containing(groups: ReplicaGroups, rights: list[int], lock: Range) -> frozenset[str]:
    """The replicas of the range of `groups` that contains `lock` (none if no range does).

    why a bisection: the ranges tile the ring, so only the range holding the lock's right token
    can contain it (a scan of every range for every locked range made a 256-vnode plan take
    half a minute); tests/checkers/quorum/test_barrier_lookup.py compares it with the scan."""
    if not groups.entries:
        return frozenset()
    i = bisect_left(rights, lock.right)
    r, replicas = groups.entries[i if i < len(rights) else 0]
    return frozenset(replicas) if r.contains(lock) else frozenset()


def history_from_run(states: Sequence[ClusterMetadata], transformations: Sequence[Transformation | None], *,
                     waits_for_replaced: bool = False, two_epoch_cancel: bool = False) -> History:
    """`history_from_states`, with the barrier of every step (for the prover's barrier mode)."""
    plain = history_from_states(states)
    return evolve(plain, barriers=step_barriers(states, transformations, waits_for_replaced=waits_for_replaced,
                                                two_epoch_cancel=two_epoch_cancel))
