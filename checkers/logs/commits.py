"""Invariants of the commit history: one real-time order, and justified rejections.

- `check_commit_order`: the committed attempts, ordered by epoch, respect real time (a commit
  that completed before another was invoked has the smaller epoch), and every rejection was
  decided at an epoch that was current at some instant between its invocation and completion.
  This is linearizability of the log as a register of epochs, decided by the log model's
  near-linear fast path (`checkers.linearizability.log_fast`).
- `check_rejections`: every rejection is justified by the spec at the epoch it was decided.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from checkers.linearizability.frozen import FrozenMap
from checkers.linearizability.history import Operation
from checkers.linearizability.log_fast import check_log
from checkers.logs.entries import CommitAttempt, LogEntry
from checkers.logs.verdict import (
    LOG_TOO_SHORT,
    REAL_TIME_ORDER,
    UNJUSTIFIED_REJECTION,
    LogVerdict,
    LogViolation,
    verdict,
)

JustifyRejection = Callable[[tuple[LogEntry, ...], Any, str], bool]
"""`(entries up to the deciding epoch, transformation, reason) -> is the rejection right?`"""


def _operations(attempts: Sequence[CommitAttempt]) -> tuple[Operation, ...]:
    ops = []
    for i, a in enumerate(attempts):
        if a.completed is None:
            output: Any = None
        elif a.rejected is not None:
            output = FrozenMap(items_=(("epoch", a.decided_at), ("rejected", a.rejected)))
        elif a.epoch is not None:
            output = a.epoch
        else:
            output = None
        # Times become positions: a call at t is placed before a return at t ("closed"
        # intervals: ops that touch are concurrent), hence 2t for calls and 2t+1 for returns.
        ops.append(
            Operation(
                id=i,
                process=i,
                f="commit",
                key=None,
                input=a.transformation,
                output=output,
                call=2 * a.invoked,
                ret=None if output is None or a.completed is None else 2 * a.completed + 1,
            )
        )
    return tuple(ops)


def check_commit_order(attempts: Sequence[CommitAttempt], *, initial_epoch: int = 0) -> LogVerdict:
    """One total order of commits, consistent with real time, explains every outcome.

    `initial_epoch` is the epoch before the first attempt (0: the log starts empty)."""
    attempts = tuple(attempts)
    result = check_log(_operations(attempts), init=initial_epoch)
    if result.valid is True:
        return verdict([])
    culprit = attempts[result.failing] if result.failing is not None else None
    order = tuple(attempts[i] for i in result.linearization)
    return verdict(
        [
            LogViolation(
                invariant=REAL_TIME_ORDER,
                epoch=None if culprit is None else (culprit.epoch or culprit.decided_at),
                attempts=((culprit,) if culprit else ()) + order[-5:],
            )
        ]
    )


def check_rejections(
    attempts: Sequence[CommitAttempt],
    log: Sequence[LogEntry],
    justify_rejection: JustifyRejection,
) -> LogVerdict:
    """Each rejection, replayed: `justify_rejection(log up to decided_at, transformation, reason)`.

    `log` is the committed log (the longest node log), in epoch order; the spec decides, injected
    as a pure callable so that this checker does not depend on `spec/`."""
    entries = tuple(log)
    violations = []
    top = entries[-1].epoch if entries else 0
    for a in attempts:
        if a.rejected is None or a.decided_at is None:
            continue
        if a.decided_at > top:
            violations.append(LogViolation(invariant=LOG_TOO_SHORT, epoch=a.decided_at, attempts=(a,)))
            continue
        upto = tuple(e for e in entries if e.epoch <= a.decided_at)
        if not justify_rejection(upto, a.transformation, a.rejected):
            violations.append(
                LogViolation(invariant=UNJUSTIFIED_REJECTION, epoch=a.decided_at, attempts=(a,))
            )
    return verdict(violations)
