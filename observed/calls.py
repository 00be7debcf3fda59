"""Client operations and commit requests as calls: each invocation with its completion, recorded
by impl where both ends are known (impl/history.py), so no reader pairs events again.

A call knows its two positions in the run's history — the order impl recorded the events in,
which is real time for a checker (virtual times tie) — so `history_of` gives back the exact
event history (observed/history.py's `Op`, DESIGN's JSONL shape) the linearizability checker
reads. A call still open at the end has no completion (`outcome` None): the checker treats it as
`info`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from attrs import frozen

from observed.frozen import FrozenMap, freeze
from observed.history import Op

Outcome = Literal["ok", "fail", "info"]


@frozen(kw_only=True)
class ClientCall:
    """One client read or write, as its coordinator ran it."""

    process: int
    """A fresh process per call (Jepsen's: a process that may crash is retired)."""
    f: str
    """read or write"""
    keyspace: str
    key: str
    value: Any
    """The value written (whatever the outcome), or the value an `ok` read returned (None:
    nothing, or the read did not succeed)."""
    level: str
    """The consistency level it ran at."""
    coordinator: str
    invoked: int
    """Virtual ns of the invocation."""
    invoke_index: int
    """Position of the invocation in the run's history."""
    outcome: Outcome | None = None
    """ok, fail or info (unknown); None: still open when the run was observed."""
    completed: int | None = None
    complete_index: int | None = None

    @property
    def written(self) -> Any:
        """The value this write wrote (None for a read)."""
        return self.value if self.f == "write" else None

    @property
    def read(self) -> Any:
        """The value this read returned (None for a write, a failed read or nothing read)."""
        return self.value if self.f == "read" and self.outcome == "ok" else None

    def events(self) -> tuple[tuple[int, Op], ...]:
        """(position, event) of its invocation and, when it completed, its completion: a write
        shows the value it wrote whatever the outcome, a read what it read."""
        call = (self.invoke_index, Op(process=self.process, type="invoke", f=self.f, key=self.key,
                                      value=self.written, time=self.invoked))
        if self.outcome is None or self.complete_index is None:
            return (call,)
        shown = self.value if self.f == "write" or self.outcome == "ok" else None
        return (call, (self.complete_index, Op(process=self.process, type=self.outcome, f=self.f,
                                               key=self.key, value=shown, time=self.completed)))


@frozen(kw_only=True)
class CommitCall:
    """One commit request a node submitted to the CMS (or an initiator's election)."""

    process: int
    node: str
    """The submitting node."""
    entry_id: str
    transformation: FrozenMap
    """The transformation submitted (docs/transformations-json.md), as a frozen JSON value."""
    invoked: int
    invoke_index: int
    outcome: Outcome | None = None
    """ok (committed), fail (rejected at its only attempt, or an election aborted), info
    (unknown: retries ran out, the node crashed, or a rejection answered a resent request);
    None: still open."""
    completed: int | None = None
    complete_index: int | None = None
    epoch: int | None = None
    """ok: the epoch it committed at; a rejection: the highest epoch of the metadata that
    rejected it."""
    rejection: str | None = None
    aborted: bool = False
    """An election aborted before the metadata saw it (nothing was decided)."""
    resent_as: str | None = None
    """The entry id its completion carried, when a resend changed it (impl's switch
    submit-retry-new-entry-id; Cassandra resends under the same id)."""

    @property
    def kind(self) -> str:
        return str(self.transformation.get("kind", ""))

    def value(self, *, completion: bool) -> FrozenMap:
        """The event's value in the commit history: `{"transformation", "entry_id"}`, and on
        completion the epoch, the rejection and the abort mark it has."""
        entry_id = self.resent_as if completion and self.resent_as is not None else self.entry_id
        doc: dict[str, Any] = {"transformation": self.transformation, "entry_id": entry_id}
        if completion:
            if self.epoch is not None:
                doc["epoch"] = self.epoch
            if self.rejection is not None:
                doc["rejection"] = self.rejection
            if self.aborted:
                doc["aborted"] = True
        value: FrozenMap = freeze(doc)
        return value

    def events(self) -> tuple[tuple[int, Op], ...]:
        call = (self.invoke_index, Op(process=self.process, type="invoke", f="commit",
                                      value=self.value(completion=False), time=self.invoked))
        if self.outcome is None or self.complete_index is None:
            return (call,)
        return (call, (self.complete_index, Op(process=self.process, type=self.outcome, f="commit",
                                               value=self.value(completion=True), time=self.completed)))


def history_of(calls: Iterable[ClientCall | CommitCall]) -> tuple[Op, ...]:
    """The event history of some calls, in the order the run recorded the events."""
    events = sorted((e for c in calls for e in c.events()), key=lambda e: e[0])
    return tuple(op for _, op in events)


def completed(calls: Iterable[ClientCall]) -> tuple[ClientCall, ...]:
    """The calls that completed, in the order they completed."""
    done = [c for c in calls if c.complete_index is not None]
    return tuple(sorted(done, key=lambda c: c.complete_index or 0))


__all__ = ["ClientCall", "CommitCall", "Outcome", "completed", "history_of"]
