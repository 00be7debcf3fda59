"""The protocol trace: what the data path, the progress barrier, streaming, hints and repair
decided, as the named records of observed/protocol.py (one schema for this emitter and for the
checkers that read it: checkers/protocol/, the judge).

The message trace (impl/trace.py) records what travelled; this records what the protocol
*decided* at each step — which replicas a coordinator planned at which epoch, who acknowledged,
what a replica served and at which of its epochs, which cell a node stored and how, when a node
applied an epoch. It is not part of the trace hash (the hash stays the fingerprint of the
message schedule). Nothing here decides anything: emitting an event never changes the run.
"""

from __future__ import annotations

from typing import Any, TypeVar

from impl.sim.clock import VirtualClock
from observed.protocol import Event

E = TypeVar("E", bound=Event)


class ProtocolLog:
    __slots__ = ("_clock", "events")

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock
        self.events: list[Event] = []

    def emit(self, kind: type[E], /, **fields: Any) -> None:
        """An event of `kind` now (its `t` is the virtual clock's)."""
        self.events.append(kind(t=self._clock.now, **fields))
