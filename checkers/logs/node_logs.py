"""Invariants of the node logs themselves: epochs, agreement on content, prefixes.

- `check_epochs`: in every node's log, epochs strictly increase by one.
- `check_unique_epochs`: no epoch holds two different entries, across all logs and commits.
- `check_prefixes`: every node's log is a prefix of the longest one.
- `check_unique_entry_ids`: no entry id is committed at two epochs (a resent request was
  chosen twice: its submitter saw one epoch, the log holds it at another as well).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from checkers.logs.entries import CommitAttempt, LogEntry, NodeLog
from checkers.logs.verdict import (
    DUPLICATE_ENTRY_ID,
    DUPLICATE_EPOCH,
    EPOCH_GAP,
    NOT_A_PREFIX,
    LogVerdict,
    LogViolation,
    verdict,
)


def check_epochs(logs: Sequence[NodeLog]) -> LogVerdict:
    """Each log applies epoch e+1 right after e (a node applies the log strictly in order)."""
    violations = []
    for log in logs:
        for before, after in zip(log.entries, log.entries[1:], strict=False):
            if after.epoch != before.epoch + 1:
                violations.append(
                    LogViolation(
                        invariant=EPOCH_GAP, epoch=after.epoch, node=log.node, entries=(before, after)
                    )
                )
                break
    return verdict(violations)


def check_unique_epochs(
    logs: Sequence[NodeLog], commits: Iterable[CommitAttempt] = ()
) -> LogVerdict:
    """No epoch is committed twice with different content (entry id, kind, transformation).

    Committed attempts count as entries too: what a client was told it committed at epoch e
    must be what the logs hold at e."""
    seen: dict[int, dict[tuple[object, ...], LogEntry]] = {}
    where: dict[int, list[str]] = {}
    for log in logs:
        for entry in log.entries:
            seen.setdefault(entry.epoch, {}).setdefault(entry.content, entry)
            where.setdefault(entry.epoch, []).append(log.node)
    attempts: dict[int, list[CommitAttempt]] = {}
    for attempt in commits:
        if attempt.epoch is None:
            continue
        entry = LogEntry(
            epoch=attempt.epoch,
            entry_id=attempt.entry_id,
            kind=attempt.kind,
            transformation=attempt.transformation,
        )
        seen.setdefault(entry.epoch, {}).setdefault(entry.content, entry)
        attempts.setdefault(entry.epoch, []).append(attempt)
    violations = [
        LogViolation(
            invariant=DUPLICATE_EPOCH,
            epoch=epoch,
            entries=tuple(contents.values()),
            attempts=tuple(attempts.get(epoch, ())),
        )
        for epoch, contents in sorted(seen.items())
        if len(contents) > 1
    ]
    return verdict(violations)


def longest(logs: Sequence[NodeLog]) -> NodeLog | None:
    """The log reaching the highest epoch, then the one holding most entries (ties: the first
    node by name): the one the others are prefixes of."""
    if not logs:
        return None
    return max(sorted(logs, key=lambda log: log.node),
               key=lambda log: (log.entries[-1].epoch if log.entries else -1, len(log.entries)))


def check_prefixes(logs: Sequence[NodeLog]) -> LogVerdict:
    """Every node's applied log is a prefix of the longest one (same entries, same order)."""
    reference = longest(logs)
    if reference is None:
        return verdict([])
    # Aligned by epoch, not position: a node that caught up from a snapshot holds only the
    # entries after it, and those must still be the reference's entries at the same epochs.
    by_epoch = {e.epoch: e for e in reference.entries}
    violations = []
    for log in sorted(logs, key=lambda log: log.node):
        for mine in log.entries:
            theirs = by_epoch.get(mine.epoch)
            if theirs is None and reference.entries and mine.epoch < reference.entries[0].epoch:
                continue  # before the reference's own snapshot: nothing to compare with
            if mine != theirs:
                violations.append(
                    LogViolation(
                        invariant=NOT_A_PREFIX,
                        epoch=mine.epoch,
                        node=log.node,
                        entries=(mine,) if theirs is None else (mine, theirs),
                        detail=(("longest", reference.node),),
                    )
                )
                break
    return verdict(violations)


def check_unique_entry_ids(logs: Sequence[NodeLog]) -> LogVerdict:
    """Each entry id is committed at one epoch only: a submitter's request (one entry id,
    however often it is resent) takes effect at most once. One violation per id, at its
    second epoch, with the first in `detail`."""
    epochs: dict[str, dict[int, LogEntry]] = {}
    for log in logs:
        for entry in log.entries:
            epochs.setdefault(str(entry.entry_id), {}).setdefault(entry.epoch, entry)
    violations = []
    for entry_id, at in sorted(epochs.items()):
        if len(at) > 1:
            first, second = sorted(at)[:2]
            violations.append(
                LogViolation(
                    invariant=DUPLICATE_ENTRY_ID,
                    epoch=second,
                    entries=tuple(at[e] for e in sorted(at)),
                    detail=(("entry_id", entry_id), ("first_epoch", first)),
                )
            )
    return verdict(violations)
