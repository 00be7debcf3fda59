"""Wiring: a cluster of simulated nodes on one bus, one clock, one RNG — and `run_scenario`.

`run_scenario(scenario, seed) -> RunResult` is a pure function of its inputs: it builds the
cluster, schedules the scenario (submissions, crashes and restarts, partitions and heals, CMS
membership targets, initialization), runs the event queue until quiescence (no work left: no
message in flight, no pending timer other than gossip, no submission waiting, every live node
at the same epoch) or the scenario's end time, and returns a picklable result: every node's
log, the commit history, the counters and the trace hash.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

from attrs import frozen

from impl import client_workload
from impl.bus import Bus, NetworkFaults
from impl.cms.election import Election
from impl.cms.placement import CURRENT, POLICY
from impl.cms.reconfiguration import AUTO, policy_members
from impl.data.partitioner import token as token_of
from impl.engine import Engine, Executor, MetadataEngine
from impl.entry import Entry, Snapshot, canonical_json
from impl.history import History, Op
from impl.messages import Message
from impl.node.log import Disk, initial_disk
from impl.node.node import Node
from impl.node.progress_barrier import satisfied
from impl.node.storage import in_range
from impl.scenario import Cancel, Operation, Scenario, Submission
from impl.sim.clock import VirtualClock
from impl.sim.decisions import Decisions
from impl.sim.events import EventQueue
from impl.trace import Trace
from impl.workload import generate

COUNTERS = ("commits", "retries", "rejections", "fetches", "fetch_retries", "fetch_timeouts",
            "fetches_deduplicated", "snapshot_catchups", "messages_sent", "messages_delivered",
            "messages_dropped", "messages_duplicated", "submit_retries", "paxos_timeouts",
            "paxos_recoveries", "apply_failures")


@frozen(kw_only=True)
class NodeResult:
    id: str
    up: bool
    applied_epoch: int
    log_hash: str
    """The chain hash at the applied epoch: equal iff the logs up to there are equal, whether
    the node replayed every entry or installed a snapshot."""
    first_epoch: int
    """The first epoch whose entry the node holds (1, or a snapshot's epoch + 1)."""
    entries: tuple[Entry, ...]
    snapshot_epochs: tuple[int, ...]


@frozen(kw_only=True)
class StreamRecord:
    """What one new replica received for one range when a remove or replace streamed (recorded
    by the world, as evidence for the judge: finding `remove-replace-single-source`)."""

    time: int
    op: str
    """remove or replace"""
    driver: str
    excluded: str | None
    """The removed or replaced node."""
    keyspace: str
    left: int
    right: int
    destination: str
    sources: tuple[str, ...]
    """The nodes whose data reached the destination (empty: nobody held the range)."""
    faithful: bool
    """Every source is a replica of the range before the operation other than the excluded
    node (Cassandra's candidates); False for a stream from anywhere else (a bug)."""
    cells: tuple[tuple[str, tuple[int, int] | None, tuple[tuple[int, int], ...]], ...]
    """(key, the destination's cell when streaming ended, every distinct cell any node's disk
    held then) for each key of the keyspace in the range."""


@frozen(kw_only=True)
class RunResult:
    seed: int
    trace_hash: str
    trace_events: int
    final_epoch: int
    end_time: int
    quiescent: bool
    nodes: tuple[NodeResult, ...]
    history: tuple[Op, ...]
    counters: tuple[tuple[str, int], ...]
    conflicts: tuple[str, ...]
    """Any epoch seen holding two different entries (on two nodes, or one node twice)."""
    apply_failures: tuple[tuple[str, int, str], ...]
    trace: tuple[str, ...] = ()
    operations: tuple[tuple[str, str, str], ...] = ()
    """(node, operation, outcome) of every topology operation that ended, in time order."""
    holdings: tuple[tuple[str, int, str, str], ...] = ()
    """(node, epoch, when, view): what a node's metadata held when it installed a snapshot, when
    it restarted, and at the end (`metadata_view`, canonical JSON) — the judge compares each
    with the spec's replay of the log up to that epoch."""
    epoch_regressions: tuple[str, ...] = ()
    """Any node whose applied epoch went backwards (across a restart, or by a snapshot)."""
    replica_cells: tuple[tuple[str, str, tuple[tuple[str, int, int], ...]], ...] = ()
    """(keyspace, key, ((replica, timestamp, value), ...)) at the end for every client key: what
    each live read replica of the final placement (of the most advanced live node) holds
    (timestamp -1 when it holds nothing)."""
    unfinished: tuple[tuple[str, str, bool], ...] = ()
    """(node, operation, could finish) of every operation still in progress at the end on a live
    node; `could finish`: the live nodes meet its barrier at the lowest level it may relax to."""
    decisions: tuple[tuple[str, int, int], ...] = ()
    """The non-default decisions the run took (impl/sim/decisions.py), when recorded or
    scripted: as a scenario's `decisions`, they replay this very run."""
    streams: tuple[StreamRecord, ...] = ()
    """Every range a remove or replace streamed (or had nothing to stream from), in time order."""
    installs: tuple[tuple[str, int, int, tuple[str, ...]], ...] = ()
    """(node, epoch before, snapshot's epoch, the metadata keys the install reported modified)
    of every snapshot install (Cassandra's ForceSnapshot result: MetadataKeys.diffKeys)."""

    @property
    def client_history(self) -> tuple[Op, ...]:
        return tuple(op for op in self.history if op.f != "commit")

    @property
    def commit_history(self) -> tuple[Op, ...]:
        return tuple(op for op in self.history if op.f == "commit")

    def counter(self, name: str) -> int:
        return dict(self.counters).get(name, 0)

    def node(self, node_id: str) -> NodeResult:
        return next(n for n in self.nodes if n.id == node_id)

    def summary(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "trace_hash": self.trace_hash,
            "trace_events": self.trace_events,
            "final_epoch": self.final_epoch,
            "end_time_ns": self.end_time,
            "quiescent": self.quiescent,
            "nodes": {n.id: {"up": n.up, "applied_epoch": n.applied_epoch,
                             "log_hash": n.log_hash, "first_epoch": n.first_epoch}
                      for n in self.nodes},
            "counters": dict(self.counters),
            "conflicts": list(self.conflicts),
            "apply_failures": [list(f) for f in self.apply_failures],
            "operations": [list(o) for o in self.operations],
        }


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
        self.counters: dict[str, int] = defaultdict(int)
        self.history = History(self.clock)
        self.engine: Engine = engine if engine is not None else MetadataEngine()
        self.executor = Executor(self.engine)
        self.apply_failures: list[tuple[str, int, str]] = []
        self.conflicts: list[str] = []
        self._epoch_entry: dict[int, Entry] = {}
        self._epoch_chain: dict[int, str] = {}
        self.holdings: list[tuple[str, int, str, str]] = []
        self.installs: list[tuple[str, int, int, tuple[str, ...]]] = []
        self.epoch_regressions: list[str] = []
        self._last_applied: dict[str, int] = {}
        topology = json.loads(scenario.topology)
        # why the operation nodes too: a joining or replacing node is a process from the start,
        # absent from the metadata until it registers
        self.topology_ids: list[str] = sorted(str(n["id"]) for n in topology.get("nodes", []))
        # `spares`: processes for operations a driver starts later (the step API below)
        self.node_ids: list[str] = sorted(set(self.topology_ids)
                                          | {o.node for o in scenario.operations} | set(spares))
        self._dcs = {str(n["id"]): str(n.get("dc", "dc1")) for n in topology.get("nodes", [])}
        self._skew = dict(scenario.clock_skew)
        self.operation_outcomes: list[tuple[str, str, str]] = []
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
        self.operation_outcomes.append((node_id, op, outcome))
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
                    cells = tuple((k, self.disks[dest].data.get((name, k)),
                                   tuple(sorted({d.data[(name, k)] for d in self.disks.values()
                                                 if (name, k) in d.data})))
                                  for k in keys)
                    self.stream_records.append(StreamRecord(
                        time=self.clock.now, op=op, driver=driver, excluded=excluded, keyspace=name,
                        left=e.left, right=e.right, destination=dest, sources=used,
                        faithful=all(src in candidates for src in used), cells=cells))

    def is_up(self, node_id: str) -> bool:
        return self.nodes.get(node_id) is not None

    def _deliver(self, dst: str, msg: Message) -> None:
        node = self.nodes[dst]
        if node is not None:
            node.deliver(msg)

    def observe_apply(self, node_id: str, entry: Entry | None, snap: Snapshot | None) -> None:
        node = self.nodes.get(node_id)
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
                self._hold(node_id, node.log.metadata, epoch, "snapshot")
                before, keys = node.log.last_install
                self.installs.append((node_id, before, epoch, keys))
        self._advance_applied(node_id, epoch, "applied")
        if chain:
            known = self._epoch_chain.setdefault(epoch, chain)
            if known != chain:
                self.conflicts.append(f"epoch {epoch}: log hash differs on {node_id}")

    # --- scripted events ---

    def _submit(self, sub: Submission) -> None:
        node = self.nodes.get(sub.node)
        self.trace.event("submit", sub.node, "-", sub.transformation)
        if node is None:
            # why: a down node cannot submit; the request never happened (no history event)
            self.counters["submissions_skipped"] += 1
            return
        node.submitter.submit(sub.transformation)

    def _client_op(self, op: client_workload.ClientOp) -> None:
        node = self.nodes.get(op.node)
        if node is None:
            # why: a client cannot reach a down node; the operation never happened
            self.counters["client_ops_skipped"] += 1
            return
        history = self.history
        process = history.new_process()
        written = json.dumps(op.value)
        history.record(process, "invoke", written, op.node, f=op.f, key=op.key)
        self.counters["client_" + op.f + "s"] += 1

        def done(outcome: str, value: object) -> None:
            # a write shows the value it wrote whatever the outcome; a read what it read
            shown = written if op.f == "write" else json.dumps(value if outcome == "ok" else None)
            history.record(process, outcome, shown, op.node, f=op.f, key=op.key)
            self.counters[f"client_{op.f}_{outcome}"] += 1

        token = node.replica.token(op.key)
        if op.f == "write":
            assert op.value is not None
            node.coordinator.write(op.keyspace, op.key, token, op.value, op.cl, done)
        else:
            node.coordinator.read(op.keyspace, op.key, token, op.cl, done)

    def _begin_operation(self, o: Operation) -> None:
        node = self.nodes.get(o.node)
        self.trace.event("operation", o.node, o.target or "-", f"request {o.op}")
        if node is None:
            self.operation_finished(o.node, o.op, "skipped: node down")
            return
        node.operation.begin(o.op, target=o.target, tokens=o.tokens, location=o.location)

    def _cancel_operation(self, cancel: Cancel) -> None:
        """The operator cancels `cancel.node`'s operation from `cancel.by`: the JMX cancel (by
        default from the operation's own node when it runs, else from the first live node), or
        `nodetool abortbootstrap` (by default from the first live node other than it)
        (impl/node/operator.py). The sequence is named by the driver's disk."""
        op = self.disks[cancel.node].operation
        seq_node = op["seq_node"] if op is not None else cancel.node
        by = self.nodes.get(cancel.by) if cancel.by is not None else None
        if cancel.by is None:
            live = [n for n in self.nodes.values() if n is not None
                    and (cancel.how == "jmx" or n.id != seq_node)]
            own = self.nodes.get(cancel.node)
            by = own if cancel.how == "jmx" and own is not None else (live[0] if live else None)
        if by is None:
            self.counters["cancels_skipped"] += 1
            return
        if cancel.how == "abortbootstrap":
            by.operator.abort_bootstrap(seq_node)
        else:
            by.operator.cancel(seq_node, cancel.kind)

    def _crash(self, node_id: str) -> None:
        node = self.nodes.get(node_id)
        if node is None:
            return
        self.trace.event("crash", node_id)
        node.crash()
        self.nodes[node_id] = None
        self.counters["crashes"] += 1

    def _restart(self, node_id: str) -> None:
        if self.nodes.get(node_id) is not None:
            return
        self.trace.event("restart", node_id)
        node = Node(node_id=node_id, index=self.node_ids.index(node_id), world=self,
                    disk=self.disks[node_id], restarted=True)
        self.nodes[node_id] = node
        self.counters["restarts"] += 1
        self._advance_applied(node_id, node.log.applied, "restarted at")
        self._hold(node_id, node.log.metadata, node.log.applied, "restart")
        node.timer(self.decisions.randrange(f"gossip-timer {node_id}",
                                            self.settings.gossip_interval_ns),
                   node.gossip_round, work=False)
        # why: a restarted node asks a CMS member where the log is (discovery)
        node.gossip_to(node.pick_cms_member(avoid=node_id))
        # why every node: the CMS driver's sizing policy leaves down nodes out, so it looks
        # again when one comes back (the failure detector marking it alive)
        for other in self.nodes.values():
            if other is not None:
                other.reconfiguration.poll()
        node.operation.advance()  # a node resumes its operation from what the log says
        if self.scenario.initialize is not None and self.scenario.initialize.discovery_rounds:
            self._start_discovery(node_id)  # a new cluster's node discovers its peers at startup

    def _set_target(self, members: tuple[str, ...]) -> None:
        self.cms_target = members
        self.cms_rf = len(members)
        self.trace.event("cms_target", "-", "-", ",".join(members))
        for node in self.nodes.values():
            if node is not None:
                node.reconfiguration.poll()

    def _reconfigure_by_policy(self) -> None:
        """The operator's first `nodetool cms reconfigure`, at the CEP's sizing policy."""
        self.cms_target = AUTO
        self.trace.event("cms_target", "-", "-", "policy")
        for node in self.nodes.values():
            if node is not None:
                node.reconfiguration.poll()

    def _start_discovery(self, node_id: str) -> None:
        node = self.nodes.get(node_id)
        init = self.scenario.initialize
        if node is None or init is None or self.clock.now < init.at:
            return  # a node down then starts discovering when it restarts
        node.discovery.start(init.seeds, init.discovery_rounds, init.discovery_timeout)

    def _start_election(self, initiator: str, ignore: tuple[str, ...]) -> None:
        node = self.nodes.get(initiator)
        if node is None:
            return
        node.election = Election(node, ignore)
        node.election.start()

    def _schedule(self) -> None:
        s = self.scenario
        q = self.queue
        submissions = list(s.submissions)
        for w in s.workloads:
            # why generate all and keep `only`: the kept ones stay what they were (shrinking)
            generated = generate(w, self.rng, self.node_ids, self._dcs)
            submissions.extend(generated if w.only is None else _only(generated, w.only))
        for sub in submissions:
            q.at(sub.at, self._submit, sub)
        value = 1
        for cw in s.clients:
            ops = client_workload.generate(cw, self.rng, self.node_ids, value)
            value += sum(1 for op in ops if op.f == "write")
            for op in (ops if cw.only is None else _only(ops, cw.only)):
                q.at(op.at, self._client_op, op)
        for o in s.operations:
            q.at(o.at, self._begin_operation, o)
        for cancel in s.cancels:
            q.at(cancel.at, self._cancel_operation, cancel)
        for c in s.crashes:
            q.at(c.at, self._crash, c.node)
            if c.restart is not None:
                q.at(c.restart, self._restart, c.node)
        for i, p in enumerate(s.partitions):
            name = f"p{i}"
            q.at(p.start, self.bus.partition, name, p.groups, self.node_ids)
            if p.heal is not None:
                q.at(p.heal, self._heal, name)
        for ch in s.cms_changes:
            q.at(ch.at, self._set_target, ch.members)
        if s.cms_size is None and s.cms_members is None and s.cms_reconfigure_at:
            q.at(s.cms_reconfigure_at, self._reconfigure_by_policy)
        if s.initialize is not None and s.initialize.discovery_rounds:
            for nid in self.node_ids:
                q.at(s.initialize.at, self._start_discovery, nid)
        elif s.initialize is not None:
            q.at(s.initialize.at, self._start_election, s.initialize.initiator,
                 s.initialize.ignore)
        for node in self.nodes.values():
            assert node is not None
            node.timer(self.decisions.randrange(f"gossip-timer {node.id}",
                                                self.settings.gossip_interval_ns),
                       node.gossip_round, work=False)
            q.at(0, node.reconfiguration.poll)

    def _heal(self, name: str) -> None:
        self.bus.heal(name, self.node_ids)
        # why: after a heal, peers exchange status right away (as gossip would on reconnect)
        for node in self.nodes.values():
            if node is not None:
                node.gossip_round_once()

    # --- the step API: a driver (strategies/system_machine.py) adds events as it goes ---

    def _now(self, fn: Any, *args: Any) -> None:
        if not self._scheduled:
            self._scheduled = True
            self._schedule()
        self.queue.at(self.clock.now, fn, *args)

    def submit(self, node: str, transformation: str) -> None:
        self._now(self._submit, Submission(node=node, at=self.clock.now, transformation=transformation))

    def client(self, op: client_workload.ClientOp) -> None:
        self._now(self._client_op, op)

    def begin_operation(self, o: Operation) -> None:
        self._now(self._begin_operation, o)

    def cancel_operation(self, node: str) -> None:
        self._now(self._cancel_operation, Cancel(node=node, at=self.clock.now))

    def crash(self, node: str) -> None:
        self._now(self._crash, node)

    def restart(self, node: str) -> None:
        self._now(self._restart, node)

    def partition(self, name: str, groups: tuple[tuple[str, ...], ...]) -> None:
        self._now(self.bus.partition, name, groups, self.node_ids)

    def heal(self, name: str) -> None:
        self._now(self._heal, name)

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
                    or node.coordinator.busy or node.operation.busy:
                return False
            epochs.add(node.log.applied)
        return len(epochs) <= 1

    def run(self) -> RunResult:
        """Run to quiescence or the end time (continuing from wherever `run_until` stopped)."""
        quiescent = self._run(self.settings.end_time_ns, stop_when_quiet=True)
        return self._result(quiescent or self._quiescent())

    def run_until(self, t: int) -> None:
        """Process every event up to virtual time `t` (tests inspect the cluster in between)."""
        self._run(min(t, self.settings.end_time_ns), stop_when_quiet=False)

    def _run(self, end: int, *, stop_when_quiet: bool) -> bool:
        if not self._scheduled:
            self._scheduled = True
            self._schedule()
        queue = self.queue
        while True:
            t = queue.peek_time()
            if t is None or t > end:
                if not stop_when_quiet and self.clock.now < end:
                    self.clock.advance_to(end)
                return False
            ev = queue.pop()
            assert ev is not None
            ev.fn(*ev.args)
            if stop_when_quiet and queue.pending_work == 0 and self._quiescent():
                return True

    def _advance_applied(self, node_id: str, epoch: int, how: str) -> None:
        last = self._last_applied.get(node_id, 0)
        if epoch < last:
            self.epoch_regressions.append(f"{node_id} {how} epoch {epoch} after {last}")
        self._last_applied[node_id] = max(last, epoch)

    def _hold(self, node_id: str, metadata: Any, epoch: int, when: str) -> None:
        newest = self.disks[node_id].placement_epochs.newest
        if newest > epoch:
            # a replica would then refuse coordinators at its own epoch (COORDINATOR_BEHIND)
            self.epoch_regressions.append(f"{node_id} at epoch {epoch} ({when}) holds a placement "
                                          f"last modified at epoch {newest}")
        view = metadata_view(metadata)
        if view is not None:
            self.holdings.append((node_id, epoch, when, view))

    def _could_finish(self, node: Node, st: dict[str, Any]) -> bool:
        meta = node.log.metadata
        if not hasattr(meta, "barrier_groups"):
            return False
        excluded = st["target"] if st["op"] in ("replace", "remove") else None
        groups = [(frozenset(r) | frozenset(w)) - {excluded}
                  for _, _, r, w in meta.barrier_groups(st["seq_node"])]
        up = {n for n in self.node_ids if self.is_up(n)}

        def dc_of(n: str) -> str:
            return str(meta.node_location(n)[0]) if n in meta.directory else ""

        return satisfied(self.settings.barrier_min_consistency, groups, up, dc_of, dc_of(node.id))

    def _result(self, quiescent: bool) -> RunResult:
        unfinished = []
        for nid in self.node_ids:
            live = self.nodes.get(nid)
            if live is not None:
                self._hold(nid, live.log.metadata, live.log.applied, "end")
                st = live.operation.state
                if live.operation.busy and st is not None:
                    unfinished.append((nid, str(st["op"]), self._could_finish(live, st)))
        nodes = []
        final = 0
        for nid in self.node_ids:
            disk = self.disks[nid]
            live = self.nodes.get(nid)
            applied = live.log.applied if live is not None else _disk_applied(disk)
            chain = live.log.chain if live is not None else _disk_chain(disk)
            final = max(final, applied)
            nodes.append(NodeResult(
                id=nid, up=live is not None, applied_epoch=applied, log_hash=chain,
                first_epoch=disk.base.epoch + 1,
                entries=tuple(disk.entries[e] for e in sorted(disk.entries)),
                snapshot_epochs=tuple(s.epoch for s in disk.snapshots)))
        return RunResult(
            seed=self.seed, trace_hash=self.trace.hexdigest(), trace_events=self.trace.total,
            final_epoch=final, end_time=self.clock.now, quiescent=quiescent,
            nodes=tuple(nodes), history=tuple(self.history.ops),
            counters=tuple(sorted((k, v) for k, v in self.counters.items() if v)),
            conflicts=tuple(self.conflicts), apply_failures=tuple(self.apply_failures),
            trace=tuple(self.trace.lines), operations=tuple(self.operation_outcomes),
            holdings=tuple(self.holdings), epoch_regressions=tuple(self.epoch_regressions),
            unfinished=tuple(unfinished), replica_cells=self._replica_cells(),
            decisions=tuple(self.decisions.taken), streams=tuple(self.stream_records),
            installs=tuple(self.installs))

    def _replica_cells(self) -> tuple[tuple[str, str, tuple[tuple[str, int, int], ...]], ...]:
        live = [n for n in self.nodes.values() if n is not None]
        if not live or not self.scenario.clients:
            return ()
        meta = max(live, key=lambda n: n.log.applied).log.metadata
        if not hasattr(meta, "read_replicas"):
            return ()
        keys = sorted({op.key for op in self.history.ops if op.key is not None})
        out = []
        for ks in sorted({c.keyspace for c in self.scenario.clients}):
            if ks not in getattr(meta, "keyspaces", {}):
                continue
            for key in keys:
                cells = []
                for r in meta.read_replicas(ks, token_of(key)):
                    if self.nodes.get(r) is not None:
                        cell = self.disks[r].data.get((ks, key))
                        cells.append((r, -1, -1) if cell is None else (r, cell[0], cell[1]))
                out.append((ks, key, tuple(cells)))
        return tuple(out)


def metadata_view(metadata: Any) -> str | None:
    """What a node's metadata says about the cluster, as canonical JSON: placements, each node's
    state and tokens, the CMS read and write sets (None for an engine without placements)."""
    if not hasattr(metadata, "placements_json"):
        return None
    nodes = {n: [metadata.node_state(n).value, list(metadata.tokens_of(n))] for n in metadata.directory}
    return canonical_json({"epoch": metadata.epoch, "placements": metadata.placements_json(),
                           "nodes": nodes, "cms": [sorted(metadata.cms_members()),
                                                   sorted(metadata.cms_write_members())]})


def _only(items: list[Any], keep: tuple[int, ...]) -> list[Any]:
    """The generated items whose index is in `keep` (a shrunk workload)."""
    wanted = set(keep)
    return [x for i, x in enumerate(items) if i in wanted]


def _disk_applied(disk: Disk) -> int:
    return max(disk.entries, default=disk.base.epoch)


def _disk_chain(disk: Disk) -> str:
    if disk.entries:
        return disk.chains[max(disk.entries)]
    return disk.base.chain


def run_scenario(scenario: Scenario, seed: int, *, engine: Engine | None = None,
                 keep_trace: bool = False, record_decisions: bool = False) -> RunResult:
    """Run one simulation; the same scenario, seed and code always give the same result.
    `record_decisions` keeps the non-default decisions in `RunResult.decisions` (they are
    always kept for a scenario that carries a decision list)."""
    return Cluster(scenario, seed, engine=engine, keep_trace=keep_trace,
                   record_decisions=record_decisions).run()
