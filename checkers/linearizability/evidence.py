"""Evidence for a violation: the failing op, the longest partial linearization, and a small
failing window (`shrink`: the shortest failing prefix, then QuickXplain over relaxed ops).

Every shrinking trial is bounded in memo entries, not seconds, so the window does not depend
on the machine's speed; the deadline is only a safety net.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from attrs import evolve

from checkers.linearizability.history import Operation
from checkers.linearizability.reductions import useful_info
from checkers.linearizability.refute import refute, refute_by_count
from checkers.linearizability.search import search
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.verdict import LinearizabilityEvidence, PartitionResult
from checkers.linearizability.witness import in_call_order

DEFAULT_MINIMIZE_BUDGET = 10.0
"""Seconds spent on evidence at most (and never past the deadline): a safety net only; the
work bounds below normally end the shrinking first, and keep its result deterministic."""

SHRINK_TRIAL_STATES = 20_000
"""Memo entries one shrinking trial may use; an undecided trial keeps the ops it would drop."""

SHRINK_STATES = 1_000_000
"""Memo entries all shrinking trials together may use (a few seconds of search at most)."""


def violation(
    model: SequentialModel,
    part: PartitionResult,
    *,
    deadline: float | None,
    max_cache: int,
    minimize: bool,
    minimize_budget: float,
) -> LinearizabilityEvidence:
    """The evidence for `part`, shown not linearizable: its failing op, the last op that
    returned before that one was called, the longest partial linearization, and (`minimize`)
    a small failing window (`shrink`)."""
    if model.tactics.fast_check is not None:
        # The fast path decided; a bounded search finds the deepest partial linearization.
        budget = _budget(deadline, minimize_budget)
        cap = min(max_cache, SHRINK_STATES)
        searched = search(model, part.operations, key=part.key, deadline=budget, max_cache=cap)
        if searched.valid is False:
            part = searched
    failing_op = previous_ok = None
    if part.failing is not None:
        failing_op = next(o for o in part.operations if o.id == part.failing)
        call = failing_op.call
        for o in part.operations:  # (the ok op that returned last before its call)
            ret = o.ret
            if ret is not None and ret < call and (previous_ok is None or ret > previous_ok.ret):  # type: ignore[operator]
                previous_ok = o
    window: tuple[Operation, ...] = part.operations
    minimal = False
    shown_by = part.refutation
    if minimize and not shown_by and part.failing is not None:
        # A refutation of the same failing op gives the window's few candidates at once.
        refuted = refute(model, part.operations)
        if refuted is not None and refuted[0].id == part.failing:
            shown_by = tuple(o.id for o in refuted)
    if minimize:
        window, minimal = shrink(
            model,
            part.operations,
            deadline=_budget(deadline, minimize_budget),
            max_cache=max_cache,
            stuck_at=part.stuck_at,
            failing=part.failing,
            shown_by=shown_by,
        )
    return LinearizabilityEvidence(
        model=model.name,
        partitions=(part,),
        key=part.key,
        failing_op=failing_op,
        previous_ok=previous_ok,
        longest_prefix=_ops_of(part),
        prefix_states=part.states,
        window=window,
        window_minimal=minimal,
    )


def _ops_of(part: PartitionResult) -> tuple[Operation, ...]:
    """The ops of the part's longest partial linearization, in its order."""
    if not part.linearization:
        return ()
    by_id = {o.id: o for o in part.operations}
    return tuple(by_id[i] for i in part.linearization)


def _budget(deadline: float | None, seconds: float) -> float:
    own = time.monotonic() + seconds
    return own if deadline is None else min(deadline, own)


