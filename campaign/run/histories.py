"""impl's records of a run as the checkers' values: node logs, commit attempts, histories.

The simulator records events as impl values (impl.history.Op with JSON text values, impl's log
entries); the checkers take their own (checkers.logs, checkers.linearizability.history). The
conversions live here, once, for the judge and the stateful system machine alike.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from checkers.linearizability.frozen import freeze
from checkers.linearizability.history import Op as HistoryOp
from checkers.linearizability.model import KV
from checkers.linearizability.verdict import Verdict
from checkers.linearizability.wgl import check
from checkers.logs import CommitAttempt, LogEntry, NodeLog
from impl.cluster import RunResult
from impl.history import Op as ImplOp

CHECK_TIMEOUT_S = 30.0
"""Seconds each linearizability search of a run may take (then its verdict is unknown)."""


def log_entry(epoch: int, entry_id: str, kind: str, transformation: str) -> LogEntry:
    return LogEntry(epoch=epoch, entry_id=entry_id, kind=kind, transformation=json.loads(transformation))


def node_logs(result: RunResult) -> tuple[NodeLog, ...]:
    return tuple(NodeLog(node=n.id, entries=tuple(log_entry(e.epoch, e.entry_id, e.kind, e.transformation)
                                                  for e in n.entries)) for n in result.nodes)


def commit_attempts(commit_history: Sequence[ImplOp]) -> tuple[CommitAttempt, ...]:
    """invoke/ok/fail/info events paired per process into attempts (times are virtual ns)."""
    open_: dict[int, tuple[int, dict[str, Any]]] = {}
    out: list[CommitAttempt] = []
    for op in commit_history:
        value = json.loads(op.value)
        if op.type == "invoke":
            open_[op.process] = (op.time, value)
            continue
        invoked, request = open_.pop(op.process)
        if op.type == "fail" and value.get("aborted"):
            # an election aborted before the metadata saw it (no answer, mismatching views):
            # nothing was decided, so there is no rejection for the log checker to justify
            continue
        t = request["transformation"]
        common = {"entry_id": request["entry_id"], "kind": t["kind"], "transformation": t, "invoked": invoked}
        if op.type == "ok":
            out.append(CommitAttempt(**common, completed=op.time, epoch=value["epoch"]))
        elif op.type == "fail":
            out.append(CommitAttempt(**common, completed=op.time, rejected=value["rejection"], decided_at=value["epoch"]))
        else:
            out.append(CommitAttempt(**common))
    for invoked, request in open_.values():  # never completed: outcome unknown
        out.append(CommitAttempt(entry_id=request["entry_id"], kind=request["transformation"]["kind"],
                                 transformation=request["transformation"], invoked=invoked))
    return tuple(out)


def as_history(ops: Sequence[ImplOp]) -> tuple[HistoryOp, ...]:
    """impl's recorded events as the checker's ops (DESIGN's JSONL shape, field for field)."""
    return tuple(HistoryOp(process=op.process, type=op.type, f=op.f, key=op.key,  # type: ignore[arg-type]
                           value=freeze(json.loads(op.value)), time=op.time) for op in ops)


def check_clients(ops: Sequence[ImplOp], *, timeout_s: float = CHECK_TIMEOUT_S) -> Verdict:
    """The client reads and writes against the kv model (a register per key)."""
    return check(KV, as_history(ops), deadline=time.monotonic() + timeout_s)



__all__ = ["CHECK_TIMEOUT_S", "as_history", "check_clients", "commit_attempts", "log_entry", "node_logs"]
