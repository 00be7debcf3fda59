"""A node: local log, fetcher, submitter, and the CMS roles (acceptor, proposer service,
reconfiguration driver) that it plays while the metadata says it is a member.

Every message in either direction carries the sender's epoch; on receipt, a higher epoch than
the node has applied makes the fetcher catch up from that peer. A crash drops this object
(memory) and keeps `disk`; a restart builds a new Node on the same disk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from impl import bugs
from impl.cms.election import Discovery, Election
from impl.cms.paxos import Acceptor
from impl.cms.reconfiguration import ReconfigurationDriver
from impl.cms.service import CmsService
from impl.engine import Executor
from impl.entry import Entry, Snapshot
from impl.messages import (
    Accept,
    Accepted,
    Commit,
    DiscoverRequest,
    DiscoverResponse,
    Echo,
    EchoReply,
    ElectionAck,
    ElectionPrepare,
    FetchLog,
    Gossip,
    GossipReply,
    LogEntries,
    Message,
    Mutation,
    MutationAck,
    Nack,
    Prepare,
    Promise,
    Read,
    ReadResponse,
    StreamComplete,
    StreamData,
    Streamed,
    StreamLog,
    StreamRequest,
    Submit,
    SubmitResult,
    WatermarkRequest,
    WatermarkResponse,
)
from impl.node.coordinator import Coordinator
from impl.node.failure_detector import FailureDetector
from impl.node.fetcher import PeerLogFetcher
from impl.node.hints import HintsService
from impl.node.host import World
from impl.node.log import Disk, LocalLog
from impl.node.operation import OperationDriver
from impl.node.operator import OperatorCommands
from impl.node.repair import RepairService
from impl.node.replica import Replica
from impl.node.submitter import Submitter
from impl.settings import Settings
from impl.sim.decisions import Decisions
from impl.sim.events import Event
from impl.sync_messages import (
    HintAck,
    HintBatch,
    RepairRows,
    RepairSync,
    RepairSyncComplete,
    ValidationRequest,
    ValidationResponse,
)
from observed.run import ApplyFailure


class Node:
    def __init__(self, *, node_id: str, index: int, world: World, disk: Disk,
                 restarted: bool = False) -> None:
        """The node's parts, then its verb table (past 60 lines: every verb the node answers,
        and which of them reveal an epoch, are read best side by side in one place)."""
        self.id = node_id
        self.index = index
        self.world = world
        cluster = world
        self.disk = disk
        self.alive = True
        self.settings: Settings = cluster.settings
        self.counters = cluster.counters
        self.trace = cluster.trace
        self.history = cluster.history
        self.decisions: Decisions = cluster.decisions
        self.executor: Executor = cluster.executor
        self._queue = cluster.queue
        self.acceptor = Acceptor(self)
        self.service = CmsService(self)
        self.submitter = Submitter(self)
        self.fetcher = PeerLogFetcher(self)
        self.reconfiguration = ReconfigurationDriver(self)
        self._stream_waiters: dict[str, int] = {}
        self.election: Election | None = None
        self.discovery = Discovery(self, self._nominate)
        self.log = LocalLog(disk=disk, executor=cluster.executor,
                            snapshot_interval=self.settings.snapshot_interval,
                            on_apply=self._on_apply, on_apply_failure=self._on_apply_failure,
                            mutants=self.settings.mutants)
        disk.placement_epochs.observe(self.log.metadata)
        self.failure_detector = FailureDetector(self, world.node_ids, restarted=restarted)
        self.hints = HintsService(self)
        self.repair = RepairService(self)
        self.replica = Replica(self)
        self.coordinator = Coordinator(self, world.skew_of(node_id), self.next_request_id)
        self.operation = OperationDriver(self)
        self.operator = OperatorCommands(self)
        self._handlers: dict[type, Callable[[Any], None]] = {
            Prepare: self.acceptor.on_prepare,
            Accept: self.acceptor.on_accept,
            Promise: self._on_promise,
            Accepted: self._on_accepted,
            Nack: self._on_nack,
            Commit: self.acceptor.on_commit,
            Submit: self.service.on_submit,
            SubmitResult: self.submitter.on_result,
            FetchLog: self._on_fetch,
            LogEntries: self._on_entries,
            Gossip: self._on_gossip,
            GossipReply: self._on_gossip_reply,
            Echo: self.failure_detector.on_echo,
            EchoReply: self.failure_detector.on_echo_reply,
            StreamLog: self._on_stream_log,
            Streamed: self.reconfiguration.on_streamed,
            ElectionPrepare: self._on_election_prepare,
            ElectionAck: self._on_election_ack,
            DiscoverRequest: self.discovery.on_request,
            DiscoverResponse: self.discovery.on_response,
            Mutation: self.replica.on_mutation,
            MutationAck: self.coordinator.on_mutation_ack,
            Read: self.replica.on_read,
            ReadResponse: self.coordinator.on_read_response,
            WatermarkRequest: self._on_watermark_request,
            WatermarkResponse: self._on_watermark,
            StreamRequest: self.replica.on_stream_request,
            StreamData: self.replica.on_stream_data,
            StreamComplete: self.operation.on_stream_complete,
            HintBatch: self.replica.on_hint,
            HintAck: self.hints.on_ack,
            ValidationRequest: self.repair.on_validation_request,
            ValidationResponse: self.repair.on_validation_response,
            RepairSync: self.repair.on_repair_sync,
            RepairRows: lambda m: self.repair.on_repair_rows(m, self.replica.store),
            RepairSyncComplete: self.repair.on_sync_complete,
        }
        # why: in gossip mode metadata is learnt only from the log's own traffic (commits,
        # the CMS protocol), never from the epoch a data or status message happens to carry.
        # In TCM mode every verb whose handler catches up reveals its sender's epoch (mutation,
        # read, response, gossip, current-epoch request, the TCM verbs), but not streaming:
        # Cassandra's stream messages travel on streaming channels as StreamMessages, which
        # carry no epoch (catch-up points: AbstractMutationVerbHandler,
        # ReadCommandVerbHandler, ResponseVerbHandler, GossipVerbHandler,
        # CurrentEpochRequestHandler). The handlers of an echo request and of a hint do not
        # catch up (their answers, responses, do: ResponseVerbHandler); repair ignores TCM (its
        # verbs and streams carry no epoch a handler acts on)
        self._reveals_epoch = frozenset(
            (Prepare, Accept, Promise, Accepted, Nack, Commit, Submit, SubmitResult, FetchLog,
             StreamLog, Streamed, ElectionPrepare, ElectionAck)
        ) if self.settings.mode == "gossip" else frozenset(self._handlers) - {
            StreamRequest, StreamData, StreamComplete, Echo, HintBatch, ValidationRequest,
            ValidationResponse, RepairSync, RepairRows, RepairSyncComplete}

    # --- plumbing ---

    def send(self, dst: str, msg: Message) -> None:
        self.world.bus.send(self.id, dst, msg)

    def timer(self, delay: int, fn: Callable[..., Any], *args: Any, work: bool = True) -> Event:
        return self._queue.after(delay, self._fire, fn, args, work=work)

    def _fire(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        if self.alive:
            fn(*args)

    def cancel(self, ev: object) -> None:
        if isinstance(ev, Event):
            self._queue.cancel(ev)

    def sees_alive(self, peer: str) -> bool:
        """Whether this node sees `peer` alive (itself: always): what its operator commands and
        CMS reconfigurations go by (FailureDetector.isAlive on the node that runs them)."""
        return self.failure_detector.is_alive(peer)

    def pick_cms_member(self, avoid: str = "") -> str:
        members = list(self.executor.members(self.log.metadata))
        if len(members) > 1 and avoid in members:
            members.remove(avoid)
        if not members:
            return avoid or self.id
        return members[self.decisions.randrange(f"cms-peer {self.id}", len(members))]

    def next_request_id(self) -> int:
        """Data-path and streaming request ids, persisted so that a restarted node never
        mistakes a reply to its former self for a reply to a new request."""
        self.disk.next_request_id += 1
        return self.disk.next_request_id

    def crash(self) -> None:
        self.alive = False
        self.coordinator.crash()
        self.submitter.crash()
        self.operator.crash()
        if self.election is not None:
            self.election.crash()
        self.fetcher.reset()

    # --- receiving ---

    def deliver(self, msg: Message) -> None:
        if msg.epoch > self.log.applied and type(msg) is not LogEntries and (
                type(msg) in self._reveals_epoch):
            if type(msg) is Commit:
                self.log.offer(msg.entry)
            if msg.epoch > self.log.applied:
                self.fetcher.want(msg.epoch, msg.sender)
        self._handlers[type(msg)](msg)

    def _on_watermark(self, msg: WatermarkResponse) -> None:
        self.operation.on_watermark(msg)
        self.operator.on_watermark(msg)  # a two-epoch cancel's barrier (fix two-epoch-cancel)

    def _on_promise(self, msg: Promise) -> None:
        if self.service.active is not None:
            self.service.active.on_promise(msg)

    def _on_accepted(self, msg: Accepted) -> None:
        if self.service.active is not None:
            self.service.active.on_accepted(msg)

    def _on_nack(self, msg: Nack) -> None:
        if msg.committed is not None:
            self.log.offer(msg.committed)
        if self.service.active is not None:
            self.service.active.on_nack(msg)

    def commit_and_push(self, entry: Entry) -> None:
        """A value was chosen: apply it here, then push it to every node (best effort)."""
        self.log.offer(entry)
        msg = Commit(sender=self.id, epoch=max(self.log.applied, entry.epoch), entry=entry)
        gossip = self.settings.mode == "gossip"
        members = self.executor.write_members(self.log.metadata)
        for other in self.world.node_ids:
            if other == self.id:
                continue
            if gossip and other not in members:
                # why: gossip-era metadata reaches each node after its own random delay
                self.timer(self.decisions.randrange(f"gossip-spread {self.id}>{other}",
                                                    self.settings.gossip_spread_ns),
                           self.send, other, msg)
            else:
                self.send(other, msg)

    def _on_fetch(self, msg: FetchLog) -> None:
        snap, entries = self.log.serve(msg.after,
                                       snapshot_if_behind=self.settings.snapshot_catchup_threshold)
        self.send(msg.sender, LogEntries(sender=self.id, epoch=self.log.applied,
                                         request_id=msg.request_id, snapshot=snap,
                                         entries=entries))

    def _on_entries(self, msg: LogEntries) -> None:
        self.fetcher.on_entries(msg, self._apply_fetched)

    def _apply_fetched(self, msg: LogEntries) -> None:
        log = self.log
        if msg.snapshot is not None and log.install(msg.snapshot):
            self.counters["snapshot_catchups"] += 1
        for entry in msg.entries:
            log.offer(entry)
        if msg.epoch > log.applied:
            self.fetcher.want(msg.epoch, msg.sender)

    def _on_gossip(self, msg: Gossip) -> None:
        # GossipDigestSynVerbHandler.doVerb answers every SYN with a GossipDigestAck (trunk
        # 6bbe85ef l.108-113: createNormalReply, then MessagingService.send(..., from)), so a
        # node learns heartbeats from the peers it picks as well as from those that pick it
        self.failure_detector.on_heartbeats(msg.heartbeats)
        self.send(msg.sender, GossipReply(sender=self.id, epoch=self.log.applied,
                                          heartbeats=self.failure_detector.digest()))

    def _on_gossip_reply(self, msg: GossipReply) -> None:
        self.failure_detector.on_heartbeats(msg.heartbeats)

    def gossip_to(self, peer: str) -> None:
        self.send(peer, Gossip(sender=self.id, epoch=self.log.applied,
                               heartbeats=self.failure_detector.digest()))

    def start_periodic_tasks(self) -> None:
        """Gossip every `gossip_interval` and hint dispatch every `hint_dispatch_interval`, each
        from a random offset (periodic: they keep no run from ending)."""
        s = self.settings
        self.timer(self.decisions.randrange(f"gossip-timer {self.id}", s.gossip_interval_ns),
                   self.gossip_round, work=False)
        self.timer(self.decisions.randrange(f"hints-timer {self.id}", s.hint_dispatch_interval_ns),
                   self._dispatch_hints, work=False)

    def _dispatch_hints(self) -> None:
        self.hints.dispatch()
        self.timer(self.settings.hint_dispatch_interval_ns, self._dispatch_hints, work=False)

    def gossip_round(self) -> None:
        """One run of Cassandra's GossipTask: the heartbeat goes up, gossip goes out, then the
        status check convicts silent peers."""
        self.failure_detector.beat()
        self.gossip_round_once()
        self.failure_detector.interpret()
        self.timer(self.settings.gossip_interval_ns, self.gossip_round, work=False)

    def gossip_round_once(self) -> None:
        """Gossip to a random live member and, with probability unreachable / (live + 1), to a
        random unreachable one (doGossipToLiveMember, maybeGossipToUnreachableMember)."""
        fd = self.failure_detector
        decide = self.decisions
        # a decision's key is built only when keys are read (every node's every round asks)
        me = self.id if decide.recording else ""
        live = fd.live_members()
        if live:
            self.gossip_to(live[decide.randrange(me and f"gossip-peer {me}", len(live))])
        down = fd.unreachable_members()
        if down and decide.flip(me and f"gossip-unreachable {me}", len(down) / (len(live) + 1)):
            self.gossip_to(down[decide.randrange(me and f"gossip-down-peer {me}", len(down))])

    def _on_stream_log(self, msg: StreamLog) -> None:
        """Joining the CMS: catch up to `upto` from the driver, then say so."""
        if self.log.applied >= msg.upto:
            self.send(msg.sender, Streamed(sender=self.id, epoch=self.log.applied, upto=msg.upto))
            return
        self._stream_waiters[msg.sender] = msg.upto
        self.fetcher.want(msg.upto, msg.sender)

    def _on_watermark_request(self, msg: WatermarkRequest) -> None:
        self.send(msg.sender, WatermarkResponse(sender=self.id, epoch=self.log.applied,
                                                request_id=msg.request_id))

    def _nominate(self, ignore: tuple[str, ...]) -> None:
        """Discovery found no lower id: this node runs the Election (Startup's vote)."""
        self.election = Election(self, ignore)
        self.election.start()

    def _on_election_ack(self, msg: ElectionAck) -> None:
        if self.election is not None:
            self.election.on_ack(msg)

    def _on_election_prepare(self, msg: ElectionPrepare) -> None:
        mine = self.log.metadata.digest()
        self.send(msg.sender, ElectionAck(sender=self.id, epoch=self.log.applied,
                                          matches=(mine == msg.digest)))

    # --- applying ---

    def _on_apply(self, entry: Entry | None, snap: Snapshot | None) -> None:
        log = self.log
        if entry is not None:
            self.trace.event("apply", self.id, "-", entry.brief())
        else:
            assert snap is not None
            self.trace.event("install", self.id, "-", f"snapshot e{snap.epoch}")
        stamp = None
        if snap is not None and bugs.on(self.settings, "forced-snapshot-last-modified-ahead"):
            # CASSANDRA-19538: the forced state stamped as modified by the next epoch
            stamp = snap.epoch + 1
        # before the world looks (it checks what the node holds at an install)
        self.disk.placement_epochs.observe(log.metadata, stamp=stamp)
        self.world.observe_apply(self.id, entry, snap)
        self.acceptor.forget_upto(log.applied)
        if self.alive:
            self.service.on_log_advanced()
            self.reconfiguration.on_log_advanced()
            self.replica.on_log_advanced()
            self.coordinator.on_log_advanced()
            self.operation.on_log_advanced()
            if self._stream_waiters:
                for driver, upto in list(self._stream_waiters.items()):
                    if log.applied >= upto:
                        del self._stream_waiters[driver]
                        self.send(driver, Streamed(sender=self.id, epoch=log.applied, upto=upto))

    def _on_apply_failure(self, entry: Entry, reason: str) -> None:
        self.counters["apply_failures"] += 1
        self.trace.event("apply_failure", self.id, "-", f"{entry.brief()} {reason}")
        self.world.apply_failures.append(ApplyFailure(node=self.id, epoch=entry.epoch, reason=reason))
