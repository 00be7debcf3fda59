"""A node's failure detector: which peers it sees UP or DOWN, decided from gossip heartbeats
(Cassandra's gms/FailureDetector with its ArrivalWindow, and the Gossiper's heartbeat state,
convict/markDead, markAlive/echo/realMarkAlive and getEndpointDowntime, trunk 6bbe85ef).

- **Heartbeats.** Each node has a heartbeat `(generation, version)`: the generation counts the
  node's starts (kept on its Disk: Cassandra's generation is the start time), the version goes
  up at every gossip round (`GossipTask.run`: `updateHeartBeat()`). A gossip message carries
  every heartbeat the sender knows, and every one is answered with every heartbeat the receiver
  knows (GossipDigestSyn, then GossipDigestAck, which `GossipDigestSynVerbHandler.doVerb` always
  sends; the Ack2 is folded into the two).
- **Arrivals.** A heartbeat newer than the one known (`Gossiper.notifyFailureDetector`) is an
  arrival for that peer (`FailureDetector.report`): its `ArrivalWindow` keeps the last 1000
  inter-arrival times; the first arrival records `fd_initial_value` (2 gossip intervals) as an
  interval, and an interval longer than `fd_max_interval` (the same by default) is not recorded.
  A new generation of a peer seen DOWN clears its window first (a restart).
- **DOWN.** At the end of each gossip round (`doStatusCheck` -> `interpret`), a peer is
  convicted when `(now - last arrival) / mean interval * (1 / ln 10) > phi_convict_threshold`
  (default 8: about 18.4 mean intervals of silence), computed on integers with ln 10 as the
  fixed rational 2302585093 / 10^9, so no float rounding can differ between platforms.
  Conviction (`Gossiper.convict` -> `markDead` -> `silentlyMarkDead`) marks it DOWN and starts
  its downtime (`unreachableEndpoints.put(addr, nanoTime())`), which `downtime` reports
  (`getEndpointDowntime`; hinted handoff's `max_hint_window` is measured on it).
- **UP.** A newer heartbeat of a peer not seen UP (`applyStateLocally`: `markAlive`) sends it
  an `Echo`; only its `EchoReply`, over a real channel, marks it UP (`realMarkAlive`). A new
  generation (a restart) marks the peer not alive until that echo returns, without a downtime
  (`handleMajorStateChange` -> `markAlive`). Deviation: Cassandra echoes on any gossip that
  mentions a non-alive peer; here only on a newer heartbeat (the same outcome, fewer messages).
- **Start.** At time 0 the cluster has been running: every process knows every other, alive,
  at its first generation. A restarted node knows its peers from its disk, DOWN until gossip
  and an echo say otherwise (`Gossiper.addSavedEndpoint`), their downtime running from the
  restart.

Who asks it: the data path (write plans hint the replicas it sees down, reads avoid them, hints
are delivered to peers it sees up) and the operator checks (removenode and replace refuse a node
it sees alive). Not the progress barrier: Cassandra's ProgressBarrier never consults it (a down
peer simply does not answer). `is_alive`, `downtime`, `live_members` are the stable API.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from impl.messages import Echo, EchoReply
from observed.protocol import FdAlive, FdArrivals, FdConvict, FdStart, FdStatusCheck

if TYPE_CHECKING:
    from impl.node.host import Host


SETTLE_ROUNDS = 8
"""`Gossiper.waitToSettle` at a (re)start, in gossip rounds: GOSSIP_SETTLE_MIN_WAIT_MS (5000) then
GOSSIP_SETTLE_POLL_SUCCESSES_REQUIRED (3) polls of GOSSIP_SETTLE_POLL_INTERVAL_MS (1000), at
Cassandra's 1 s gossip interval (CassandraRelevantProperties, trunk 6bbe85ef)."""
SAMPLE_SIZE = 1000
"""Inter-arrival times kept per peer (FailureDetector.SAMPLE_SIZE)."""
LN10_NUM, LN10_DEN = 2302585093, 10**9
"""ln 10 as a fixed rational: phi * (1 / ln 10) > threshold  <=>  t * n * DEN > thr * sum * NUM."""
THRESHOLD_SCALE = 10**6
"""`phi_convict_threshold` is used in millionths (an integer)."""
_DIVISOR = LN10_DEN * THRESHOLD_SCALE
_NEVER = 1 << 80
"""Later than any virtual instant (int nanoseconds)."""


