"""The coordinator of a client read or write (Cassandra's StorageProxy with ReplicaPlans,
trunk 6bbe85ef).

Plans come from the coordinator's own metadata and failure detector (impl/node/replica_plans.py):
- a write goes to every live write replica of the token and needs `blockForWrite` responses (the
  level's count over the natural replicas plus one per pending replica, impl/data/consistency);
  a replica seen down is hinted instead (impl/node/hints.py), and so is one that refuses or does
  not answer within `write_timeout` — also after the write succeeded, as Cassandra's callbacks
  outlive the handler (`AbstractWriteResponseHandler.onFailure`, run on expiry). At ANY a stored
  hint counts as the one answer, and a timed-out write at ANY is hinted to every replica and
  succeeds (`StorageProxy.mutate`);
- a read goes to the first `blockFor` live read replicas by proximity (plus one more after
  `speculative_retry`) and needs `blockFor` data responses; the newest cell (timestamp, then
  value) wins. Only when the counted responses disagree is it written back, before the read
  answers, over the repair plan (the live write replicas that were read, then others until the
  write level could be met) until the write level's count of that plan hold it (blocking read
  repair: `ReplicaPlans.forReadRepair`, `BlockingPartitionRepair`).
Every response carries the replica's epoch. An error (`InvalidRouting`, `CoordinatorBehind`)
does not count. Catching up follows `ResponseVerbHandler.maybeFetchLogs`: a response showing a
newer epoch starts an asynchronous log fetch (the node's `deliver` does that for every
message), except a `CoordinatorBehind`/`InvalidRouting` refusal, which reaches the request only
after a blocking fetch (`fetchLogFromPeerOrCMS`): here it is parked until the log reaches its
epoch. When the level is reached, the plan is re-checked against the coordinator's metadata as
it is at that moment (`ReplicaPlan.stillAppliesTo(ClusterMetadata.current())` in
`ReadCallback.awaitResults` and `AbstractWriteResponseHandler.get`; for a read's repair,
`BlockingReadRepair.awaitWrites`); if the responses no longer satisfy the newer plan, the
request fails. A write that does not succeed may still have reached some replicas: its outcome
is unknown (`info`); a failed read changed nothing visible (`fail`); an unavailable request sent
nothing (`fail`). Timestamps are the coordinator's clock plus its skew. In gossip mode there are
no epoch checks and no re-validation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.messages import (
    COORDINATOR_BEHIND,
    INVALID_ROUTING,
    Mutation,
    MutationAck,
    Read,
    ReadResponse,
)
from impl.node.replica_plans import Plan, dc_of, read_plan, repair_plan, write_plan
from impl.node.request import HINT, Done, Request, errors
from observed.protocol import (
    Event,
    ReadDone,
    ReadPlan,
    ReadRepair,
    ReadRepairAck,
    ReadResolve,
    ReadResp,
    ReadSpeculate,
    WriteAck,
    WriteDone,
    WritePlan,
)
from spec import fixes

if TYPE_CHECKING:
    from impl.node.host import Host

class Coordinator:
    def __init__(self, node: Host, skew_ns: int, next_id: Callable[[], int]) -> None:
        self._node = node
        self._skew = skew_ns
        self._next_id = next_id
        self._requests: dict[int, Request] = {}
        self._expiring: dict[int, Request] = {}  # answered writes whose callbacks still run
        self._repairs: dict[int, int] = {}  # repair request id -> read request id
        # refusals from replicas ahead of this node, held until the log reaches their epoch
        self._parked: list[MutationAck | ReadResponse] = []

    def _emit(self, kind: type[Event], **fields: Any) -> None:
        self._node.world.protocol.emit(kind, coord=self._node.id, **fields)

    def _dc_of(self, replica: str) -> str:
        return dc_of(self._node.log.metadata, replica)

    def _rotation(self, n: int) -> int:
        return self._node.decisions.randrange(f"read-order {self._node.id}", n)

    def _adopt(self, req: Request, plan: Plan) -> None:
        req.replicas = plan.replicas
        req.requirement = plan.requirement
        req.plan_epoch = plan.epoch

    # --- client entry points ---

    def write(self, keyspace: str, key: str, token: int, value: int, cl: str, done: Done) -> None:
        node = self._node
        req = Request(self._next_id(), True, keyspace, key, token, cl, done)
        plan = write_plan(node, keyspace, token, cl)
        if plan is None:
            done("fail", f"unknown keyspace {keyspace}")
            return
        req.value = value
        req.timestamp = node.world.queue.clock.now + self._skew
        self._emit(WritePlan, rid=req.id, keyspace=keyspace, key=key, token=token, cl=cl, epoch=plan.epoch,
                   coord_dc=self._dc_of(node.id), contacts=plan.contacts, down=plan.down,
                   timestamp=req.timestamp, value=value)
        if not plan.available:
            node.counters["unavailable_write"] += 1
            self._emit(WriteDone, rid=req.id, outcome="fail", epoch=node.log.applied)
            done("fail", "unavailable")
            return
        self._adopt(req, plan)
        if plan.pending:
            node.counters[f"writes_pending_{cl.lower()}"] += 1
        if cl == "ANY":
            node.counters["writes_any"] += 1
        self._requests[req.id] = req
        req.timer = node.timer(node.settings.write_timeout_ns, self._timeout, req.id)
        msg = Mutation(sender=node.id, epoch=node.log.applied, request_id=req.id, keyspace=keyspace,
                       key=key, token=token, timestamp=req.timestamp, value=value)
        req.sent = list(plan.contacts)
        req.waiting = set(plan.contacts)
        for r in plan.contacts:
            node.send(r, msg)
        hinted = [r for r in plan.down if self._hint(req, r, "down" if cl != "ANY" else "any")]
        if hinted and cl == "ANY":  # submitHint notifies the handler only at ANY
            req.acks.add(HINT)
            self._emit(WriteAck, rid=req.id, replica=HINT, how="hint")
            self._progress(req)

    def _hint(self, req: Request, target: str, reason: str) -> bool:
        assert req.value is not None
        return self._node.hints.store(target, req.keyspace, req.key, req.token, req.timestamp,
                                      req.value, reason)

    def read(self, keyspace: str, key: str, token: int, cl: str, done: Done) -> None:
        node = self._node
        req = Request(self._next_id(), False, keyspace, key, token, cl, done)
        plan = read_plan(node, keyspace, token, cl, self._rotation)
        if plan is None:
            done("fail", f"unknown keyspace {keyspace}")
            return
        self._emit(ReadPlan, rid=req.id, keyspace=keyspace, key=key, token=token, cl=cl, epoch=plan.epoch,
                   coord_dc=self._dc_of(node.id), contacts=plan.contacts)
        if not plan.available:
            node.counters["unavailable_read"] += 1
            self._emit(ReadDone, rid=req.id, outcome="fail", timestamp=-1, value=None, epoch=node.log.applied)
            done("fail", "unavailable")
            return
        self._adopt(req, plan)
        self._requests[req.id] = req
        req.timer = node.timer(node.settings.read_timeout_ns, self._timeout, req.id)
        req.spare = [r for r in plan.replicas if r not in plan.contacts]
        for r in plan.contacts:
            self._send_read(req, r)
        if req.spare and cl != "EACH_QUORUM":  # no speculation at EACH_QUORUM (CASSANDRA-11980)
            node.timer(node.settings.speculative_retry_ns, self._speculate, req.id)

    def _send_read(self, req: Request, replica: str) -> None:
        node = self._node
        req.sent.append(replica)
        node.send(replica, Read(sender=node.id, epoch=node.log.applied, request_id=req.id,
                                keyspace=req.keyspace, key=req.key, token=req.token))

    def _speculate(self, rid: int) -> None:
        req = self._requests.get(rid)
        if req is None or req.finished or req.resolved or not req.spare:
            return
        self._node.counters["speculative_reads"] += 1
        self._emit(ReadSpeculate, rid=req.id, replica=req.spare[0])
        self._send_read(req, req.spare.pop(0))

    # --- responses ---

    def on_mutation_ack(self, msg: MutationAck) -> None:
        rid = self._repairs.get(msg.request_id)
        if rid is not None:
            req = self._requests.get(rid)
            if req is not None and not msg.error:
                req.repaired.add(msg.sender)
                req.repair_acks.add(msg.sender)
                self._emit(ReadRepairAck, rid=req.id, replica=msg.sender)
                self._progress(req)
            return
        req = self._requests.get(msg.request_id) or self._expiring.get(msg.request_id)
        if req is None or self._park(msg):
            return
        if msg.sender not in req.waiting:
            return  # a duplicate, or an answer after its callback expired
        req.waiting.discard(msg.sender)
        if msg.error:
            req.errors[msg.sender] = msg.error
            self._hint(req, msg.sender, "refused")  # onFailure hints a failure response too
        else:
            req.acks.add(msg.sender)
            self._emit(WriteAck, rid=req.id, replica=msg.sender, how="ack")
        if req.finished:
            if not req.waiting:
                self._expired(req)
            return
        self._progress(req)

    def on_read_response(self, msg: ReadResponse) -> None:
        req = self._requests.get(msg.request_id)
        if req is None or req.write or self._park(msg):
            return
        if msg.error:
            req.errors[msg.sender] = msg.error
        elif not req.resolved:
            # why only before resolving: the set of responses the read resolves is fixed
            req.cells[msg.sender] = (msg.timestamp, msg.value)
            self._emit(ReadResp, rid=req.id, replica=msg.sender, timestamp=msg.timestamp, value=msg.value)
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
                        and (m.request_id in self._requests or m.request_id in self._expiring)]
        for m in ready:
            if isinstance(m, MutationAck):
                self.on_mutation_ack(m)
            else:
                self.on_read_response(m)

    # --- deciding ---

    def _counted(self, req: Request, responders: set[str]) -> bool:
        if req.cl == "ANY":
            return bool(responders)
        return req.requirement.satisfied([r for r in req.replicas if r in responders], self._dc_of)

    def _progress(self, req: Request) -> None:
        if req.finished:
            return
        if req.write:
            if not self._counted(req, req.acks):
                if not req.waiting and req.errors:
                    self._finish(req, "info", "errors: " + errors(req))
                return
            if req.cl == "ANY" or self._revalidate(req, req.acks):
                self._finish(req, "ok", None)
            return
        if not req.resolved:
            responders = set(req.cells)
            if not self._counted(req, responders):
                if len(req.cells) + len(req.errors) >= len(req.sent) and req.errors and not req.spare:
                    self._finish(req, "fail", "errors: " + errors(req))
                return
            if not self._revalidate(req, responders):  # ReadCallback.awaitResults
                return
            self._resolve(req)
        if not req.repair_requirement.satisfied(
                [r for r in req.repair_replicas if r in req.repaired], self._dc_of):
            return
        if self._revalidate_repair(req):  # BlockingReadRepair.awaitWrites
            self._finish(req, "ok", req.value)

    def _resolve(self, req: Request) -> None:
        """The newest cell of the counted responses; a blocking repair when they disagree."""
        req.resolved = True
        ts, value = max(req.cells.values(), key=lambda c: (c[0], -1 if c[1] is None else c[1]))
        req.value = value
        req.timestamp = ts
        self._emit(ReadResolve, rid=req.id, epoch=self._node.log.applied, responders=tuple(sorted(req.cells)),
                   timestamp=ts, value=value)
        stale = {r for r, c in req.cells.items() if c != (ts, value)}
        if value is None or bugs.on(self._node.settings, "read-repair-skipped"):
            return
        if not stale:
            # the responses agree (a digest match): Cassandra repairs nothing, even while the
            # token has pending replicas that may lack the value (finding
            # monotonic-read-across-movement); the fix writes it over the repair plan then
            if self._repairs_pending(req):
                self._start_repair(req, ts, value, set(req.cells))
            return
        self._start_repair(req, ts, value, set(req.cells) - stale)

    def _repairs_pending(self, req: Request) -> bool:
        """Fix `read-repair-pending`: a read whose token has pending replicas in this node's
        metadata repairs as on a mismatch, so the value is on the write level's count of the
        write replicas (pending included) before the read answers — what any later read quorum,
        after the movement too, meets."""
        if not fixes.on(self._node.settings.fixes, fixes.READ_REPAIR_PENDING):
            return False
        now = write_plan(self._node, req.keyspace, req.token, req.cl)
        return now is not None and bool(now.pending)

    def _start_repair(self, req: Request, ts: int, value: int, up_to_date: set[str]) -> None:
        """Blocking read repair (BlockingPartitionRepair): each plan member that lacks the
        resolved cell is sent it; the read answers once the write level's count of the plan
        hold it — so the value is on a write quorum, which any later read quorum meets."""
        node = self._node
        plan, need, epoch = repair_plan(node, req.keyspace, req.token, req.cl, req.sent,
                                        self._rotation)
        now = write_plan(node, req.keyspace, req.token, req.cl)
        assert now is not None
        req.repair_writes = (now.replicas, now.pending)
        req.repair_replicas = plan
        req.repair_requirement = need
        req.repaired = up_to_date & set(plan)
        req.repair_epoch = epoch
        targets = sorted(r for r in plan if r not in up_to_date)
        self._emit(ReadRepair, rid=req.id, epoch=epoch, plan=plan, targets=tuple(targets))
        node.counters["read_repairs"] += 1
        for r in targets:
            rid = self._next_id()
            req.repairing[r] = rid
            self._repairs[rid] = req.id
            node.counters["read_repair_mutations"] += 1
            node.send(r, Mutation(sender=node.id, epoch=node.log.applied, request_id=rid,
                                  keyspace=req.keyspace, key=req.key, token=req.token,
                                  timestamp=ts, value=value, repair=True))

    def _revalidate(self, req: Request, responders: set[str]) -> bool:
        """True when the request may answer now, else it fails it (ReplicaPlan.stillAppliesTo
        against `ClusterMetadata.current()`): if this node's metadata moved past the plan's
        epoch, the same responses must satisfy the plan of the metadata it holds now. A newer
        epoch a response showed but this node has not fetched yet is not waited for."""
        node = self._node
        ahead = 1 if bugs.on(node.settings, "revalidation-off-by-one") else 0
        if node.settings.mode == "gossip" or node.log.applied <= req.plan_epoch + ahead \
                or bugs.on(node.settings, "coordinator-skips-revalidation"):
            return True
        old, epoch = req.replicas, req.plan_epoch
        plan = (write_plan(node, req.keyspace, req.token, req.cl) if req.write
                else read_plan(node, req.keyspace, req.token, req.cl, lambda n: 0))
        if plan is None:
            self._finish(req, "info" if req.write else "fail", "keyspace gone")
            return False
        self._adopt(req, plan)
        if not req.write:  # membership of the new read group, whatever the detector says
            req.replicas = tuple(node.log.metadata.read_replicas(req.keyspace, req.token))
        if self._counted(req, responders):
            return True
        node.counters["coordinator_revalidation_failures"] += 1
        self._finish(req, "info" if req.write else "fail",
                     f"plan changed at e{epoch}: {','.join(old)} -> {','.join(req.replicas)}")
        return False

    def _revalidate_repair(self, req: Request) -> bool:
        """The blocking read repair's plan re-checked the same way (BlockingReadRepair
        .awaitWrites: `repairPlan.stillAppliesTo`), counting the replicas that acknowledged a
        repair (the repair plan's `contacted`)."""
        node = self._node
        if node.settings.mode == "gossip" or req.repair_epoch < 0 \
                or node.log.applied <= req.repair_epoch \
                or bugs.on(node.settings, "coordinator-skips-revalidation"):
            return True
        plan = write_plan(node, req.keyspace, req.token, req.cl)
        if plan is None:
            self._finish(req, "fail", "keyspace gone")
            return False
        writes = plan.replicas
        if (writes, plan.pending) == req.repair_writes:
            return True  # liveAndDown and pending unchanged: the plan still applies
        if plan.requirement.satisfied([r for r in writes if r in req.repair_acks], self._dc_of):
            return True
        node.counters["coordinator_revalidation_failures"] += 1
        self._finish(req, "fail", f"repair plan changed at e{req.repair_epoch}: "
                     f"{','.join(req.repair_replicas)} -> {','.join(writes)}")
        return False

    def _timeout(self, rid: int) -> None:
        req = self._requests.get(rid) or self._expiring.get(rid)
        if req is None:
            return
        if not req.finished:
            self._node.counters["write_timeouts" if req.write else "read_timeouts"] += 1
            if req.write and req.cl == "ANY":
                # StorageProxy.mutate: a timed-out write at ANY is hinted to every write replica
                # and succeeds ("Wrote hints to satisfy CL.ANY after no replicas acknowledged")
                hinted = [r for r in req.replicas if self._hint(req, r, "any")]
                if hinted:
                    self._emit(WriteAck, rid=req.id, replica=HINT, how="hint")
                    req.waiting = set()
                    self._finish(req, "ok", None)
                    return
            self._finish(req, "info" if req.write else "fail", "timeout")
        if req.write:
            self._expired(req)

    def _expired(self, req: Request) -> None:
        """The write's callbacks expire: every contact that never answered is hinted."""
        self._expiring.pop(req.id, None)
        self._node.cancel(req.timer)
        for r in sorted(req.waiting):
            self._hint(req, r, "timeout")
        req.waiting = set()

    def _finish(self, req: Request, outcome: str, value: Any) -> None:
        req.finished = True
        self._requests.pop(req.id, None)
        for rid in req.repairing.values():
            self._repairs.pop(rid, None)
        if req.write and req.waiting:
            self._expiring[req.id] = req  # the timer stays: it expires the callbacks
        else:
            self._node.cancel(req.timer)
        node = self._node
        if req.write:
            self._emit(WriteDone, rid=req.id, outcome=outcome, epoch=node.log.applied)
        else:
            self._emit(ReadDone, rid=req.id, outcome=outcome, timestamp=req.timestamp,
                       value=req.value if outcome == "ok" else None, epoch=node.log.applied)
        req.done(outcome, value)

    def crash(self) -> None:
        """In-flight requests end with the node: their outcome is unknown to the client."""
        self._parked = []
        self._expiring = {}
        for req in list(self._requests.values()):
            req.waiting = set()
            self._finish(req, "info", "coordinator crashed")

    @property
    def busy(self) -> bool:
        return bool(self._requests)
