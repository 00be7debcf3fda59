"""Log checkers: pure functions over a run's node logs, commit attempts and snapshots.

`check_logs` runs them all; each is also usable alone. The spec's judgement (is a rejection
right? what state does a log replay to?) is injected as pure callables, so the checkers are
independent of `spec/` and `impl/`.
"""

from __future__ import annotations

from collections.abc import Sequence

from checkers.logs.commits import JustifyRejection, check_commit_order, check_rejections
from checkers.logs.entries import CommitAttempt, LogEntry, NodeLog, Snapshot
from checkers.logs.node_logs import (
    check_epochs,
    check_prefixes,
    check_unique_entry_ids,
    check_unique_epochs,
    longest,
)
from checkers.logs.snapshots import Replay, check_snapshots
from checkers.logs.verdict import LogVerdict, LogViolation, verdict


def check_logs(
    logs: Sequence[NodeLog],
    commits: Sequence[CommitAttempt] = (),
    snapshots: Sequence[Snapshot] = (),
    *,
    justify_rejection: JustifyRejection | None = None,
    replay: Replay | None = None,
    initial_epoch: int = 0,
) -> LogVerdict:
    """Every log invariant; the verdict lists all violations found, in a fixed order."""
    reference = longest(logs)
    log = reference.entries if reference is not None else ()
    found: list[LogViolation] = []
    found += check_epochs(logs).evidence
    found += check_unique_epochs(logs, commits).evidence
    found += check_prefixes(logs).evidence
    found += check_unique_entry_ids(logs).evidence
    found += check_commit_order(commits, initial_epoch=initial_epoch).evidence
    if justify_rejection is not None:
        found += check_rejections(commits, log, justify_rejection).evidence
    if replay is not None:
        found += check_snapshots(snapshots, log, replay).evidence
    return verdict(found)


__all__ = [
    "CommitAttempt",
    "JustifyRejection",
    "LogEntry",
    "LogVerdict",
    "LogViolation",
    "NodeLog",
    "Replay",
    "Snapshot",
    "check_commit_order",
    "check_epochs",
    "check_logs",
    "check_prefixes",
    "check_rejections",
    "check_snapshots",
    "check_unique_entry_ids",
    "check_unique_epochs",
    "longest",
]
