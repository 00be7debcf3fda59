"""The data the log checkers judge: log entries, node logs, commit attempts, snapshots.

All plain frozen values. A transformation is the JSON shape of `docs/transformations-json.md`,
frozen (`FrozenMap`, tuples) so that entries compare and hash by content.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from attrs import field, frozen

from checkers.linearizability.frozen import freeze


def _check_epoch(instance: object, attribute: Any, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{attribute.name} must be a non-negative integer, got {value!r}")


@frozen(kw_only=True)
class LogEntry:
    """One entry of the metadata log: the transformation committed at `epoch`."""

    epoch: int = field(validator=_check_epoch)
    entry_id: Hashable
    kind: str
    transformation: Any = field(converter=freeze)

    @property
    def content(self) -> tuple[Hashable, str, Any]:
        """What must agree wherever this epoch appears."""
        return (self.entry_id, self.kind, self.transformation)


def _entries(entries: Iterable[LogEntry]) -> tuple[LogEntry, ...]:
    return tuple(entries)


@frozen(kw_only=True)
class NodeLog:
    """The entries a node applied, in the order it applied them."""

    node: str
    entries: tuple[LogEntry, ...] = field(converter=_entries)


def _check_outcome(instance: CommitAttempt, attribute: Any, value: Any) -> None:
    if instance.epoch is not None and instance.rejected is not None:
        raise ValueError("a commit attempt is committed or rejected, not both")
    if instance.rejected is not None and instance.decided_at is None:
        raise ValueError("a rejection needs the epoch at which it was decided (decided_at)")
    if instance.completed is not None and instance.completed < instance.invoked:
        raise ValueError("a commit attempt cannot complete before it was invoked")


@frozen(kw_only=True)
class CommitAttempt:
    """A client's (or the CMS's) attempt to commit a transformation, as observed.

    `invoked`/`completed` are times (or event positions) on one clock; `completed` None means the
    outcome was never learned (crash, timeout). Exactly one of: `epoch` (committed at it),
    `rejected` (the reason, decided against the metadata at epoch `decided_at`), or neither
    (unknown outcome)."""

    entry_id: Hashable
    kind: str
    transformation: Any = field(converter=freeze)
    invoked: int
    completed: int | None = None
    epoch: int | None = None
    rejected: str | None = None
    decided_at: int | None = field(default=None, validator=_check_outcome)


@frozen(kw_only=True)
class Snapshot:
    """A node's (or the CMS's) snapshot of the metadata at `epoch`, as a replayed state."""

    node: str
    epoch: int = field(validator=_check_epoch)
    state: Any
