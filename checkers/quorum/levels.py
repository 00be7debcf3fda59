"""Consistency levels as quorum rules: which sets of replicas complete a read or a write.

A `QuorumRule` says: a quorum is a subset of `group` that holds at least `count` members of
each requirement's `among`. Every Cassandra consistency level is such a rule, counted per DC or
over the whole group, which is what lets the prover count nodes by class instead of naming them.

Counts follow Cassandra's `ConsistencyLevel.blockFor` / `blockForWrite` and the response
handlers (`WriteResponseHandler`, `DatacenterSyncWriteResponseHandler` for EACH_QUORUM):

- Reads go to the read group; writes to the write group. `pending` = write group − read group.
- ONE, TWO, THREE: 1, 2, 3 replicas of the group; writes add one per pending replica.
- QUORUM: total RF // 2 + 1 (SimpleStrategy: RF; NTS: the sum of the DC factors); writes add
  one per pending replica.
- ALL: every replica of the group (for a write: natural plus pending, the whole write group).
- LOCAL_ONE: 1 replica in the coordinator's DC; LOCAL_QUORUM: rf(local DC) // 2 + 1 in the
  coordinator's DC (SimpleStrategy: RF // 2 + 1, as Cassandra's `localQuorumFor` does). Writes
  add one per *local* pending replica only, and only local replicas count.
- EACH_QUORUM under NTS: rf(dc) // 2 + 1 in every DC with rf > 0 (writes: plus that DC's
  pending replicas). Under SimpleStrategy Cassandra uses the plain handler, so it is QUORUM.
- NODE_LOCAL (our choice; Cassandra does not define it for replica plans): one replica, the
  coordinator itself, so any single replica of the group in the coordinator's DC; writes add
  nothing for pending replicas (Cassandra's `blockForWrite` adds none for NODE_LOCAL).

Counts come from the keyspace's replication factor, not from the group's size: a group smaller
than the count has no quorum at all (the request is unavailable, which is safe).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attrs import frozen

from spec.consistency import ConsistencyLevel
from spec.replication import NetworkTopologyStrategy, ReplicationParams

CL = ConsistencyLevel

# A level whose quorum depends on where the coordinator is.
DC_DEPENDENT = frozenset({CL.LOCAL_ONE, CL.LOCAL_QUORUM, CL.NODE_LOCAL})


@frozen(kw_only=True)
class Requirement:
    """At least `count` members of `among` must be in the quorum."""

    among: frozenset[str]
    count: int


@frozen(kw_only=True, cache_hash=True)
class QuorumRule:
    """Quorums are the subsets of `group` meeting every requirement (each `among` ⊆ `group`)."""

    group: frozenset[str]
    requirements: tuple[Requirement, ...]

    def accepts(self, quorum: Iterable[str]) -> bool:
        q = frozenset(quorum)
        return q <= self.group and all(len(q & r.among) >= r.count for r in self.requirements)

    @property
    def satisfiable(self) -> bool:
        return all(len(r.among) >= r.count for r in self.requirements)


def parse_level(name: str) -> ConsistencyLevel:
    """A consistency level by name, case-insensitive; ValueError for an unknown one."""
    try:
        return ConsistencyLevel[name.strip().upper()]
    except KeyError:
        known = ", ".join(c.name for c in ConsistencyLevel)
        raise ValueError(f"unknown consistency level {name!r} (known: {known})") from None


def _in_dc(nodes: Iterable[str], dc: str, dc_of: Mapping[str, str]) -> frozenset[str]:
    return frozenset(n for n in nodes if dc_of[n] == dc)


def _quorum(rf: int) -> int:
    return rf // 2 + 1


def _local_rf(params: ReplicationParams, dc: str) -> int:
    if isinstance(params, NetworkTopologyStrategy):
        return params.factor(dc)
    return params.replication_factor


def _rule(
    cl: ConsistencyLevel,
    params: ReplicationParams,
    group: frozenset[str],
    pending: frozenset[str],
    dc_of: Mapping[str, str],
    coordinator_dc: str | None,
) -> QuorumRule:
    def whole(count: int) -> QuorumRule:
        return QuorumRule(group=group, requirements=(Requirement(among=group, count=count),))

    if cl in (CL.ONE, CL.TWO, CL.THREE):
        return whole({CL.ONE: 1, CL.TWO: 2, CL.THREE: 3}[cl] + len(pending))
    if cl is CL.QUORUM or (cl is CL.EACH_QUORUM and not isinstance(params, NetworkTopologyStrategy)):
        return whole(_quorum(params.total_rf) + len(pending))
    if cl is CL.ALL:
        # ConsistencyLevel.blockFor(ALL) is the replication factor (blockForWrite adds the
        # pending replicas), not the group's size: with fewer replicas than that, no quorum.
        return whole(params.total_rf + len(pending))
    if cl is CL.EACH_QUORUM:
        assert isinstance(params, NetworkTopologyStrategy)
        reqs = tuple(
            Requirement(among=_in_dc(group, dc, dc_of), count=_quorum(rf) + len(_in_dc(pending, dc, dc_of)))
            for dc, rf in params.dc_factors
            if rf > 0
        )
        return QuorumRule(group=group, requirements=reqs)
    if coordinator_dc is None:
        raise ValueError(f"{cl.name} needs the coordinator's datacenter")
    local = _in_dc(group, coordinator_dc, dc_of)
    if cl is CL.NODE_LOCAL:
        return QuorumRule(group=group, requirements=(Requirement(among=local, count=1),))
    base = 1 if cl is CL.LOCAL_ONE else _quorum(_local_rf(params, coordinator_dc))
    count = base + len(_in_dc(pending, coordinator_dc, dc_of))
    return QuorumRule(group=group, requirements=(Requirement(among=local, count=count),))


def read_rule(
    cl: ConsistencyLevel,
    params: ReplicationParams,
    reads: frozenset[str],
    dc_of: Mapping[str, str],
    coordinator_dc: str | None = None,
) -> QuorumRule:
    """The read quorums of a range whose read group is `reads`."""
    return _rule(cl, params, reads, frozenset(), dc_of, coordinator_dc)


def write_rule(
    cl: ConsistencyLevel,
    params: ReplicationParams,
    reads: frozenset[str],
    writes: frozenset[str],
    dc_of: Mapping[str, str],
    coordinator_dc: str | None = None,
) -> QuorumRule:
    """The write quorums of a range: natural replicas are `reads`, pending are `writes - reads`."""
    return _rule(cl, params, writes, writes - reads, dc_of, coordinator_dc)


def majority_rule(group: frozenset[str]) -> QuorumRule:
    """A simple majority of `group` (the CMS's Paxos quorums)."""
    return QuorumRule(group=group, requirements=(Requirement(among=group, count=_quorum(len(group))),))


def barrier_rule(
    cl: ConsistencyLevel, affected: frozenset[str], dc_of: Mapping[str, str], coordinator_dc: str | None
) -> QuorumRule:
    """The acknowledgements a progress barrier at `cl` waits for, from the `affected` replicas.

    Cassandra's `ProgressBarrier` counts over the affected replicas themselves, not over a
    replication factor: QUORUM is a majority of them, EACH_QUORUM a majority of them in each DC
    that has some, LOCAL_QUORUM a majority of those in the coordinator's DC, ALL all of them.
    NODE_LOCAL waits for no replica at all (only the node running the sequence).
    """
    def whole(count: int) -> QuorumRule:
        return QuorumRule(group=affected, requirements=(Requirement(among=affected, count=count),))

    if cl in (CL.ONE, CL.TWO, CL.THREE):
        return whole(min({CL.ONE: 1, CL.TWO: 2, CL.THREE: 3}[cl], len(affected)))
    if cl is CL.QUORUM:
        return whole(_quorum(len(affected)))
    if cl is CL.ALL:
        return whole(len(affected))
    if cl is CL.NODE_LOCAL:
        return QuorumRule(group=affected, requirements=())
    if cl is CL.EACH_QUORUM:
        dcs = sorted({dc_of[n] for n in affected})
        reqs = []
        for dc in dcs:
            members = _in_dc(affected, dc, dc_of)
            reqs.append(Requirement(among=members, count=_quorum(len(members))))
        return QuorumRule(group=affected, requirements=tuple(reqs))
    if coordinator_dc is None:
        raise ValueError(f"{cl.name} needs the coordinator's datacenter")
    local = _in_dc(affected, coordinator_dc, dc_of)
    count = min(1, len(local)) if cl is CL.LOCAL_ONE else _quorum(len(local)) if local else 0
    return QuorumRule(group=affected, requirements=(Requirement(among=local, count=count),))