class _Work:
    """What the shrinking trials have spent, against their budgets (deterministic: memo
    entries, not seconds; the deadline is only a safety net). A trial asked twice is answered
    from memory."""

    def __init__(self, deadline: float, max_cache: int) -> None:
        self.deadline = deadline
        self.left = SHRINK_STATES
        self.trial_cap = min(SHRINK_TRIAL_STATES, max_cache)
        self.known: dict[tuple[tuple[int, bool], ...], bool] = {}
        self.undecided = False  # a trial ran out of budget (its answer "passes" is a guess)

    @property
    def exhausted(self) -> bool:
        return self.left <= 0 or time.monotonic() >= self.deadline

    def fails(self, model: SequentialModel, ops: Sequence[Operation]) -> bool:
        """Shown not linearizable (undecided counts as no)."""
        kept = [o for o in ops if not (o.ret is None and o.f in model.tactics.read_only)]
        if model.tactics.fast_check is not None:
            return model.tactics.fast_check(kept, model.init, None).valid is False
        trial = tuple((o.id, o.ret is None) for o in kept)
        answer = self.known.get(trial)
        if answer is None:
            # most trials pass, most of them by the plain order of calls (no search); a stale
            # read needs no search (the search would try every order before it), nor stale
            # reads that need more repairs than there are ops to make them
            if in_call_order(model, kept):
                answer = False
            else:
                useful = useful_info(model, kept)
                if useful is not None:  # (and so neither the refutation nor the search sees them)
                    kept = [o for o, u in zip(kept, useful, strict=True) if u]
                answer = refute_by_count(model, kept) or self._searched(model, kept)
            self.known[trial] = answer
        return answer

    def _searched(self, model: SequentialModel, kept: list[Operation]) -> bool:
        if self.exhausted:
            self.undecided = True
            return False
        result = search(
            model, kept, deadline=self.deadline, max_cache=min(self.trial_cap, self.left), leave_out=False,
        )
        self.left -= max(result.explored, 1)
        if result.valid == "unknown":
            self.undecided = True
        return result.valid is False


def as_info(o: Operation) -> Operation:
    return o if o.ret is None else evolve(o, ret=None, output=None, ret_time=None)


def truncate(operations: Sequence[Operation], cut: int) -> tuple[Operation, ...]:
    """The history up to event position `cut`: later ops vanish, ops still open become info."""
    return tuple(
        o if o.ret is not None and o.ret <= cut else as_info(o)
        for o in operations
        if o.call <= cut
    )


def shrink(
    model: SequentialModel,
    operations: Sequence[Operation],
    *,
    deadline: float,
    max_cache: int,
    stuck_at: int | None = None,
    failing: int | None = None,
    shown_by: Sequence[int] = (),
) -> tuple[tuple[Operation, ...], bool]:
    """A small set of ops that cannot be linearized, and whether it is 1-minimal.

    First the shortest failing prefix: a prefix of a linearizable history is linearizable, with
    its open ops as info. The search that found the violation knows where to look: every op
    returning before `stuck_at` was linearized by some order, so the cut there is tried first,
    then a binary search on the later cuts if it passes (on all cuts without `stuck_at`).
    Then QuickXplain (Junker, 2004) on the ops of that prefix, where an op left out of the
    window is not deleted but *relaxed* to an unknown outcome (it may have taken effect at any
    time after its call, or never). So the window fails whatever the other ops did, which keeps
    the writes a failing read depends on (deleting them would make any read of their value
    fail on its own, a useless window); and since "never" is one of the choices, the window
    alone, others deleted, fails too. Relaxing more ops only allows more, so failing is
    monotone and QuickXplain's answer is minimal: relaxing any one more op of it passes. It
    asks O(k log(n/k)) trials for a window of k ops out of n (ddmin asked about twice as
    many), preferring the ops nearest the `failing` op, which it tries first.
    Every trial is a search bounded in memo entries (`SHRINK_TRIAL_STATES`, all trials
    together `SHRINK_STATES`), so the window does not depend on the machine's speed; if a trial
    is undecided the prefix is the window, not shown minimal. `deadline` is a safety net.

    A violation `shown_by` a refutation (`refute`) needs neither step in full: the history up
    to the return of its failing op fails, and so do the refutation's ops with every other op
    relaxed, so QuickXplain picks the window among those few ops (still 1-minimal: relaxing
    any one more op of it passes; only which minimal window is found differs)."""
    ops = tuple(operations)
    work = _Work(deadline, max_cache)
    if shown_by:
        by_id = {o.id: o for o in ops}
        failing_ret = by_id[shown_by[0]].ret
        assert failing_ret is not None  # refute names ok ops only
        cut = truncate(ops, failing_ret)
        return _explain(model, cut, work, [by_id[i] for i in shown_by], cut)
    cuts = sorted(o.ret for o in ops if o.ret is not None)
    lo, hi = 0, len(cuts) - 1
    if stuck_at is not None and stuck_at in cuts:
        first = cuts.index(stuck_at)
        if first < hi and work.fails(model, truncate(ops, cuts[first])):
            hi = first
        lo = first
    while lo < hi and not work.exhausted:
        mid = (lo + hi) // 2
        if work.fails(model, truncate(ops, cuts[mid])):
            hi = mid
        else:
            lo = mid + 1
    if cuts and lo == hi:
        candidate = truncate(ops, cuts[lo])
        if work.fails(model, candidate):
            ops = candidate
    # The failing op first, then the ops that produce or need the state it needs, then the
    # others, each group nearest to the failure in time first: trials then keep few states
    # alive (info ops producing no needed state leave the search) and QuickXplain's first
    # backgrounds already fail more often.
    need = None
    if model.tactics.needs is not None and failing is not None:
        need = next((model.tactics.needs(o) for o in ops if o.id == failing), None)

    def related(o: Operation) -> bool:
        if need is None or o.f in model.tactics.read_only and o.ret is None:
            return False
        produced = None if model.tactics.produces is None or o.f in model.tactics.read_only else model.tactics.produces(o)
        return produced == need or (o.ret is not None and model.tactics.needs(o) == need)  # type: ignore[misc]

    # (ops of unknown outcome are relaxed already: never candidates)
    by_relation = sorted((o for o in ops if o.ret is not None), key=lambda o: (o.id != failing, not related(o), -o.call))
    return _explain(model, ops, work, by_relation, ops)


