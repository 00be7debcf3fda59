"""The coordinator of a client read or write (Cassandra's StorageProxy with ReplicaPlans).

Plans come from the coordinator's own metadata (`ReplicaPlans.forWrite` / `forRead`):
- a write goes to every write replica of the token and needs `blockForWrite` responses: the
  level's count over the natural replicas plus one per pending replica (impl/data/consistency);
- a read goes to the token's read replicas and needs `blockFor` data responses; the newest
  cell (timestamp, then value) wins and is written back, before the read answers, to the
  write replicas that lack it until the write level's count hold it (blocking read repair
  over the repair plan: `ReplicaPlans.forReadRepair`, `BlockingPartitionRepair`).
Every response carries the replica's epoch. An error (`InvalidRouting`, `CoordinatorBehind`)
does not count. When a response shows a newer epoch, the coordinator catches up to it and,
before answering, checks that the responses it has still satisfy the level under the newer
metadata's plan (`ReplicaPlan.stillAppliesTo`); if not, the request fails. A write that does
not succeed may still have reached some replicas: its outcome is unknown (`info`); a failed
read changed nothing visible (`fail`). Timestamps are the coordinator's clock plus its skew.
In gossip mode there are no epoch checks and no re-validation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.data.consistency import Requirement, block_for
from impl.messages import Mutation, MutationAck, Read, ReadResponse

if TYPE_CHECKING:
    from impl.node.host import Host

Done = Callable[[str, Any], None]
"""`done(outcome, value)`: outcome "ok" / "fail" / "info"; value read (reads) or the reason."""


class _Request:
    __slots__ = ("id", "write", "keyspace", "key", "token", "cl", "done", "replicas",
                 "requirement", "plan_epoch", "acks", "errors", "cells", "max_epoch", "timer",
                 "value", "timestamp", "repairing", "repaired", "finished", "repair_replicas",
                 "repair_requirement")

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
        self.max_epoch = 0
        self.timer: object = None
        self.value: int | None = None
        self.timestamp = 0
        self.repairing: dict[str, int] = {}  # stale replica -> repair request id
        self.repaired: set[str] = set()
        self.repair_replicas: tuple[str, ...] = ()
        self.repair_requirement = Requirement()
        self.finished = False


class Coordinator:
    def __init__(self, node: Host, skew_ns: int, next_id: Callable[[], int]) -> None:
        self._node = node
        self._skew = skew_ns
        self._next_id = next_id
        self._requests: dict[int, _Request] = {}
        self._repairs: dict[int, int] = {}  # repair request id -> read request id

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
                self._note_epoch(req, msg.epoch)
                self._progress(req)
            return
        req = self._requests.get(msg.request_id)
        if req is None:
            return
        self._note_epoch(req, msg.epoch)
        if msg.error:
            req.errors[msg.sender] = msg.error
        else:
            req.acks.add(msg.sender)
        self._progress(req)

    def on_read_response(self, msg: ReadResponse) -> None:
        req = self._requests.get(msg.request_id)
        if req is None or req.write:
            return
        self._note_epoch(req, msg.epoch)
        if msg.error:
            req.errors[msg.sender] = msg.error
        elif req.repairing == {}:
            # why only before repair starts: the set of responses the read resolves is fixed
            req.cells[msg.sender] = (msg.timestamp, msg.value)
        self._progress(req)

    def _note_epoch(self, req: _Request, epoch: int) -> None:
        if epoch > req.max_epoch:
            req.max_epoch = epoch

    def on_log_advanced(self) -> None:
        for req in list(self._requests.values()):
            if req.max_epoch > req.plan_epoch:
                self._progress(req)

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
            ts, value = max(req.cells.values(), key=lambda c: (c[0], -1 if c[1] is None else c[1]))
            req.value = value
            req.timestamp = ts
            self._start_repair(req, ts, value)
        if not req.repair_requirement.satisfied(
                [r for r in req.repair_replicas if r in req.repaired], self._dc_of):
            return
        if self._revalidate(req, responders):
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
        for r in sorted(set(writes) - up_to_date):
            rid = self._next_id()
            req.repairing[r] = rid
            self._repairs[rid] = req.id
            node.send(r, Mutation(sender=node.id, epoch=node.log.applied, request_id=rid,
                                  keyspace=req.keyspace, key=req.key, token=req.token,
                                  timestamp=ts, value=value, repair=True))

    def _revalidate(self, req: _Request, responders: set[str]) -> bool:
        """True when the request may answer now; it may fail it instead (ReplicaPlan
        .stillAppliesTo): after catching up to every epoch a response showed, the plan of the
        newer metadata must still be satisfied by the same responses."""
        node = self._node
        if node.settings.mode == "gossip" or req.max_epoch <= req.plan_epoch \
                or bugs.on(node.settings, "coordinator-skips-revalidation"):
            return True
        if node.log.applied < req.max_epoch:
            node.fetcher.want(req.max_epoch, node.id)
            return False  # answered from on_log_advanced once caught up
        old = req.replicas
        if not self._plan(req):
            self._finish(req, "info" if req.write else "fail", "keyspace gone")
            return False
        if self._counted(req, responders):
            return True
        node.counters["coordinator_revalidation_failures"] += 1
        self._finish(req, "info" if req.write else "fail",
                     f"plan changed at e{req.plan_epoch}: {','.join(old)} -> {','.join(req.replicas)}")
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
        for req in list(self._requests.values()):
            self._finish(req, "info", "coordinator crashed")

    @property
    def busy(self) -> bool:
        return bool(self._requests)


def _errors(req: _Request) -> str:
    return ",".join(f"{r}:{e}" for r, e in sorted(req.errors.items()))
