"""Wiring: a cluster of simulated nodes on one bus, one clock, one RNG — and `run_scenario`.

`run_scenario(scenario, seed) -> Observed` is a pure function of its inputs: it builds the
cluster, schedules the scenario (impl/script.py: submissions, crashes and restarts, partitions
and heals, CMS membership targets, initialization, repairs), runs the event queue until
quiescence (no work left: no message in flight, no pending timer other than the periodic ones —
gossip, hint dispatch —, no submission waiting, no repair running, no hint a live node could
still deliver, every live node at the same epoch) or the scenario's end time, and returns a
picklable record of what it observed (observed/run.py's `Observed`, read off by
impl/final_state.py): every node's log, the client and commit calls, the protocol trace, the
end state, the counters and the trace hash. `Cluster.observe()` reads the same off a running
cluster (the stateful machine judges it after every step).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

from impl import client_workload
from impl.bus import Bus, NetworkFaults
from impl.cms.placement import CURRENT, POLICY
from impl.cms.reconfiguration import AUTO, policy_members
from impl.data.partitioner import token as token_of
from impl.engine import Engine, Executor, MetadataEngine
from impl.entry import Entry, Snapshot
from impl.final_state import observed
from impl.history import History
from impl.messages import Message
from impl.node.log import Disk, initial_disk
from impl.node.node import Node
from impl.node.storage import in_range
from impl.protocol import ProtocolLog
from impl.scenario import Cancel, Operation, Scenario, Submission
from impl.script import Script
from impl.sim.clock import VirtualClock
from impl.sim.decisions import Decisions
from impl.sim.events import EventQueue
from impl.trace import Trace
from impl.views import metadata_view
from observed.cells import StreamedKey, StreamRecord
from observed.frozen import FrozenMap
from observed.protocol import Applied
from observed.run import ApplyFailure, Holding, Install, Observed, OperationEnd


class Cluster:
    def __init__(self, scenario: Scenario, seed: int, *, engine: Engine | None = None,
                 keep_trace: bool = False, spares: tuple[str, ...] = (),
                 record_decisions: bool = False) -> None:
        self.scenario = scenario
        self.seed = seed
        self.settings = scenario.settings
        self.rng = random.Random(seed)
        """The seed's RNG: generates the workloads, then (unless the scenario carries a decision
        list) draws every decision."""
        fallback = (random.Random(scenario.decision_seed) if scenario.decision_seed is not None
                    and scenario.decisions is not None else None)
        self.decisions = Decisions(self.rng, scenario.decisions, record=record_decisions,
                                   fallback=fallback)
        self.clock = VirtualClock()
        self.queue = EventQueue(self.clock)
        self.trace = Trace(self.clock, keep=keep_trace)
        self.protocol = ProtocolLog(self.clock)
        self.counters: dict[str, int] = defaultdict(int)
        self.history = History(self.clock)
        self.engine: Engine = engine if engine is not None else MetadataEngine()
        self.executor = Executor(self.engine)
        self.apply_failures: list[ApplyFailure] = []
        self.conflicts: list[str] = []
        self._epoch_entry: dict[int, Entry] = {}
        self._epoch_chain: dict[int, str] = {}
        self.holdings: list[Holding] = []
        self.installs: list[Install] = []
        self._views: dict[int, tuple[Any, FrozenMap | None]] = {}  # id(metadata) -> (it, its view)
        self.epoch_regressions: list[str] = []
        self._last_applied: dict[str, int] = {}
        topology = json.loads(scenario.topology)
        # why the operation nodes too: a joining or replacing node is a process from the start,
        # absent from the metadata until it registers
        self.topology_ids: list[str] = sorted(str(n["id"]) for n in topology.get("nodes", []))
        # `spares`: processes for operations a driver starts later (the step API below)
        self.node_ids: list[str] = sorted(set(self.topology_ids)
                                          | {o.node for o in scenario.operations} | set(spares))
        self.dcs = {str(n["id"]): str(n.get("dc", "dc1")) for n in topology.get("nodes", [])}
        self._skew = dict(scenario.clock_skew)
        self.operation_outcomes: list[OperationEnd] = []
        self.stream_records: list[StreamRecord] = []
        self.disks: dict[str, Disk] = self._initial_disks(topology)
        self.bus = Bus(queue=self.queue, decisions=self.decisions, trace=self.trace, counters=self.counters,
                       faults=scenario.network, deliver=self._deliver, is_up=self.is_up)
        self.cms_target: tuple[str, ...] | None = self._initial_target()
        """The operator's pending `nodetool cms reconfigure` (AUTO: the CEP's policy), until done."""
        self.cms_rf = self._initial_rf()
        """The CMS's replication (impl/cms/placement.py): what ensureCMSPlacement and
        maybeReconfigureCMS place the CMS at."""
        self.nodes: dict[str, Node | None] = {}
        self.script = Script(self)
        self._scheduled = False
        for i, nid in enumerate(self.node_ids):
            self.nodes[nid] = Node(node_id=nid, index=i, world=self, disk=self.disks[nid])

    def _initial_disks(self, topology: dict[str, Any]) -> dict[str, Disk]:
        init = self.scenario.initialize
        if init is None:
            m0 = self.engine.from_topology(topology)
            return {nid: initial_disk(m0) for nid in self.node_ids}
        views = dict(init.views)
        gossip = getattr(self.engine, "from_gossip")  # noqa: B009 (engines without it fail here)
        disks = {}
        for nid in self.node_ids:
            doc = json.loads(views[nid]) if nid in views else topology
            m = gossip(doc, versions=dict(init.versions), states=dict(init.states))
            disks[nid] = initial_disk(m)
        return disks

    def _initial_target(self) -> tuple[str, ...] | None:
        s = self.scenario
        if s.cms_members is not None:
            return s.cms_members
        if s.cms_size == 0:
            return None
        if s.cms_size is None:
            return AUTO if s.cms_reconfigure_at == 0 else None
        return policy_members(self.topology_ids, s.cms_size)

    def _initial_rf(self) -> int:
        s = self.scenario
        if s.cms_members is not None:
            return len(s.cms_members)
        if s.cms_size is None:
            return POLICY
        return s.cms_size if s.cms_size > 0 else CURRENT

    # --- what the bus and nodes ask of the cluster ---

    def cms_target_reached(self, target: tuple[str, ...]) -> None:
        if self.cms_target is not None:
            self.trace.event("cms_target", "-", "-", "reached " + ",".join(target))
            self.cms_target = None

    def skew_of(self, node_id: str) -> int:
        return self._skew.get(node_id, 0)

    def operation_finished(self, node_id: str, op: str, outcome: str) -> None:
        self.operation_outcomes.append(OperationEnd(node=node_id, op=op, outcome=outcome))
        self.counters["operations_" + outcome.split(":")[0]] += 1

    def streamed(self, driver: str, op: str, sequence_node: str, excluded: str | None,
                 transfers: list[tuple[Any, str | None]]) -> None:

        node = self.nodes.get(driver)
        if node is None:
            return
        meta: Any = node.log.metadata
        seq = meta.sequences.get(sequence_node)
        if seq is None:
            return
        for name in sorted(meta.keyspaces):
            for e in seq.transitions.get(meta.keyspaces[name].replication.key, ()):
                for dest in sorted(e.after - e.before):
                    used = tuple(sorted({src for (ks, d, _, ranges), src in transfers
                                         if src is not None and ks == name and d == dest
                                         and (e.left, e.right) in ranges}))
                    candidates = e.before - {excluded} - {dest}
                    keys = sorted({k for disk in self.disks.values() for (ks, k) in disk.data
                                   if ks == name and in_range(token_of(k), e.left, e.right)})
                    streamed = tuple(StreamedKey(key=k, at_destination=self.disks[dest].data.get((name, k)),
                                                 on_disks=tuple(sorted({d.data[(name, k)] for d in self.disks.values()
                                                                        if (name, k) in d.data})))
                                     for k in keys)
                    self.stream_records.append(StreamRecord(
                        time=self.clock.now, op=op, driver=driver, excluded=excluded, keyspace=name,
                        left=e.left, right=e.right, destination=dest, sources=used,
                        faithful=all(src in candidates for src in used), keys=streamed))

    def is_up(self, node_id: str) -> bool:
        return self.nodes.get(node_id) is not None

    def convicted(self, observer: str, peer: str) -> bool:
        """Whether `observer`'s failure detector has `peer` down, once gossip settled after its
        (re)start (a down observer decides nothing: False): what a node asks of its own detector
        when another node's message arrives (a removal's DataMovementVerbHandler)."""
        node = self.nodes.get(observer)
        if node is None:
            return False
        fd = node.failure_detector
        return fd.settled() and not fd.is_alive(peer)

    def reachable(self, a: str, b: str) -> bool:
        """Whether a message from `a` to `b` would be delivered now (both up, no partition
        between them): the quiet end waits only for hints that can still be delivered."""
        return self.is_up(a) and self.is_up(b) and self.bus.reachable(a, b)

    def _deliver(self, dst: str, msg: Message) -> None:
        node = self.nodes[dst]
        if node is not None:
            node.deliver(msg)

    def observe_apply(self, node_id: str, entry: Entry | None, snap: Snapshot | None) -> None:
        node = self.nodes.get(node_id)
        self.protocol.emit(Applied, node=node_id, epoch=entry.epoch if entry is not None else
                           snap.epoch if snap is not None else 0)
        chain = node.log.chain if node is not None else ""
        if entry is not None:
            prev = self._epoch_entry.get(entry.epoch)
            if prev is None:
                # why here: a commit is counted once per epoch, however many proposers drove it
                self._epoch_entry[entry.epoch] = entry
                self.counters["commits"] += 1
            elif prev != entry:
                self.conflicts.append(f"epoch {entry.epoch}: {prev.brief()} vs {entry.brief()} "
                                      f"on {node_id}")
            epoch = entry.epoch
        else:
            assert snap is not None
            epoch = snap.epoch
            if node is not None:
                self.hold(node_id, node.log.metadata, epoch, "snapshot")
                before, keys = node.log.last_install
                self.installs.append(Install(node=node_id, before=before, after=epoch, keys=keys))
        self._advance_applied(node_id, epoch, "applied")
        if chain:
            known = self._epoch_chain.setdefault(epoch, chain)
            if known != chain:
                self.conflicts.append(f"epoch {epoch}: log hash differs on {node_id}")

    def restarted(self, node: Node) -> None:
        """A node came back on its disk: its epoch and its metadata are checked as at an install."""
        self._advance_applied(node.id, node.log.applied, "restarted at")
        self.hold(node.id, node.log.metadata, node.log.applied, "restart")
        self.protocol.emit(Applied, node=node.id, epoch=node.log.applied)

    # --- the step API: a driver (strategies/system_machine.py) adds events as it goes ---

    def _now(self, fn: Any, *args: Any) -> None:
        if not self._scheduled:
            self._scheduled = True
            self.script.schedule()
        self.queue.at(self.clock.now, fn, *args)

    def submit(self, node: str, transformation: str) -> None:
        self._now(self.script.submit, Submission(node=node, at=self.clock.now, transformation=transformation))

    def client(self, op: client_workload.ClientOp) -> None:
        self._now(self.script.client_op, op)

    def begin_operation(self, o: Operation) -> None:
        self._now(self.script.begin_operation, o)

    def cancel_operation(self, node: str) -> None:
        self._now(self.script.cancel_operation, Cancel(node=node, at=self.clock.now))

    def crash(self, node: str) -> None:
        self._now(self.script.crash, node)

    def restart(self, node: str) -> None:
        self._now(self.script.restart, node)

    def partition(self, name: str, groups: tuple[tuple[str, ...], ...]) -> None:
        self._now(self.bus.partition, name, groups, self.node_ids)

    def heal(self, name: str) -> None:
        self._now(self.script.heal, name)

    def set_network(self, faults: NetworkFaults) -> None:
        self._now(self.bus.set_faults, faults)

    # --- running ---

    def _quiescent(self) -> bool:
        if self.queue.pending_work:
            return False
        epochs = set()
        for node in self.nodes.values():
            if node is None:
                continue
            if node.submitter.pending or node.service.busy or node.reconfiguration.busy \
                    or node.coordinator.busy or node.operation.busy or node.repair.busy \
                    or node.hints.deliverable(self.reachable):
                return False
            epochs.add(node.log.applied)
        return len(epochs) <= 1

    def run(self) -> Observed:
        """Run to quiescence or the end time (continuing from wherever `run_until` stopped)."""
        quiescent = self._run(self.settings.end_time_ns, stop_when_quiet=True)
        return observed(self, quiescent or self._quiescent())

    def observe(self) -> Observed:
        """What the run has observed so far, read without changing anything (each live node's
        metadata as held `now`)."""
        return observed(self, self._quiescent(), end=False)

    def run_until(self, t: int) -> None:
        """Process every event up to virtual time `t` (tests inspect the cluster in between)."""
        self._run(min(t, self.settings.end_time_ns), stop_when_quiet=False)

    def _run(self, end: int, *, stop_when_quiet: bool) -> bool:
        if not self._scheduled:
            self._scheduled = True
            self.script.schedule()
        queue = self.queue
        while True:
            ev = queue.pop_until(end)
            if ev is None:
                if not stop_when_quiet and self.clock.now < end:
                    self.clock.advance_to(end)
                return False
            ev.fn(*ev.args)
            if stop_when_quiet and queue.pending_work == 0 and self._quiescent():
                return True

    def _advance_applied(self, node_id: str, epoch: int, how: str) -> None:
        last = self._last_applied.get(node_id, 0)
        if epoch < last:
            self.epoch_regressions.append(f"{node_id} {how} epoch {epoch} after {last}")
        self._last_applied[node_id] = max(last, epoch)

    def hold(self, node_id: str, metadata: Any, epoch: int, when: str) -> None:
        """Record what a node's metadata holds (at a snapshot install, a restart, the end)."""
        holdings, regressions = self.view(node_id, metadata, epoch, when)
        self.epoch_regressions += regressions
        self.holdings += holdings

    def view(self, node_id: str, metadata: Any, epoch: int, when: str) -> tuple[list[Holding], list[str]]:
        """What a node's metadata holds, and whether it holds a placement modified above its
        epoch, without recording either."""
        regressions = []
        newest = self.disks[node_id].placement_epochs.newest
        if newest > epoch:
            # a replica would then refuse coordinators at its own epoch (COORDINATOR_BEHIND)
            regressions.append(f"{node_id} at epoch {epoch} ({when}) holds a placement "
                               f"last modified at epoch {newest}")
        # why the memo: the stateful machine reads every live node's view after every step, and
        # a node's metadata is a new object only when it changed
        known = self._views.get(id(metadata))
        if known is None or known[0] is not metadata:
            known = self._views[id(metadata)] = (metadata, metadata_view(metadata))
        view = known[1]
        return ([] if view is None else [Holding(node=node_id, epoch=epoch, when=when, view=view)]), regressions


def run_scenario(scenario: Scenario, seed: int, *, engine: Engine | None = None,
                 keep_trace: bool = False, record_decisions: bool = False) -> Observed:
    """Run one simulation; the same scenario, seed and code always give the same result.
    `record_decisions` keeps the non-default decisions in `Observed.decisions` (they are
    always kept for a scenario that carries a decision list)."""
    return Cluster(scenario, seed, engine=engine, keep_trace=keep_trace,
                   record_decisions=record_decisions).run()


__all__ = ["Cluster", "run_scenario"]
