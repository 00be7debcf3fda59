"""The coordinator of a client read or write (Cassandra's StorageProxy with ReplicaPlans).

Plans come from the coordinator's own metadata (`ReplicaPlans.forWrite` / `forRead`):
- a write goes to every write replica of the token and needs `blockForWrite` responses: the
  level's count over the natural replicas plus one per pending replica (impl/data/consistency);
- a read goes to the token's read replicas and needs `blockFor` data responses; the newest
  cell (timestamp, then value) wins and is written back, before the read answers, to the
  write replicas that lack it until the write level's count hold it (blocking read repair
  over the repair plan: `ReplicaPlans.forReadRepair`, `BlockingPartitionRepair`).
Every response carries the replica's epoch. An error (`InvalidRouting`, `CoordinatorBehind`)
does not count. Catching up follows `ResponseVerbHandler.maybeFetchLogs`: a response showing a
newer epoch starts an asynchronous log fetch (the node's `deliver` does that for every
message), except a `CoordinatorBehind`/`InvalidRouting` refusal, which reaches the request only
after a blocking fetch (`fetchLogFromPeerOrCMS`): here it is parked until the log reaches its
epoch. When the level is reached, the plan is re-checked against the coordinator's metadata as
it is at that moment, caught up or not (`ReplicaPlan.stillAppliesTo(ClusterMetadata.current())`
in `ReadCallback.awaitResults` and `AbstractWriteResponseHandler.get`; for a read's repair, the
repair plan in `BlockingReadRepair.awaitWrites`); if the responses no longer satisfy the newer
plan, the request fails. A write that does
not succeed may still have reached some replicas: its outcome is unknown (`info`); a failed
read changed nothing visible (`fail`). Timestamps are the coordinator's clock plus its skew.
In gossip mode there are no epoch checks and no re-validation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.data.consistency import Requirement, block_for
from impl.messages import (
    COORDINATOR_BEHIND,
    INVALID_ROUTING,
    Mutation,
    MutationAck,
    Read,
    ReadResponse,
)

if TYPE_CHECKING:
    from impl.node.host import Host

Done = Callable[[str, Any], None]
"""`done(outcome, value)`: outcome "ok" / "fail" / "info"; value read (reads) or the reason."""


class _Request:
    __slots__ = ("id", "write", "keyspace", "key", "token", "cl", "done", "replicas",
                 "requirement", "plan_epoch", "acks", "errors", "cells", "timer",
                 "value", "timestamp", "repairing", "repaired", "finished", "repair_replicas",
                 "repair_requirement", "repair_epoch", "repair_acks")

    def __init__(self, rid: int, write: bool, keyspace: str, key: str, token: int, cl: str,
                 done: Done) -> None:
        self.id = rid
        self.write = write
        self.keyspace = keyspace
        self.key = key
        self.token = token
        self.cl = cl
        self.done = done
        self.replicas: tuple[str, ...] = ()
        self.requirement = Requirement()
        self.plan_epoch = 0
        self.acks: set[str] = set()
        self.errors: dict[str, str] = {}
        self.cells: dict[str, tuple[int, int | None]] = {}
        self.timer: object = None
        self.value: int | None = None
        self.timestamp = 0
        self.repairing: dict[str, int] = {}  # stale replica -> repair request id
        self.repaired: set[str] = set()
        self.repair_replicas: tuple[str, ...] = ()
        self.repair_requirement = Requirement()
        self.repair_epoch = -1  # -1: no blocking repair (every replica the plan needs agreed)
        self.repair_acks: set[str] = set()  # the repair plan's `contacted`
        self.finished = False


class Coordinator:
    def __init__(self, node: Host, skew_ns: int, next_id: Callable[[], int]) -> None:
        self._node = node
        self._skew = skew_ns
        self._next_id = next_id
        self._requests: dict[int, _Request] = {}
        self._repairs: dict[int, int] = {}  # repair request id -> read request id
        # refusals from replicas ahead of this node, held until the log reaches their epoch
        self._parked: list[MutationAck | ReadResponse] = []

    # --- plans ---

    def _plan(self, req: _Request) -> bool:
        node = self._node
        meta = node.log.metadata
        if req.keyspace not in meta.keyspaces:
            return False
        ks = meta.keyspaces[req.keyspace]
        dc = meta.node_location(node.id)[0] if node.id in meta.directory else ""
        if req.write:
            req.replicas = meta.write_replicas(req.keyspace, req.token)
            pending = [meta.node_location(r)[0] for r in meta.pending_replicas(req.keyspace, req.token)]
            if bugs.on(node.settings, "mid-drops-old-write-replicas") and any(
                    s.next_step == "FINISH" for s in meta.sequences.values()):
                req.replicas = meta.read_replicas(req.keyspace, req.token)
                pending = []
            if bugs.on(node.settings, "pending-not-in-blockfor"):
                pending = []
        else:
            req.replicas = meta.read_replicas(req.keyspace, req.token)
            pending = []
        req.requirement = block_for(req.cl, ks.replication.strategy, ks.replication.factors, dc, pending)
        req.plan_epoch = node.log.applied
        return True

    def _dc_of(self, replica: str) -> str:
        meta = self._node.log.metadata
        return meta.node_location(replica)[0] if replica in meta.directory else ""

    # --- client entry points ---

    def write(self, keyspace: str, key: str, token: int, value: int, cl: str, done: Done) -> None:
        node = self._node
        req = _Request(self._next_id(), True, keyspace, key, token, cl, done)
        if not self._plan(req):
            done("fail", f"unknown keyspace {keyspace}")
            return
        req.value = value
        req.timestamp = node.world.queue.clock.now + self._skew
        self._requests[req.id] = req
        req.timer = node.timer(node.settings.write_timeout_ns, self._timeout, req.id)
        msg = Mutation(sender=node.id, epoch=node.log.applied, request_id=req.id, keyspace=keyspace,
                       key=key, token=token, timestamp=req.timestamp, value=value)
        for r in req.replicas:
            node.send(r, msg)

    def read(self, keyspace: str, key: str, token: int, cl: str, done: Done) -> None:
        node = self._node
        req = _Request(self._next_id(), False, keyspace, key, token, cl, done)
        if not self._plan(req):
            done("fail", f"unknown keyspace {keyspace}")
            return
        self._requests[req.id] = req
        req.timer = node.timer(node.settings.read_timeout_ns, self._timeout, req.id)
        msg = Read(sender=node.id, epoch=node.log.applied, request_id=req.id, keyspace=keyspace,
                   key=key, token=token)
        for r in req.replicas:
            node.send(r, msg)

    # --- responses ---

    def on_mutation_ack(self, msg: MutationAck) -> None:
        rid = self._repairs.get(msg.request_id)
        if rid is not None:
            req = self._requests.get(rid)
            if req is not None and not msg.error:
                req.repaired.add(msg.sender)
                req.repair_acks.add(msg.sender)
                self._progress(req)
            return
        req = self._requests.get(msg.request_id)
        if req is None or self._park(msg):
            return
        if msg.error:
            req.errors[msg.sender] = msg.error
        else:
            req.acks.add(msg.sender)
        self._progress(req)

    def on_read_response(self, msg: ReadResponse) -> None:
        req = self._requests.get(msg.request_id)
        if req is None or req.write or self._park(msg):
            return
        if msg.error:
            req.errors[msg.sender] = msg.error
        elif req.repairing == {}:
            # why only before repair starts: the set of responses the read resolves is fixed
            req.cells[msg.sender] = (msg.timestamp, msg.value)
        self._progress(req)

    def _park(self, msg: MutationAck | ReadResponse) -> bool:
        """A refusal from a replica ahead of this node waits for the blocking catch-up
        (`ResponseVerbHandler.maybeFetchLogs`); the fetch itself was started on delivery."""
        if msg.error in (COORDINATOR_BEHIND, INVALID_ROUTING) \
                and msg.epoch > self._node.log.applied:
            self._parked.append(msg)
            return True
        return False

    def on_log_advanced(self) -> None:
        if not self._parked:
            return
        applied = self._node.log.applied
        ready = [m for m in self._parked if m.epoch <= applied]
        if not ready:
            return
        # why: a refusal whose request ended meanwhile is dropped here, not kept for ever
        self._parked = [m for m in self._parked if m.epoch > applied
                        and m.request_id in self._requests]
        for m in ready:
            if isinstance(m, MutationAck):
                self.on_mutation_ack(m)
            else:
                self.on_read_response(m)

    # --- deciding ---

    def _counted(self, req: _Request, responders: set[str]) -> bool:
        return req.requirement.satisfied([r for r in req.replicas if r in responders], self._dc_of)

    def _progress(self, req: _Request) -> None:
        if req.finished:
            return
        if req.write:
            if not self._counted(req, req.acks):
                if len(req.acks) + len(req.errors) >= len(req.replicas) and req.errors:
                    self._finish(req, "info", "errors: " + _errors(req))
                return
            if self._revalidate(req, req.acks):
                self._finish(req, "ok", None)
            return
        # a read: enough data responses, then repair before answering
        responders = set(req.cells)
        if not req.repairing:
            if not self._counted(req, responders):
                if len(req.cells) + len(req.errors) >= len(req.replicas) and req.errors:
                    self._finish(req, "fail", "errors: " + _errors(req))
                return
            if not self._revalidate(req, responders):  # ReadCallback.awaitResults
                return
            ts, value = max(req.cells.values(), key=lambda c: (c[0], -1 if c[1] is None else c[1]))
            req.value = value
            req.timestamp = ts
            self._start_repair(req, ts, value)
        if not req.repair_requirement.satisfied(
                [r for r in req.repair_replicas if r in req.repaired], self._dc_of):
            return
        if self._revalidate_repair(req):  # BlockingReadRepair.awaitWrites
            self._finish(req, "ok", req.value)

    def _start_repair(self, req: _Request, ts: int, value: int | None) -> None:
        """Blocking read repair over the repair plan (Cassandra's `ReplicaPlans.forReadRepair`
        and BlockingPartitionRepair): the write replicas of the token, pending ones included;
        stale responders and write replicas that were not read (a pending replica, say) get
        the resolved cell, and the read answers once the write level's count of them
        (`blockForWrite`) hold it — so the value is on a write quorum, which the read quorum
        of any later epoch intersects."""
        node = self._node
        up_to_date = {r for r, c in req.cells.items() if c == (ts, value)}
        if value is None or bugs.on(node.settings, "read-repair-skipped"):
            req.repairing = {"-": -1}  # nothing was ever written: nothing to repair
            req.repair_requirement = Requirement()
            return
        meta = node.log.metadata
        ks = meta.keyspaces[req.keyspace]
        writes = meta.write_replicas(req.keyspace, req.token)
        pending = [self._dc_of(r) for r in meta.pending_replicas(req.keyspace, req.token)]
        req.repair_replicas = writes
        req.repair_requirement = block_for(req.cl, ks.replication.strategy, ks.replication.factors,
                                           self._dc_of(node.id), pending)
        req.repaired = set(up_to_date)
        req.repairing = {"-": -1}
        if not req.repair_requirement.satisfied([r for r in writes if r in up_to_date], self._dc_of):
            req.repair_epoch = node.log.applied  # the read blocks on this repair plan
        for r in sorted(set(writes) - up_to_date):
            rid = self._next_id()
            req.repairing[r] = rid
            self._repairs[rid] = req.id
            node.send(r, Mutation(sender=node.id, epoch=node.log.applied, request_id=rid,
                                  keyspace=req.keyspace, key=req.key, token=req.token,
                                  timestamp=ts, value=value, repair=True))

    def _revalidate(self, req: _Request, responders: set[str]) -> bool:
        """True when the request may answer now, else it fails it (ReplicaPlan.stillAppliesTo
        against `ClusterMetadata.current()`): if this node's metadata moved past the plan's
        epoch, the same responses must satisfy the plan of the metadata it holds now. A newer
        epoch a response showed but this node has not fetched yet is not waited for."""
        node = self._node
        if node.settings.mode == "gossip" or node.log.applied <= req.plan_epoch \
                or bugs.on(node.settings, "coordinator-skips-revalidation"):
            return True
        old, epoch = req.replicas, req.plan_epoch
        if not self._plan(req):
            self._finish(req, "info" if req.write else "fail", "keyspace gone")
            return False
        if self._counted(req, responders):
            return True
        node.counters["coordinator_revalidation_failures"] += 1
        self._finish(req, "info" if req.write else "fail",
                     f"plan changed at e{epoch}: {','.join(old)} -> {','.join(req.replicas)}")
        return False

    def _revalidate_repair(self, req: _Request) -> bool:
        """The blocking read repair's plan re-checked the same way (BlockingReadRepair
        .awaitWrites: `repairPlan.stillAppliesTo`), counting the replicas that acknowledged a
        repair (the repair plan's `contacted`)."""
        node = self._node
        if node.settings.mode == "gossip" or req.repair_epoch < 0 \
                or node.log.applied <= req.repair_epoch \
                or bugs.on(node.settings, "coordinator-skips-revalidation"):
            return True
        meta = node.log.metadata
        if req.keyspace not in meta.keyspaces:
            self._finish(req, "fail", "keyspace gone")
            return False
        ks = meta.keyspaces[req.keyspace]
        writes = meta.write_replicas(req.keyspace, req.token)
        pending = meta.pending_replicas(req.keyspace, req.token)
        if writes == req.repair_replicas:
            return True
        need = block_for(req.cl, ks.replication.strategy, ks.replication.factors,
                         self._dc_of(node.id), [self._dc_of(r) for r in pending])
        if need.satisfied([r for r in writes if r in req.repair_acks], self._dc_of):
            return True
        node.counters["coordinator_revalidation_failures"] += 1
        self._finish(req, "fail", f"repair plan changed at e{req.repair_epoch}: "
                     f"{','.join(req.repair_replicas)} -> {','.join(writes)}")
        return False

    def _timeout(self, rid: int) -> None:
        req = self._requests.get(rid)
        if req is None or req.finished:
            return
        self._node.counters["write_timeouts" if req.write else "read_timeouts"] += 1
        self._finish(req, "info" if req.write else "fail", "timeout")

    def _finish(self, req: _Request, outcome: str, value: Any) -> None:
        req.finished = True
        self._node.cancel(req.timer)
        self._requests.pop(req.id, None)
        for rid in req.repairing.values():
            self._repairs.pop(rid, None)
        req.done(outcome, value)

    def crash(self) -> None:
        """In-flight requests end with the node: their outcome is unknown to the client."""
        self._parked = []
        for req in list(self._requests.values()):
            self._finish(req, "info", "coordinator crashed")

    @property
    def busy(self) -> bool:
        return bool(self._requests)


def _errors(req: _Request) -> str:
    return ",".join(f"{r}:{e}" for r, e in sorted(req.errors.items()))