class ArrivalWindow:
    """One peer's heartbeat inter-arrival times (FailureDetector.ArrivalWindow)."""

    __slots__ = ("_intervals", "_sum", "t_last", "_factor", "deadline")

    def __init__(self, threshold_scaled: int) -> None:
        self._intervals: deque[int] = deque()
        self._sum = 0
        self.t_last: int | None = None
        self._factor = threshold_scaled * LN10_NUM
        self.deadline: int | None = None
        """The last instant at which the peer is not yet convicted (None: never)."""

    def add(self, now: int, initial: int, max_interval: int) -> None:
        # why no helper for the window's push: this runs for every heartbeat that arrives
        last = self.t_last
        interval: int | None
        if last is None:
            # "better to err high (false negatives ...) than low": the first interval assumed
            interval = initial
        elif now - last <= max_interval:
            interval = now - last
        else:
            interval = None
        if interval is not None:
            intervals = self._intervals
            intervals.append(interval)
            self._sum += interval
            if len(intervals) > SAMPLE_SIZE:
                self._sum -= intervals.popleft()
        self.t_last = now
        # phi(t) * PHI_FACTOR > threshold  <=>  (t - t_last) * n * DEN * SCALE > thr * sum * NUM
        #   <=>  t - t_last > floor(thr * NUM * sum / (n * DEN * SCALE))  (t an integer)
        if self._sum:
            self.deadline = now + self._factor * self._sum // (len(self._intervals) * _DIVISOR)

    def convicts(self, now: int) -> bool:
        """phi(now) * PHI_FACTOR > phi_convict_threshold, exactly (on integers)."""
        return self.deadline is not None and now > self.deadline


