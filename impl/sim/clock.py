"""Virtual time in integer nanoseconds; it only moves forward, and only when the queue says so."""

from __future__ import annotations

NS_PER_MS = 1_000_000


def ms_to_ns(ms: float) -> int:
    return int(round(ms * NS_PER_MS))


class VirtualClock:
    __slots__ = ("now",)

    def __init__(self) -> None:
        self.now = 0

    def advance_to(self, t: int) -> None:
        # why: events are popped in time order, so going backwards means the queue is broken
        assert t >= self.now, (t, self.now)
        self.now = t
