"""Jepsen-style linearizability checking (WGL search, P-compositional) of operation histories.

    from checkers.linearizability import CAS_REGISTER, check, explain
    verdict = check(CAS_REGISTER, history, deadline=time.monotonic() + 10)

`check` returns a `Verdict` (valid True / False / "unknown", a cause, and evidence as data);
`explain` and `render_html` render one. Histories are tuples of `Op` (DESIGN's JSONL events).
"""

from __future__ import annotations

from checkers.linearizability.explain import explain
from checkers.linearizability.history import HistoryError, Op, Operation, pair, unpair
from checkers.linearizability.html import render_html
from checkers.linearizability.knossos_models import (
    FIFO_QUEUE,
    MULTI_REGISTER,
    MUTEX,
    SET,
    UNORDERED_QUEUE,
)
from checkers.linearizability.model import (
    CAS_REGISTER,
    KV,
    LOG,
    MODELS,
    REGISTER,
    with_initial,
)
from checkers.linearizability.sequential import NO_TACTICS, Malformed, SequentialModel, Tactics
from checkers.linearizability.verdict import LinearizabilityEvidence, PartitionResult, Verdict
from checkers.linearizability.wgl import check, check_operations

__all__ = [
    "CAS_REGISTER",
    "FIFO_QUEUE",
    "KV",
    "LOG",
    "MODELS",
    "MULTI_REGISTER",
    "MUTEX",
    "NO_TACTICS",
    "REGISTER",
    "SET",
    "UNORDERED_QUEUE",
    "Malformed",
    "Tactics",
    "HistoryError",
    "LinearizabilityEvidence",
    "Op",
    "Operation",
    "PartitionResult",
    "SequentialModel",
    "Verdict",
    "check",
    "check_operations",
    "explain",
    "pair",
    "render_html",
    "unpair",
    "with_initial",
]
