"""Snapshots: a snapshot at epoch e equals the replay of the log up to e.

The replay is the spec's, injected as a pure callable (`replay(entries) -> state`), so that this
checker does not depend on `spec/`; states are compared with `==`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from checkers.logs.entries import LogEntry, Snapshot
from checkers.logs.verdict import (
    LOG_TOO_SHORT,
    SNAPSHOT_MISMATCH,
    LogVerdict,
    LogViolation,
    verdict,
)

Replay = Callable[[tuple[LogEntry, ...]], Any]


def check_snapshots(
    snapshots: Sequence[Snapshot], log: Sequence[LogEntry], replay: Replay
) -> LogVerdict:
    entries = tuple(log)
    top = entries[-1].epoch if entries else 0
    violations = []
    for snap in sorted(snapshots, key=lambda s: (s.epoch, s.node)):
        if snap.epoch > top:
            violations.append(LogViolation(invariant=LOG_TOO_SHORT, epoch=snap.epoch, node=snap.node))
            continue
        upto = tuple(e for e in entries if e.epoch <= snap.epoch)
        if replay(upto) != snap.state:
            violations.append(
                LogViolation(invariant=SNAPSHOT_MISMATCH, epoch=snap.epoch, node=snap.node, entries=upto[-1:])
            )
    return verdict(violations)
