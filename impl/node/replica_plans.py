"""Which replicas a coordinator contacts, and how many answers it needs (Cassandra's
`locator/ReplicaPlans.forWrite / forRead / forReadRepair`, `ReplicaLayout`, and
`assureSufficientLiveReplicas*`; trunk 6bbe85ef), from the coordinator's own metadata and its
failure detector.

- **Writes.** Every write replica of the token, natural and pending (`liveAndDown.all()`); the
  ones the failure detector sees down are not sent the mutation but hinted. The write is
  unavailable (nothing sent) unless the live ones can meet `blockForWrite` (EACH_QUORUM: each
  DC's live replicas its quorum, pending not counted; ANY: never unavailable).
- **Reads.** The live read replicas sorted by proximity (`sortedByProximity`: this node first,
  then its DC, then the others; within a tier in a rotated id order, one decision per read, for
  the dynamic snitch's shifting scores), LOCAL_* levels keeping only this DC's; the contacts are
  the first `blockFor` of them (EACH_QUORUM: the first quorum of each DC), or all of them with
  the setting `read_contacts: "all"`. Unavailable unless the candidates can meet `blockFor`.
  After `speculative_retry` without enough answers one more candidate is asked (not at
  EACH_QUORUM, as Cassandra's CASSANDRA-11980; not when every candidate is a contact).
- **Read repair.** The repair plan (`forReadRepair` with `writeReadRepair`): the read contacts
  that are live write replicas, plus further live write replicas, in proximity order, until the
  plan could meet the write level (`blockForWrite`, pending replicas included).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from impl import bugs
from impl.data.consistency import LOCAL_LEVELS, SIMPLE, Requirement, block_for

if TYPE_CHECKING:
    from impl.node.host import Host


@frozen(kw_only=True)
class Plan:
    epoch: int
    replicas: tuple[str, ...]
    """Writes: every write replica; reads: every live candidate, contacts first."""
    requirement: Requirement
    contacts: tuple[str, ...]
    """Who is sent the request now (writes: the live replicas; reads: the first contacts)."""
    down: tuple[str, ...] = ()
    """Writes: the replicas seen down (hinted, not sent)."""
    pending: tuple[str, ...] = ()
    available: bool = True


def dc_of(meta: Any, node: str) -> str:
    return str(meta.node_location(node)[0]) if node in meta.directory else ""


def _requirement(node: Host, meta: Any, keyspace: str, cl: str, pending: Sequence[str]) -> Requirement:
    ks = meta.keyspaces[keyspace]
    if cl == "ANY":
        return Requirement(total=1)  # blockFor(ANY) = 1, and a stored hint counts
    return block_for(cl, ks.replication.strategy, ks.replication.factors, dc_of(meta, node.id),
                     [dc_of(meta, r) for r in pending], mutants=node.settings.mutants)


def write_plan(node: Host, keyspace: str, token: int, cl: str) -> Plan | None:
    meta = node.log.metadata
    if keyspace not in meta.keyspaces:
        return None
    replicas = meta.write_replicas(keyspace, token)
    pending = tuple(meta.pending_replicas(keyspace, token))
    if bugs.on(node.settings, "mid-drops-old-write-replicas") and any(
            s.next_step == "FINISH" for s in meta.sequences.values()):
        replicas = meta.read_replicas(keyspace, token)
        pending = ()
    if bugs.on(node.settings, "pending-not-in-blockfor"):
        pending = ()
    need = _requirement(node, meta, keyspace, cl, pending)
    fd = node.failure_detector
    live = tuple(r for r in replicas if fd.is_alive(r))
    down = tuple(r for r in replicas if not fd.is_alive(r))
    return Plan(epoch=node.log.applied, replicas=tuple(replicas), requirement=need, contacts=live,
                down=down, pending=pending,
                available=_write_available(node, meta, keyspace, cl, need, live))


def _write_available(node: Host, meta: Any, keyspace: str, cl: str, need: Requirement,
                     live: Sequence[str]) -> bool:
    """assureSufficientLiveReplicasForWrite: ANY always; EACH_QUORUM each DC's quorum of live
    replicas, pending ones not counted; every other level its blockForWrite over the live
    replicas (LOCAL_*: the local ones)."""
    if cl == "ANY":
        return True
    if cl == "EACH_QUORUM" and meta.keyspaces[keyspace].replication.strategy != SIMPLE:
        need = _requirement(node, meta, keyspace, cl, ())
    return need.satisfied(live, lambda r: dc_of(meta, r))


def read_plan(node: Host, keyspace: str, token: int, cl: str, rotation: Callable[[int], int]) -> Plan | None:
    meta = node.log.metadata
    if keyspace not in meta.keyspaces:
        return None
    need = _requirement(node, meta, keyspace, cl, ())
    fd = node.failure_detector
    candidates = sort_by_proximity(meta, node.id, [r for r in meta.read_replicas(keyspace, token)
                                                   if fd.is_alive(r)], rotation)
    me = dc_of(meta, node.id)
    ks = meta.keyspaces[keyspace]
    nts = ks.replication.strategy != SIMPLE
    if cl in LOCAL_LEVELS:  # candidatesForRead: InOurDc, whatever the strategy
        candidates = [r for r in candidates if dc_of(meta, r) == me]
    available = need.satisfied(candidates, lambda r: dc_of(meta, r))
    if node.settings.read_contacts == "all":
        contacts = list(candidates)
    elif cl == "EACH_QUORUM" and nts:
        left = dict(need.per_dc)
        contacts = []
        for r in candidates:
            d = dc_of(meta, r)
            if left.get(d, 0) > 0:
                left[d] -= 1
                contacts.append(r)
    else:
        contacts = candidates[:need.total]
    rest = [r for r in candidates if r not in contacts]
    return Plan(epoch=node.log.applied, replicas=tuple(contacts + rest), requirement=need,
                contacts=tuple(contacts), available=available)


def sort_by_proximity(meta: Any, me: str, replicas: Sequence[str],
                      rotation: Callable[[int], int]) -> list[str]:
    """This node, then its DC, then the others; each tier in id order rotated by one draw."""
    ordered = sorted(replicas)
    if not ordered:
        return []
    shift = rotation(len(ordered))
    my_dc = dc_of(meta, me)

    def key(r: str) -> tuple[int, int]:
        tier = 0 if r == me else 1 if dc_of(meta, r) == my_dc else 2
        return tier, (ordered.index(r) - shift) % len(ordered)

    return sorted(ordered, key=key)


def repair_plan(node: Host, keyspace: str, token: int, cl: str, contacts: Sequence[str],
                rotation: Callable[[int], int]) -> tuple[tuple[str, ...], Requirement, int]:
    """forReadRepair(writeReadRepair): (the plan's replicas, blockForWrite, the plan's epoch)."""
    meta = node.log.metadata
    writes = meta.write_replicas(keyspace, token)
    pending = meta.pending_replicas(keyspace, token)
    need = _requirement(node, meta, keyspace, cl, pending)
    fd = node.failure_detector
    live = [r for r in writes if fd.is_alive(r)]
    plan = [r for r in contacts if r in live]
    if bugs.on(node.settings, "read-repair-responders-only"):
        return tuple(plan), Requirement(total=len(plan)), node.log.applied
    for r in sort_by_proximity(meta, node.id, [r for r in live if r not in plan], rotation):
        if need.satisfied(plan, lambda x: dc_of(meta, x)):
            break
        plan.append(r)
    return tuple(plan), need, node.log.applied
