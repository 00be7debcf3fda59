"""Promise `failure detector`: a conviction follows a silence longer than the phi threshold allows
for that peer's arrival history; a revival follows contact (an echo), never a guess; and the
data path sees each peer UP or DOWN as the detector's history says (Cassandra's
`gms/FailureDetector` with its `ArrivalWindow`, and the `Gossiper`'s `convict`, `markAlive`,
`realMarkAlive`; impl/node/failure_detector.py).

Each node's view of each peer is rebuilt here, apart from impl's, from the trace in the order
the simulation took it: the detector's start (`FdStart`: every peer alive with one arrival at
time 0, or after a restart every peer DOWN), every heartbeat arrival (`FdArrivals`), every
conviction and every echo that marked a peer UP.
- **Arrivals.** An arrival is a heartbeat newer than the one known (generation, then version).
  Its window records the interval since the previous arrival when it is at most the maximum
  interval (`ArrivalWindow.add`: "if (interArrivalTime <= MAX_INTERVAL_IN_NANO)"), the initial
  value for a window's first arrival, and keeps the last 1000 (`SAMPLE_SIZE`). A new generation
  of a peer not seen UP clears its window first (a restart), and a new generation marks the peer
  not alive until an echo returns (`handleMajorStateChange` -> `markAlive`).
- **Conviction.** A node convicts a peer it sees UP, at an instant when `phi = t / mean` (the
  silence `t` since the last arrival over the window's mean interval) times `1 / ln 10` exceeds
  `phi_convict_threshold` (`FailureDetector.interpret`: "if (PHI_FACTOR * phi >
  getPhiConvictThreshold())"), compared exactly on integers with ln 10 as 2302585093 / 10^9 —
  the rational impl documents, so a verdict never hangs on a float's last bit.
- **Owed conviction.** A status check convicts every peer seen UP whose silence exceeds that
  threshold then (`doStatusCheck` interprets every endpoint): what it leaves UP is a conviction
  owed.
- **Revival.** A node marks a peer UP only when it does not see it UP and has had a heartbeat of
  it since it last saw it go DOWN (the echo `markAlive` sends answers that contact).
- **Use.** Every write plan names as down exactly the replicas the coordinator's view holds
  DOWN, and every write or read contact is UP in it: a view that changed without a conviction, a
  restart or an echo (a guess) shows there.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from attrs import frozen

from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from observed.protocol import (
    Event,
    FdAlive,
    FdArrivals,
    FdConvict,
    FdStart,
    FdStatusCheck,
    ReadPlan,
    WritePlan,
)

SAMPLE_SIZE = 1000
LN10_NUM, LN10_DEN = 2302585093, 10**9
THRESHOLD_SCALE = 10**6
_NEVER = 1 << 80
"""Later than any virtual instant (int nanoseconds)."""

PATHS = ("arrivals", "status checks", "convictions", "revivals", "restarts seen", "plans compared")
"""What this check judges in a run (the report's paths)."""


@frozen(kw_only=True)
class DetectorSettings:
    phi_convict_threshold: float
    initial_ns: int
    """The interval a window's first arrival records (`fd_initial_value`)."""
    max_interval_ns: int
    """The longest interval a window records (`fd_max_interval`)."""


class _View:
    """One node's view of one peer."""

    __slots__ = ("known", "alive", "intervals", "total", "last", "heard", "deadline")

    def __init__(self, known: tuple[int, int], alive: bool) -> None:
        self.known = known
        self.alive = alive
        self.intervals: deque[int] = deque()
        self.total = 0
        self.last: int | None = None
        self.heard = True
        """A heartbeat arrived since it was last seen going DOWN."""
        self.deadline: int | None = None
        """The last instant phi does not exceed the threshold at (None: no interval recorded)."""

    def arrive(self, t: int, s: DetectorSettings, threshold_scaled: int) -> None:
        if self.last is None:
            self._record(s.initial_ns)
        elif t - self.last <= s.max_interval_ns:
            self._record(t - self.last)
        self.last = t
        # (now - last) * n * DEN * SCALE > thr * total * NUM  <=>  now - last > floor(thr * total
        # * NUM / (n * DEN * SCALE)), now an integer: one comparison per peer at a status check
        self.deadline = t + threshold_scaled * self.total * LN10_NUM // (
            len(self.intervals) * LN10_DEN * THRESHOLD_SCALE) if self.total else None

    def _record(self, interval: int) -> None:
        self.intervals.append(interval)
        self.total += interval
        if len(self.intervals) > SAMPLE_SIZE:
            self.total -= self.intervals.popleft()

    def clear(self) -> None:
        self.intervals.clear()
        self.total = 0
        self.last = None
        self.deadline = None

    def phi_exceeds(self, t: int) -> bool:
        return self.deadline is not None and t > self.deadline

    def line(self, t: int) -> str:
        if self.last is None or not self.intervals:
            return "no arrival recorded"
        mean = self.total / len(self.intervals)
        silence = t - self.last
        return (f"last arrival {self.last / 1e9:.3f} s, silence {silence / 1e9:.3f} s, {len(self.intervals)} "
                f"intervals of mean {mean / 1e9:.3f} s: phi * (1 / ln 10) = {silence / mean / 2.302585093:.3f}")


