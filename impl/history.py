"""The run's history, recorded as calls (observed/calls.py): each client operation and each
commit request with its invocation and completion, recorded here where both ends are known.

Commit requests (`f` "commit" in the event history) carry the transformation and the entry id;
an `ok` adds the epoch it committed at, a `fail` the rejection and the highest epoch of the
metadata that rejected it, an `info` (the submitter gave up after its retries, crashed, or a
rejection answered a resent request) leaves the outcome unknown. Client reads and writes carry
the key, the coordinator, the level, and the value written or read. Every event also takes the
next position in the run's one event order, which `observed.calls.history_of` follows: virtual
times tie, the order of recording is real time. Times are virtual nanoseconds.
"""

from __future__ import annotations

import json
from typing import Any, cast

from attrs import evolve

from impl.sim.clock import VirtualClock
from observed.calls import ClientCall, CommitCall, Outcome
from observed.frozen import freeze

OUTCOMES = ("ok", "fail", "info")


class History:
    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock
        self._next_process = 0
        self._next_index = 0
        self._clients: dict[int, ClientCall] = {}
        self._commits: dict[int, CommitCall] = {}

    def new_process(self) -> int:
        p = self._next_process
        self._next_process += 1
        return p

    def _index(self) -> int:
        i = self._next_index
        self._next_index += 1
        return i

    # --- client operations ---

    def invoke_client(self, *, coordinator: str, f: str, keyspace: str, key: str, value: Any,
                      level: str) -> int:
        """A client call begins (a fresh process); `value` is the value a write writes."""
        process = self.new_process()
        self._clients[process] = ClientCall(process=process, f=f, keyspace=keyspace, key=key,
                                            value=value if f == "write" else None, level=level,
                                            coordinator=coordinator, invoked=self._clock.now,
                                            invoke_index=self._index())
        return process

    def complete_client(self, process: int, outcome: str, value: Any = None) -> None:
        """The call ends (`ok`, `fail` or `info`): `value` is what an `ok` read returned (a write
        keeps what it wrote)."""
        assert outcome in OUTCOMES, outcome
        call = self._clients[process]
        read = value if call.f == "read" and outcome == "ok" else None
        self._clients[process] = evolve(call, outcome=cast(Outcome, outcome), completed=self._clock.now,
                                        complete_index=self._index(),
                                        value=call.value if call.f == "write" else read)

    # --- commit requests ---

    def invoke_commit(self, *, node: str, entry_id: str, transformation: str) -> int:
        """A commit request (`transformation`: canonical JSON text) is submitted."""
        process = self.new_process()
        self._commits[process] = CommitCall(process=process, node=node, entry_id=entry_id,
                                            transformation=freeze(json.loads(transformation)),
                                            invoked=self._clock.now, invoke_index=self._index())
        return process

    def complete_commit(self, process: int, outcome: Outcome, *, epoch: int | None = None,
                        rejection: str | None = None, aborted: bool = False) -> None:
        self._commits[process] = evolve(self._commits[process], outcome=outcome, completed=self._clock.now,
                                        complete_index=self._index(), epoch=epoch, rejection=rejection,
                                        aborted=aborted)

    def resent_as(self, process: int, entry_id: str) -> None:
        """An open commit request resent under a new entry id (switch submit-retry-new-entry-id):
        its completion carries the new one."""
        self._commits[process] = evolve(self._commits[process], resent_as=entry_id)

    # --- what was recorded ---

    @property
    def clients(self) -> tuple[ClientCall, ...]:
        """Every client call so far, in invocation order (open ones too)."""
        return tuple(self._clients.values())

    @property
    def commits(self) -> tuple[CommitCall, ...]:
        return tuple(self._commits.values())

    def client_keys(self) -> list[str]:
        """The keys the clients used, sorted."""
        return sorted({c.key for c in self._clients.values()})


__all__ = ["History"]
