"""The trace: every event of a run (send, deliver, drop, crash, restart, commit, apply, ...).

Each event is one line `time kind node other what`; the trace hash is a BLAKE2b over those
lines in order, so the same seed and code give the same hash. Lines are kept only when asked
(`keep=True`, e.g. `tcmcheck simulate --trace FILE`): hashing alone is cheaper.
"""

from __future__ import annotations

import hashlib

from impl.sim.clock import VirtualClock


class Trace:
    __slots__ = ("_clock", "_hash", "lines", "count", "_keep")

    def __init__(self, clock: VirtualClock, *, keep: bool = False) -> None:
        self._clock = clock
        self._hash = hashlib.blake2b(digest_size=16)
        self.lines: list[str] = []
        self.count = 0
        self._keep = keep

    def event(self, kind: str, node: str, other: str = "-", what: str = "") -> None:
        line = f"{self._clock.now} {kind} {node} {other} {what}\n"
        self._hash.update(line.encode())
        self.count += 1
        if self._keep:
            self.lines.append(line)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()
