"""The event queue: a heap of (time, sequence number, event).

The sequence number breaks ties between events at the same virtual instant in the order they
were scheduled, so the order of execution depends only on the seed and the code (and, being
unique, it keeps the heap from ever comparing two events). A cancelled event stays in the heap
and is skipped when popped (cheaper than removing it).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

from impl.sim.clock import VirtualClock


class Event:
    __slots__ = ("time", "fn", "args", "cancelled", "work")

    def __init__(self, time: int, fn: Callable[..., Any], args: tuple[Any, ...],
                 work: bool) -> None:
        self.time = time
        self.fn = fn
        self.args = args
        self.cancelled = False
        # why: periodic background events (gossip rounds) do not keep a run from quiescing
        self.work = work


class EventQueue:
    """Schedules callbacks at virtual times; counts pending *work* events for quiescence."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self._heap: list[tuple[int, int, Event]] = []
        self._seq = 0
        self.pending_work = 0

    def at(self, time: int, fn: Callable[..., Any], *args: Any, work: bool = True) -> Event:
        self._seq += 1
        now = self.clock.now
        if time < now:
            time = now
        ev = Event(time, fn, args, work)
        heapq.heappush(self._heap, (time, self._seq, ev))
        if work:
            self.pending_work += 1
        return ev

    def after(self, delay: int, fn: Callable[..., Any], *args: Any, work: bool = True) -> Event:
        # `at` inlined (every message and timer comes through here)
        self._seq += 1
        time = self.clock.now + (delay if delay > 0 else 0)
        ev = Event(time, fn, args, work)
        heapq.heappush(self._heap, (time, self._seq, ev))
        if work:
            self.pending_work += 1
        return ev

    def cancel(self, ev: Event | None) -> None:
        if ev is not None and not ev.cancelled:
            ev.cancelled = True
            if ev.work:
                self.pending_work -= 1

    def pop_until(self, end: int) -> Event | None:
        """The next live event at or before `end` (the clock advanced to its time), or None when
        there is none (the clock then unmoved). One call a step: the run loop asks it for every
        event of a run."""
        heap = self._heap
        while heap:
            entry = heap[0]
            ev = entry[2]
            if ev.cancelled:
                heapq.heappop(heap)
                continue
            t = entry[0]
            if t > end:
                return None
            heapq.heappop(heap)
            ev.cancelled = True  # why: popped events are no longer pending; cancel() is a no-op
            if ev.work:
                self.pending_work -= 1
            clock = self.clock
            # events leave the heap in time order, and `at`/`after` never schedule in the past
            assert t >= clock.now, (t, clock.now)
            clock.now = t
            return ev
        return None

    def __len__(self) -> int:
        return len(self._heap)
