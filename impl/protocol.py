"""The protocol trace: what the data path, the progress barrier, streaming, hints and repair did,
as plain tuples the trace invariants (checkers/protocol/) judge.

The message trace (impl/trace.py) records what travelled; this records what the protocol
*decided* at each step — which replicas a coordinator planned at which epoch, who acknowledged,
what a replica served and at which of its epochs, which cell a node stored and how, when a node
applied an epoch. Every event is a tuple `(kind, time, field, ...)` of strings, integers and
tuples of them (picklable, comparable, no impl type), in the order the simulation took it; the
field order of each kind is documented in docs/simulate.md and parsed by
`checkers.protocol.events.parse`. It is not part of the trace hash (the hash stays the
fingerprint of the message schedule).

Nothing here decides anything: emitting an event never changes the run.
"""

from __future__ import annotations

from typing import Any

from impl.sim.clock import VirtualClock

Event = tuple[Any, ...]


class ProtocolLog:
    __slots__ = ("_clock", "events")

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock
        self.events: list[Event] = []

    def emit(self, kind: str, *fields: Any) -> None:
        self.events.append((kind, self._clock.now, *fields))