class FailureDetector:
    def __init__(self, node: Host, peers: Iterable[str], *, restarted: bool) -> None:
        self._node = node
        s = node.settings
        self._initial = s.fd_initial_value_ns or 2 * s.gossip_interval_ns
        self._max_interval = s.fd_max_interval_ns or self._initial
        self._threshold = round(s.phi_convict_threshold * THRESHOLD_SCALE)
        node.disk.generation += 1
        self.generation = node.disk.generation
        self.version = 0
        now = self._now()
        self._settled_at = now + SETTLE_ROUNDS * s.gossip_interval_ns if restarted else now
        self._entries: dict[str, tuple[str, int, int]] = {}
        """The newest heartbeat known of every node (this one's included), as its digest entry
        (node, generation, version): the digest is then one sort of ready tuples, which order by
        node id alone, ids being unique."""
        self._members: tuple[list[str], list[str]] | None = None
        """(live, unreachable), sorted; None when `_alive` changed since they were made."""
        self._windows: dict[str, ArrivalWindow] = {}
        self._quiet_until = -1
        """No peer seen UP can be convicted at or before this instant: at most the earliest
        deadline of their windows (exact after a status check scans them, lowered by an arrival
        or a revival that brings a deadline earlier). Why: a status check runs every gossip round,
        and a conviction is due in a small part of them."""
        self._alive: dict[str, bool] = {}
        self._down_since: dict[str, int] = {}
        for p in peers:
            if p == node.id:
                continue
            if restarted:
                # addSavedEndpoint: known from disk, DOWN, unreachable since now
                self._entries[p] = (p, 0, 0)
                self._alive[p] = False
                self._down_since[p] = now
            else:
                self._entries[p] = (p, 1, 0)
                self._alive[p] = True
                w = self._windows[p] = ArrivalWindow(self._threshold)
                w.add(now, self._initial, self._max_interval)
        self._entries[node.id] = (node.id, self.generation, self.version)
        self._digest: tuple[tuple[str, int, int], ...] | None = None
        node.world.protocol.emit(FdStart, node=node.id, generation=self.generation, restarted=restarted,
                                 peers=tuple(sorted(self._alive)))

    def _now(self) -> int:
        return self._node.world.queue.clock.now

    # --- the API the node's parts use ---

    def is_alive(self, peer_id: str) -> bool:
        """Whether this node sees `peer_id` UP (itself: always)."""
        return peer_id == self._node.id or self._alive.get(peer_id, False)

    def settled(self) -> bool:
        """Whether gossip has settled since this node (re)started (`Gossiper.waitToSettle`, which
        StorageService.initServer runs before a restarted node resumes its sequence: every peer
        forced DOWN first, then gossip for SETTLE_ROUNDS). The simulator resumes at once; until
        then this node's view of who is down is not yet Cassandra's."""
        return self._now() >= self._settled_at

    def heard_of(self, peer_id: str) -> bool:
        """Whether this node has had a heartbeat of `peer_id` since it (re)started (a saved
        endpoint not yet gossiped with is DOWN without a conviction)."""
        return peer_id == self._node.id or self._entries.get(peer_id, (peer_id, 0, 0))[1] != 0

    def downtime(self, peer_id: str) -> int:
        """Virtual ns since this node convicted `peer_id` (0 when it sees it UP, or saw it go
        down only through a restart it has not echoed yet): Gossiper.getEndpointDowntime."""
        since = self._down_since.get(peer_id)
        return 0 if since is None else self._now() - since

    def live_members(self) -> list[str]:
        """The peers seen UP, sorted (Gossiper.liveEndpoints, without this node). Not to be
        changed by the caller: it is kept until a peer goes UP or DOWN."""
        return self._split()[0]

    def unreachable_members(self) -> list[str]:
        """The peers seen DOWN, sorted (kept like `live_members`)."""
        return self._split()[1]

    def _split(self) -> tuple[list[str], list[str]]:
        # why kept: every gossip round asks, and a peer goes UP or DOWN far less often
        if self._members is None:
            alive = self._alive
            self._members = (sorted(p for p, up in alive.items() if up),
                             sorted(p for p, up in alive.items() if not up))
        return self._members

    # --- gossip ---

    def beat(self) -> None:
        """The start of a gossip round: this node's heartbeat goes up."""
        self.version += 1
        me = self._node.id
        self._entries[me] = (me, self.generation, self.version)
        self._digest = None

    def digest(self) -> tuple[tuple[str, int, int], ...]:
        if self._digest is None:
            self._digest = tuple(sorted(self._entries.values()))
        return self._digest

    def on_heartbeats(self, heartbeats: Iterable[tuple[str, int, int]]) -> None:
        """Apply gossiped heartbeats (notifyFailureDetector, then applyStateLocally)."""
        node = self._node
        now = self._now()
        entries = self._entries
        me = node.id
        arrived: list[tuple[str, int, int]] = []
        for entry in heartbeats:
            peer = entry[0]
            known = entries.get(peer)
            # (peer, generation, version) tuples of one peer order as its heartbeats do: one
            # comparison tells a heartbeat not newer than the one known (most of them)
            if known is not None and entry <= known or peer == me:
                continue
            gen = entry[1]
            self._digest = None
            restarted = known is None or gen > known[1]
            if restarted and not self._alive.get(peer, False):
                self._windows.pop(peer, None)  # "clearing interval times ... generation change"
            w = self._windows.get(peer)
            if w is None:
                w = self._windows[peer] = ArrivalWindow(self._threshold)
            w.add(now, self._initial, self._max_interval)
            if w.deadline is not None and w.deadline < self._quiet_until:
                self._quiet_until = w.deadline
            arrived.append(entry)
            entries[peer] = entry
            if restarted:
                # handleMajorStateChange -> markAlive: not alive until the echo comes back
                self._alive[peer] = False
                self._members = None
            if not self._alive[peer]:
                node.send(peer, Echo(sender=node.id, epoch=node.log.applied))
        if arrived:
            node.world.protocol.emit(FdArrivals, node=me, beats=tuple(arrived))

    def interpret(self) -> None:
        """The end of a gossip round (doStatusCheck): convict every silent peer seen UP."""
        node = self._node
        now = self._now()
        alive = self._alive
        node.world.protocol.emit(FdStatusCheck, node=node.id)
        if now <= self._quiet_until:
            return
        silent = []
        earliest = _NEVER
        for p, w in self._windows.items():
            deadline = w.deadline
            if deadline is not None and alive.get(p):
                if now > deadline:
                    silent.append(p)
                elif deadline < earliest:
                    earliest = deadline
        self._quiet_until = earliest  # the convicted are DOWN now: not among them
        # why the sort after the test: a conviction is rare, and they happen in peer order
        for peer in sorted(silent):
            self._alive[peer] = False
            self._members = None
            self._down_since[peer] = now
            node.counters["fd_convictions"] += 1
            node.trace.event("fd", node.id, peer, "down")
            node.world.protocol.emit(FdConvict, node=node.id, peer=peer)

    def on_echo(self, msg: Echo) -> None:
        node = self._node
        node.send(msg.sender, EchoReply(sender=node.id, epoch=node.log.applied))

    def on_echo_reply(self, msg: EchoReply) -> None:
        """realMarkAlive: the peer answered over a real channel."""
        peer = msg.sender
        if peer == self._node.id or self._alive.get(peer, False):
            return
        self._alive[peer] = True
        self._members = None
        w = self._windows.get(peer)
        if w is not None and w.deadline is not None and w.deadline < self._quiet_until:
            self._quiet_until = w.deadline
        self._node.world.protocol.emit(FdAlive, node=self._node.id, peer=peer)
        was_down = self._down_since.pop(peer, None) is not None
        if was_down:
            self._node.counters["fd_revivals"] += 1
        self._node.trace.event("fd", self._node.id, peer, "up")