def check_failure_detector(events: Iterable[Event], settings: DetectorSettings) -> ProtocolVerdict:
    """Every node's view of every peer, rebuilt and held to the detector's promise. One pass, one branch per event kind (past 60 lines: the
    state each branch updates is read best in one loop, and the pass stays linear in the trace)."""
    threshold = round(settings.phi_convict_threshold * THRESHOLD_SCALE)
    views: dict[str, dict[str, _View]] = {}
    due: _Due = {}
    judged = dict.fromkeys(PATHS, 0)
    out: list[Violation] = []

    def fail(e: Event, detail: str, *evidence: tuple[str, str]) -> None:
        out.append(Violation(invariant="failure detector", time=e.t, detail=detail, evidence=evidence))

    def view(node: str, peer: str) -> _View:
        of = views.setdefault(node, {})
        v = of.get(peer)
        if v is None:
            v = of[peer] = _View((0, 0), False)  # an unknown peer: DOWN (Gossiper.isAlive of no state)
        return v

    initial, max_interval = settings.initial_ns, settings.max_interval_ns
    # deadline = last + floor(thr * total * NUM / (n * DEN * SCALE)), as `_View.arrive`
    factor, divisor = threshold * LN10_NUM, LN10_DEN * THRESHOLD_SCALE
    arrivals = status_checks = 0
    quiet: dict[str, int] = {}
    """node -> an instant no peer it sees UP is past its deadline at or before (at most the
    earliest of their deadlines; absent: unknown). Why: a status check comes every gossip round,
    and most owe nothing."""
    for e in events:
        if type(e) is FdArrivals:
            # why inlined (the window push of `_View.arrive`): arrivals are most of the trace's
            # events, about 7,000 a run; `_View.arrive` stays the one statement of the rule, and
            # tests hold this pass to it
            t = e.t
            of = views.get(e.node)
            if of is None:
                of = views[e.node] = {}
            for peer, gen, ver in e.beats:
                arrivals += 1
                v = of.get(peer)
                if v is None:
                    v = of[peer] = _View((0, 0), False)  # an unknown peer: DOWN (Gossiper.isAlive of no state)
                known = v.known
                if (gen, ver) <= known:
                    fail(e, f"{e.node} took heartbeat ({gen}, {ver}) of {peer} as an arrival, not newer than "
                            f"({known[0]}, {known[1]}) it knew")
                restarted = gen > known[0]
                if restarted and not v.alive:
                    v.clear()  # "clearing interval times" at a generation change
                last = v.last
                if last is None:
                    interval = initial
                elif t - last <= max_interval:
                    interval = t - last
                else:
                    interval = -1  # not recorded (intervals are never negative)
                if interval >= 0:
                    intervals = v.intervals
                    intervals.append(interval)
                    v.total += interval
                    if len(intervals) > SAMPLE_SIZE:
                        v.total -= intervals.popleft()
                v.last = t
                v.deadline = t + factor * v.total // (len(v.intervals) * divisor) if v.total else None
                if v.deadline is not None and v.deadline < quiet.get(e.node, -1):
                    quiet[e.node] = v.deadline
                v.known = (gen, ver)
                v.heard = True
                if restarted:
                    if v.alive:
                        judged["restarts seen"] += 1
                    v.alive = False
        elif type(e) is FdStatusCheck:
            status_checks += 1
            t = e.t
            if due:
                _overdue(due, e.node, fail)
            if t > quiet.get(e.node, -1):  # else every peer it sees UP is within its deadline
                earliest = _NEVER
                for peer, v in views.get(e.node, {}).items():
                    if v.alive and v.deadline is not None:
                        if t > v.deadline:
                            due[(e.node, t, peer)] = (e, v.line(t))
                        if v.deadline < earliest:  # an owed one too: still owed at the next check
                            earliest = v.deadline
                quiet[e.node] = earliest
        elif isinstance(e, WritePlan | ReadPlan):
            judged["plans compared"] += 1
            of = views.get(e.coord, {})
            down = e.down if isinstance(e, WritePlan) else ()
            for r in e.contacts:
                if r != e.coord and not (r in of and of[r].alive):
                    fail(e, f"{e.coord} sent its {'write' if isinstance(e, WritePlan) else 'read'} of "
                            f"{e.keyspace}/{e.key} to {r} as UP, which its failure detector's history holds DOWN "
                            "(seen UP again with no echo since it went DOWN: a guess)",
                         ("view", _view_line(of, r, e.t)))
                    break
            for r in down:
                if r in of and of[r].alive:
                    fail(e, f"{e.coord} hinted {r} as DOWN in its write of {e.keyspace}/{e.key}, which its "
                            "failure detector's history holds UP (marked DOWN without a conviction)",
                         ("view", _view_line(of, r, e.t)))
                    break
        elif isinstance(e, FdConvict):
            judged["convictions"] += 1
            v = view(e.node, e.peer)
            if not v.alive:
                fail(e, f"{e.node} convicted {e.peer}, which its failure detector's history holds DOWN already "
                        "(seen UP again with no echo since it went DOWN: a guess)", ("view", _view_line(views[e.node], e.peer, e.t)))
            elif not v.phi_exceeds(e.t):
                fail(e, f"{e.node} convicted {e.peer} at {e.t / 1e9:.3f} s, before the silence exceeded what phi "
                        f"{settings.phi_convict_threshold:g} allows for its arrival history",
                     ("arrival history", v.line(e.t)))
            v.alive = False
            v.heard = False
            due.pop((e.node, e.t, e.peer), None)
        elif isinstance(e, FdAlive):
            judged["revivals"] += 1
            v = view(e.node, e.peer)
            if v.alive:
                fail(e, f"{e.node} marked {e.peer} UP, which it already saw UP")
            elif not v.heard:
                fail(e, f"{e.node} marked {e.peer} UP with no heartbeat of it since it saw it go DOWN "
                        "(an echo answers contact: a revival without one is a guess)",
                     ("arrival history", v.line(e.t)))
            v.alive = True
            if v.deadline is not None and v.deadline < quiet.get(e.node, -1):
                quiet[e.node] = v.deadline
        elif isinstance(e, FdStart):
            fresh: dict[str, _View] = {}
            for p in e.peers:
                if e.restarted:
                    v = _View((0, 0), False)
                    v.heard = False
                else:
                    v = _View((1, 0), True)
                    v.arrive(e.t, settings, threshold)
                fresh[p] = v
            views[e.node] = fresh
            quiet.pop(e.node, None)
        if len(out) >= MAX_VIOLATIONS:
            break
    else:
        for node in sorted({n for n, _, _ in due}):
            _overdue(due, node, fail)
    judged["arrivals"] += arrivals
    judged["status checks"] += status_checks
    return ProtocolVerdict(violations=tuple(out[:MAX_VIOLATIONS]), checked=judged["convictions"],
                           judged=tuple(judged.items()))


_Due = dict[tuple[str, int, str], tuple[FdStatusCheck, str]]
"""(node, status check's time, peer) -> (the check, the arrival history): convictions the node's
status check owes, each cleared by the conviction at the same instant."""


def _overdue(due: _Due, node: str, fail: Callable[..., None]) -> None:
    """The convictions `node`'s last status check owed and did not make fail."""
    for (n, t, peer), (check, history) in sorted(due.items()):
        if n == node:
            del due[(n, t, peer)]
            fail(check, f"{node}'s status check at {t / 1e9:.3f} s left {peer} UP, though its silence exceeded "
                        "what phi allows for its arrival history (a conviction is owed)", ("arrival history", history))


def _view_line(of: dict[str, _View], peer: str, t: int) -> str:
    v = of.get(peer)
    if v is None:
        return f"{peer}: never heard of"
    return f"{peer}: {'UP' if v.alive else 'DOWN'}, heartbeat {v.known}; {v.line(t)}"


__all__ = ["PATHS", "DetectorSettings", "check_failure_detector"]
