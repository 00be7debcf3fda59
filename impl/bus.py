"""The message bus between nodes.

What the bus may do to a message, and nothing else:
- **delay** it by a latency drawn from the configured distribution (so messages reorder
  whenever a later one draws a shorter delay; `reorder` adds, with that probability, an extra
  delay of up to `reorder_extra` on top);
- **drop** it: with probability `loss`, or when either end is down (crashed) at send or at
  delivery, or when the two ends are on different sides of an active partition at send or at
  delivery;
- **duplicate** it with probability `duplicate` (the copy draws its own delay);
- **partition** the nodes into groups that cannot reach each other until healed.
It never corrupts, invents or reorders a message beyond the above. A message from a node to
itself skips the network (no delay, loss or duplication) but is still traced and counted.
Every random choice is a decision (impl/sim/decisions.py) drawn from the cluster's one
`random.Random`, or replayed from a decision list: `loss`, `dup` (flips, default deliver /
no copy), `delay` (default the latency floor) and `reorder` (the extra delay, default 0), each
keyed by sender, receiver and message type.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from attrs import frozen

from impl.messages import Message
from impl.sim.clock import ms_to_ns
from impl.sim.decisions import Decisions
from impl.sim.events import EventQueue
from impl.trace import Trace


@frozen(kw_only=True)
class Latency:
    """A latency distribution in milliseconds: "fixed" (`a`), "uniform" [a, b],
    "exponential" (mean `a`, plus `b` as a floor), or "lognormal" (median `a`, sigma `b`)."""

    dist: str = "uniform"
    a: float = 1.0
    b: float = 5.0

    def sampler(self, rng: random.Random) -> Callable[[], int]:
        sample, _ = self.draw()
        return lambda: sample(rng)

    def draw(self) -> tuple[Callable[[random.Random], int], int]:
        """A sample function of the RNG, and the floor a replayed delay defaults to (for
        lognormal, which has none, the median)."""
        a, b = self.a, self.b
        if self.dist == "fixed":
            v = ms_to_ns(a)
            return (lambda rng: v), v
        if self.dist == "uniform":
            lo, hi = ms_to_ns(a), ms_to_ns(b)
            return (lambda rng: rng.randint(lo, hi)), lo
        if self.dist == "exponential":
            rate = 1.0 / max(a, 1e-9)
            floor = ms_to_ns(b)
            return (lambda rng: floor + int(rng.expovariate(rate) * 1_000_000)), floor
        if self.dist == "lognormal":
            mu = math.log(max(a, 1e-9))
            return (lambda rng: int(rng.lognormvariate(mu, b) * 1_000_000)), ms_to_ns(a)
        raise ValueError(f"unknown latency distribution {self.dist!r}")


@frozen(kw_only=True)
class NetworkFaults:
    loss: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    reorder_extra_ms: float = 20.0
    latency: Latency = Latency()


class Bus:
    def __init__(
        self,
        *,
        queue: EventQueue,
        decisions: Decisions,
        trace: Trace,
        counters: dict[str, int],
        faults: NetworkFaults,
        deliver: Callable[[str, Message], None],
        is_up: Callable[[str], bool],
    ) -> None:
        self._queue = queue
        self._decisions = decisions
        self._trace = trace
        self._counters = counters
        self._deliver = deliver
        self._is_up = is_up
        self.set_faults(faults)
        # node -> the tuple of its group index in each active partition; equal tuples can talk
        self._side: dict[str, tuple[int, ...]] = {}
        self._partitions: list[tuple[str, dict[str, int]]] = []
        self.in_flight = 0

    def set_faults(self, faults: NetworkFaults) -> None:
        """From now on, send under `faults` (messages in flight keep their fate)."""
        self._faults = faults
        self._latency, self._floor = faults.latency.draw()
        self._fixed = faults.latency.dist == "fixed"
        extra = self._reorder_extra = ms_to_ns(faults.reorder_extra_ms)
        p = faults.reorder
        # why one decision for the two draws: "no reorder" and "reorder by 0" are one delay
        self._reorder: Callable[[random.Random], int] | None = (
            (lambda r: r.randint(0, extra) if r.random() < p else 0) if p else None)

    # --- partitions ---

    def partition(self, name: str, groups: tuple[tuple[str, ...], ...], nodes: list[str]) -> None:
        """Split `nodes` into `groups`; nodes in no group form one more group together."""
        side: dict[str, int] = {}
        for i, group in enumerate(groups):
            for n in group:
                side[n] = i
        for n in nodes:
            side.setdefault(n, len(groups))
        self._partitions.append((name, side))
        self._recompute(nodes)
        self._trace.event("partition", name, "-", "|".join(",".join(g) for g in groups))

    def heal(self, name: str, nodes: list[str]) -> None:
        self._partitions = [(n, s) for n, s in self._partitions if n != name]
        self._recompute(nodes)
        self._trace.event("heal", name)

    def _recompute(self, nodes: list[str]) -> None:
        self._side = {n: tuple(s[n] for _, s in self._partitions) for n in nodes}

    def reachable(self, a: str, b: str) -> bool:
        return not self._partitions or self._side[a] == self._side[b]

    # --- sending ---

    def send(self, src: str, dst: str, msg: Message) -> None:
        counters = self._counters
        counters["messages_sent"] += 1
        trace = self._trace
        brief = msg.brief()
        trace.event("send", src, dst, brief)
        if src == dst:
            self.in_flight += 1
            self._queue.after(0, self._arrive, dst, msg, brief)
            return
        faults = self._faults
        decide = self._decisions
        if not self._is_up(dst) or (self._partitions and self._side[src] != self._side[dst]):
            self._drop(src, dst, brief, "unreachable")
            return
        # a decision's key names the link; built only when keys are read (a hot path)
        link = f"{src}>{dst} {type(msg).__name__}" if decide.recording else ""
        if faults.loss and decide.flip("loss " + link, faults.loss):
            self._drop(src, dst, brief, "lost")
            return
        self.in_flight += 1
        self._queue.after(self._delay(link), self._arrive, dst, msg, brief)
        if faults.duplicate and decide.flip("dup " + link, faults.duplicate):
            counters["messages_duplicated"] += 1
            trace.event("duplicate", src, dst, brief)
            self.in_flight += 1
            self._queue.after(self._delay(link), self._arrive, dst, msg, brief)

    def _delay(self, link: str) -> int:
        decide = self._decisions
        d = self._floor if self._fixed else decide.draw("delay " + link, self._latency, self._floor,
                                                        lo=0)
        if self._reorder is not None:
            d += decide.draw("reorder " + link, self._reorder, 0, lo=0, hi=self._reorder_extra)
        return d

    def _arrive(self, dst: str, msg: Message, brief: str) -> None:
        self.in_flight -= 1
        src = msg.sender
        if src != dst and (
            not self._is_up(dst) or (self._partitions and self._side[src] != self._side[dst])
        ):
            self._drop(src, dst, brief, "unreachable")
            return
        self._trace.event("deliver", dst, src, brief)
        self._counters["messages_delivered"] += 1
        self._deliver(dst, msg)

    def _drop(self, src: str, dst: str, brief: str, why: str) -> None:
        self._counters["messages_dropped"] += 1
        self._trace.event("drop", src, dst, f"{why} {brief}")


