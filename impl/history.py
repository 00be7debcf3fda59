"""Commit requests as a Jepsen-style history (DESIGN's JSONL shape).

Commit requests have `f` "commit"; client operations (impl/client_workload.py) have `f`
"read" or "write", a `key`, and as value the value written (invoke) or read (ok). The invoke's value is `{"transformation": T, "entry_id": ID}`; an `ok`
adds `"epoch"` (where it committed); a `fail` adds `"rejection"` (the reason) and `"epoch"` (the
highest epoch of the metadata that rejected it); an `info` (the submitter gave up after its
retries, or crashed) leaves the outcome unknown. `time` is virtual nanoseconds.
"""

from __future__ import annotations

import json
from typing import Any

from attrs import frozen


@frozen(kw_only=True)
class Op:
    process: int
    type: str  # "invoke" | "ok" | "fail" | "info"
    f: str
    value: str  # canonical JSON text of the value (frozen values hold no dicts)
    time: int
    node: str
    key: str | None = None  # client operations: the key read or written

    def to_json(self) -> dict[str, Any]:
        out = {"process": self.process, "type": self.type, "f": self.f,
               "value": json.loads(self.value), "time": self.time, "node": self.node}
        if self.key is not None:
            out["key"] = self.key
        return out


class History:
    """The run's commit-request history, in the order events happen (virtual time)."""

    def __init__(self, clock: object) -> None:
        self._clock = clock
        self.ops: list[Op] = []
        self._next_process = 0

    def new_process(self) -> int:
        p = self._next_process
        self._next_process += 1
        return p

    def record(self, process: int, type_: str, value: str, node: str, *, f: str = "commit",
               key: str | None = None) -> None:
        self.ops.append(Op(process=process, type=type_, f=f, value=value,
                           time=self._clock.now, node=node, key=key))  # type: ignore[attr-defined]
