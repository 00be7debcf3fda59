"""The Wing–Gong/Lowe linearizability search, top to bottom. No I/O, no text.

`check(model, history, *, deadline)` pairs the history's events into operations, splits them
into the model's independent parts (P-compositionality: a history is linearizable iff each
part is), searches every part, and returns a `Verdict`. For a violation it then shrinks the
failing part to a minimal sub-history that still fails (`window`).

The search (Lowe's refinement of Wing & Gong, as in Porcupine's checker.go): the call and
return events of a part form a doubly linked list in real-time order. Walking it from the
head, a call event is a candidate to linearize next: if the model accepts it and the pair
(set of linearized ops, new state) is new, the op is lifted out of the list (call and return)
and the walk restarts at the head. Reaching a return event means its op should already have
been linearized: undo the last choice and try the next candidate after it. The list empties
iff a linearization exists. The set of linearized ops is a Python int used as a bitset, and the
memo of (bitset, state) pairs is what makes the search practical: two orders reaching the
same state with the same ops done have the same future.

Reductions on top, each keeping every verdict (docs/check-history.md, "The search"): a read
that fits is linearized at once; ops with unknown outcome (info) stay out of the list and are
tried after the ok candidates, a configuration with a subset of another's info ops dominates it,
alike info ops are tried in call order, and a chain of info ops is tried only before an ok op
that sees it; an op whose needed state no op left can produce ends the branch (pruning by
value, from the model's `needs`/`produces`/`reaches`/`leads_to`).

Bounds: parts are searched round-robin, a slice of iterations each, like Porcupine's
goroutines, so one expensive key cannot hide a cheap violation in another; the deadline is
checked between slices (every `SLICE` iterations, so also inside a long search); the memo of
all running parts together is capped at `max_cache` entries. Running out of either gives
`valid="unknown"` with its cause, never a wrong verdict.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence

from checkers.linearizability.evidence import DEFAULT_MINIMIZE_BUDGET, violation
from checkers.linearizability.history import Op, Operation, pair
from checkers.linearizability.model import SequentialModel
from checkers.linearizability.parts import partition
from checkers.linearizability.refute import refute
from checkers.linearizability.search import (
    DEFAULT_MAX_CACHE,
    FREE_SECONDS_PER_STATE,
    Deepest,
    Search,
    search,
    searching,
)
from checkers.linearizability.verdict import (
    CACHE_LIMIT,
    LINEARIZABLE,
    NOT_LINEARIZABLE,
    TIMEOUT,
    LinearizabilityEvidence,
    PartitionResult,
    Verdict,
)
from checkers.linearizability.witness import witness

__all__ = ["DEFAULT_MAX_CACHE", "check", "check_operations", "partition", "search"]

WITNESS_FROM = 12
"""Parts of fewer ops are searched at once: their search takes a few dozen steps, less than
setting up a witness (Porcupine's c01 keys have 1-10 ops, its c10 keys 23-38)."""


def check(
    model: SequentialModel,
    history: Sequence[Op],
    *,
    deadline: float | None = None,
    max_cache: int = DEFAULT_MAX_CACHE,
    minimize: bool = True,
    minimize_budget: float = DEFAULT_MINIMIZE_BUDGET,
) -> Verdict:
    """Is `history` linearizable with respect to `model`?

    `deadline` is a `time.monotonic()` instant; past it the answer is "unknown" (cause
    "timeout"). Raises `HistoryError` for a history whose events do not pair up."""
    return check_operations(
        model,
        pair(history),
        deadline=deadline,
        max_cache=max_cache,
        minimize=minimize,
        minimize_budget=minimize_budget,
    )


def check_operations(
    model: SequentialModel,
    operations: Sequence[Operation],
    *,
    deadline: float | None = None,
    max_cache: int = DEFAULT_MAX_CACHE,
    minimize: bool = True,
    minimize_budget: float = DEFAULT_MINIMIZE_BUDGET,
) -> Verdict:
    """`check` for operations already paired (e.g. a sub-history)."""
    # The memo holds millions of small tuples and no reference cycles: with the cyclic garbage
    # collector on, its full passes over them cost up to half the search time and pause for
    # longer than a slice (so past the deadline). Reference counting still frees everything.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _check(model, operations, deadline, max_cache, minimize, minimize_budget)
    finally:
        if collecting:
            gc.enable()


def _check(
    model: SequentialModel,
    operations: Sequence[Operation],
    deadline: float | None,
    max_cache: int,
    minimize: bool,
    minimize_budget: float,
) -> Verdict:
    parts = partition(model, operations)
    results: dict[int, PartitionResult] = {}
    failed: int | None = None
    unknown_cause: str | None = None

    # Exact fast paths first (the log's), searching only the parts they cannot settle.
    pending: list[int] = []
    for i, (key, ops) in enumerate(parts):
        if model.fast_check is not None:
            fast = model.fast_check(ops, model.init, key)
            if fast.valid is True:
                results[i] = fast
                continue
            if fast.valid is False and failed is None:
                failed = i
                results[i] = fast
                continue
        if failed is None:
            pending.append(i)

    if failed is None:
        deepest: dict[int, Deepest] = {}
        searches: dict[int, Search] = {}
        sizes: dict[int, int] = {}
        unrefuted: set[int] = set()
        witnessing = model.witness is not None or model.quick_witness is not None

        def advance(i: int) -> bool:
            """One slice of part i's search; True when the check must stop."""
            nonlocal failed, unknown_cause
            try:
                sizes[i] = next(searches[i])
            except StopIteration as stop:
                result: PartitionResult = stop.value
                results[i] = result
                del searches[i], sizes[i]
                if result.valid is False:
                    failed = i
                    return True
                return False
            if i in unrefuted:
                # A search that does not end within its first slice may be a long one:
                # a violation that needs no search ends it now (and the check).
                unrefuted.discard(i)
                shown_by = refute(model, parts[i][1])
                if shown_by is not None:
                    searches.pop(i).close()
                    results[i] = deepest[i].refuted(parts[i][0], parts[i][1], sizes.pop(i), shown_by)
                    failed = i
                    return True
            held = sum(sizes.values())
            if deadline is not None and time.monotonic() + held * FREE_SECONDS_PER_STATE > deadline:
                unknown_cause = TIMEOUT
                return True
            if held > max_cache:
                unknown_cause = CACHE_LIMIT
                return True
            return False

        # Each part's first slice in turn (a witness, or a refutation, is part of it), so a
        # violation in one part stops the others before they are looked at; then the
        # searches left, a slice each in turn.
        for i in pending:
            key, ops = parts[i]
            deepest[i] = Deepest()
            if witnessing and len(ops) >= WITNESS_FROM:
                shown = witness(model, key, ops)
                if shown is not None:
                    results[i] = shown
                    continue
                shown_by = refute(model, ops)  # (most often a stale read, also what spoils a guess)
                if shown_by is not None:
                    results[i] = deepest[i].refuted(key, ops, 0, shown_by)
                    failed = i
                    break
            else:
                unrefuted.add(i)
            searches[i] = searching(model, key, ops, deepest[i])
            sizes[i] = 0
            if advance(i):
                break
        else:
            while searches and not any(advance(i) for i in list(searches)):
                pass
        for i, unfinished in searches.items():
            unfinished.close()
            results[i] = deepest[i].unknown(parts[i][0], parts[i][1], sizes[i])

    ordered = tuple(
        results.get(i) or PartitionResult(key=k, operations=ops, valid="unknown")
        for i, (k, ops) in enumerate(parts)
    )
    if failed is not None:
        evidence = violation(
            model,
            ordered,
            failed,
            deadline=deadline,
            max_cache=max_cache,
            minimize=minimize,
            minimize_budget=minimize_budget,
        )
        return Verdict(valid=False, cause=NOT_LINEARIZABLE, evidence=evidence)
    evidence = LinearizabilityEvidence(model=model.name, partitions=ordered)
    if unknown_cause is not None:
        return Verdict(valid="unknown", cause=unknown_cause, evidence=evidence)
    return Verdict(valid=True, cause=LINEARIZABLE, evidence=evidence)
