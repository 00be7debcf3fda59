"""The log checkers' verdict: valid or not, with one `LogViolation` per problem found."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Literal

from attrs import frozen

from checkers.logs.entries import CommitAttempt, LogEntry

# The invariant each violation breaks (stable names tests and reports can match).
REAL_TIME_ORDER = "real-time-order"
DUPLICATE_EPOCH = "duplicate-epoch"
NOT_A_PREFIX = "not-a-prefix"
EPOCH_GAP = "epoch-gap"
UNJUSTIFIED_REJECTION = "unjustified-rejection"
SNAPSHOT_MISMATCH = "snapshot-mismatch"
LOG_TOO_SHORT = "log-too-short"
DUPLICATE_ENTRY_ID = "duplicate-entry-id"


@frozen(kw_only=True)
class LogViolation:
    """One broken invariant, with the data that shows it.

    `node` is the node whose log shows it (None for the commit history), `epoch` the epoch
    concerned, `entries` the conflicting entries, `attempts` the commit attempts involved."""

    invariant: str
    epoch: int | None = None
    node: str | None = None
    entries: tuple[LogEntry, ...] = ()
    attempts: tuple[CommitAttempt, ...] = ()
    detail: tuple[tuple[str, Hashable], ...] = ()


@frozen(kw_only=True)
class LogVerdict:
    valid: bool | Literal["unknown"]
    cause: str
    evidence: tuple[LogViolation, ...] = ()


def verdict(violations: list[LogViolation] | tuple[LogViolation, ...]) -> LogVerdict:
    if not violations:
        return LogVerdict(valid=True, cause="ok")
    return LogVerdict(valid=False, cause=violations[0].invariant, evidence=tuple(violations))
