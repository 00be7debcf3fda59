"""A client request in flight at its coordinator (impl/node/coordinator.py): its plan, the
answers so far, and its blocking read repair."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from impl.data.consistency import Requirement

Done = Callable[[str, Any], None]
"""`done(outcome, value)`: outcome "ok" / "fail" / "info"; value read (reads) or the reason."""

HINT = "hint"
"""The pseudo-replica a stored hint answers as, at ANY."""


class Request:
    """One client read or write in flight at its coordinator."""

    __slots__ = ("id", "write", "keyspace", "key", "token", "cl", "done", "replicas", "requirement",
                 "plan_epoch", "acks", "errors", "cells", "timer", "value", "timestamp", "finished",
                 "sent", "waiting", "spare", "resolved", "repairing", "repaired", "repair_replicas",
                 "repair_requirement", "repair_epoch", "repair_acks", "repair_writes")

    def __init__(self, rid: int, write: bool, keyspace: str, key: str, token: int, cl: str,
                 done: Done) -> None:
        self.id = rid
        self.write = write
        self.keyspace = keyspace
        self.key = key
        self.token = token
        self.cl = cl
        self.done = done
        self.replicas: tuple[str, ...] = ()
        self.requirement = Requirement()
        self.plan_epoch = 0
        self.acks: set[str] = set()
        self.errors: dict[str, str] = {}
        self.cells: dict[str, tuple[int, int | None]] = {}
        self.timer: object = None
        self.value: int | None = None
        self.timestamp = 0
        self.finished = False
        self.sent: list[str] = []  # who was sent the request
        self.waiting: set[str] = set()  # writes: contacts that have not answered (hinted on expiry)
        self.spare: list[str] = []  # reads: candidates not contacted (speculation)
        self.resolved = False
        self.repairing: dict[str, int] = {}  # repair target -> repair request id
        self.repaired: set[str] = set()
        self.repair_replicas: tuple[str, ...] = ()
        self.repair_requirement = Requirement()
        self.repair_epoch = -1  # -1: no blocking repair
        self.repair_acks: set[str] = set()  # the repair plan's `contacted`
        self.repair_writes: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def errors(req: Request) -> str:
    return ",".join(f"{r}:{e}" for r, e in sorted(req.errors.items()))
