"""`check-history --engine spark`: a history's independent parts (one per key for kv) searched as
Spark tasks, their verdicts put together as the local checker does."""

from __future__ import annotations

import time
from typing import Any

from attrs import evolve

from campaign import spark_session
from checkers.linearizability.model import MODELS, with_initial
from checkers.linearizability.verdict import LINEARIZABLE, LinearizabilityEvidence, Verdict
from checkers.linearizability.wgl import check_operations, partition


def _history_model(name: str, has_initial: bool, initial: Any) -> Any:
    model = MODELS[name]
    return with_initial(model, initial) if has_initial else model


def _check_part(name: str, has_initial: bool, initial: Any, ops: Any, timeout: float, max_states: int) -> Any:
    """Executor side: the WGL search of one part (one key), with its own deadline."""
    model = _history_model(name, has_initial, initial)
    return check_operations(model, ops, deadline=time.monotonic() + timeout, max_cache=max_states)


def check_history_spark(name: str, has_initial: bool, initial: Any, operations: Any, *, timeout: float,
                        max_states: int, master: str | None = None) -> Any:
    """`check-history --engine spark`: split the history into the model's independent parts (one
    per key for kv), search each as a Spark task, and put the verdicts together the way the local
    checker reports them: not linearizable if a part is not (that part's evidence: key, failing
    op, minimal window), unknown if a part ran out of time or memory, else linearizable. Unlike the
    local search, every part is searched to its end, so with several failing keys the first in
    the history is the one reported."""
    model = _history_model(name, has_initial, initial)
    parts = partition(model, operations)
    spark = spark_session.session(master)
    sc = spark.sparkContext
    if not parts:
        return Verdict(valid=True, cause=LINEARIZABLE, evidence=LinearizabilityEvidence(model=model.name))
    indexed = [(i, ops) for i, (_, ops) in enumerate(parts)]
    slices = max(1, min(len(indexed), 4 * sc.defaultParallelism))
    verdicts = dict(sc.parallelize(indexed, slices)
                    .map(lambda iv: (iv[0], _check_part(name, has_initial, initial, iv[1], timeout, max_states)))
                    .collect())
    ordered = [verdicts[i] for i in range(len(parts))]
    results = tuple(p for v in ordered for p in v.evidence.partitions)
    bad = next((v for v in ordered if v.valid is False), None)
    if bad is not None:
        return evolve(bad, evidence=evolve(bad.evidence, partitions=results))
    unknown = next((v for v in ordered if v.valid == "unknown"), None)
    evidence = LinearizabilityEvidence(model=model.name, partitions=results)
    if unknown is not None:
        return Verdict(valid="unknown", cause=unknown.cause, evidence=evidence)
    return Verdict(valid=True, cause=LINEARIZABLE, evidence=evidence)


__all__ = ["check_history_spark"]
