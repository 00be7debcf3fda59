"""The trace: every event of a run (send, deliver, drop, crash, restart, commit, apply, ...).

Each event is one line `time kind node other what`; the trace hash is a BLAKE2b over those
lines in order, so the same seed and code give the same hash. Lines are kept only when asked
(`keep=True`, e.g. `tcmcheck simulate --trace FILE`): hashing alone is cheaper.
"""

from __future__ import annotations

import hashlib

from impl.sim.clock import VirtualClock


class Trace:
    __slots__ = ("_clock", "_hash", "lines", "count", "_keep", "_buffer")

    def __init__(self, clock: VirtualClock, *, keep: bool = False) -> None:
        self._clock = clock
        self._hash = hashlib.blake2b(digest_size=16)
        self.lines: list[str] = []
        self.count = 0
        self._keep = keep
        # why a buffer: hashing lines in batches gives the same digest as one at a time
        # (BLAKE2b is a stream), for a fraction of the calls
        self._buffer: list[str] = []

    def event(self, kind: str, node: str, other: str = "-", what: str = "") -> None:
        buffer = self._buffer
        buffer.append(f"{self._clock.now} {kind} {node} {other} {what}\n")
        if len(buffer) >= 4096:
            self._flush()

    def _flush(self) -> None:
        buffer = self._buffer
        if buffer:
            self._hash.update("".join(buffer).encode())
            self.count += len(buffer)
            if self._keep:
                self.lines.extend(buffer)
            buffer.clear()

    def hexdigest(self) -> str:
        self._flush()
        return self._hash.hexdigest()

    @property
    def total(self) -> int:
        self._flush()
        return self.count