def _explain(
    model: SequentialModel,
    ops: tuple[Operation, ...],
    work: _Work,
    candidates: list[Operation],
    fallback: tuple[Operation, ...],
) -> tuple[tuple[Operation, ...], bool]:
    """QuickXplain over `candidates` (ops of `ops`, which fails); `fallback` if undecided."""
    read_only = model.tactics.read_only
    relaxed = [(o, None if o.f in read_only else as_info(o)) for o in ops]
    answers: dict[frozenset[int], bool] = {}

    def fails_with(kept: set[int]) -> bool:
        """Does the prefix still fail with every op outside `kept` relaxed (a read: dropped)?
        Relaxed ops called after every kept op returned are left out too: they come after
        them all in any order, and may never take effect."""
        asked = frozenset(kept)
        answer = answers.get(asked)
        if answer is None:
            last = max((o.ret for o in ops if o.ret is not None and o.id in asked), default=-1)
            trial: list[Operation] = []
            for o, r in relaxed:
                if o.id in asked:
                    trial.append(o)
                elif r is not None and o.call <= last:
                    trial.append(r)
            answer = answers[asked] = work.fails(model, trial)
        return answer

    def explain(kept: set[int], fresh: bool, candidates: list[Operation]) -> list[Operation]:
        """QuickXplain: the ops of `candidates` that a failure needs besides `kept`, preferring
        the first ones; `fresh` says `kept` grew since its failure was last asked."""
        if fresh and fails_with(kept):
            return []
        if len(candidates) == 1:
            return candidates
        half = len(candidates) // 2
        first, second = candidates[:half], candidates[half:]
        needed_second = explain(kept | {o.id for o in first}, True, second)
        needed_first = explain(kept | {o.id for o in needed_second}, bool(needed_second), first)
        return needed_first + needed_second

    window = explain(set(), False, candidates) if candidates else []
    kept_ids = {o.id for o in window}
    if not window or work.undecided or not fails_with(kept_ids):
        # a trial ran out of its budget: keep what is known to fail
        return fallback, len(fallback) <= 1
    return tuple(o for o in ops if o.id in kept_ids), True
