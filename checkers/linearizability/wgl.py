"""Linearizability of a history, top to bottom: `check` and `check_operations`. No I/O, no text.

`check(model, history, *, deadline)` pairs the history's events into operations, splits them
into the model's independent parts (`parts.partition`: P-compositionality, a history is
linearizable iff each part is), decides every part, and returns a `Verdict`. For a violation
it then shrinks the failing part to a minimal sub-history that still fails (`evidence.py`).

A part is decided by the first decider of `deciders.cascade()` that can (the model's exact fast
path; stepping through its only order; the model's guesses and the compiled search, each
checked; a refutation without a search: one tuple of functions with one signature, listed in
deciders.py), else by the search (`search.py`, the Wing–Gong/Lowe search with the reductions of
`reductions.py`; `refute` is asked again of a search that does not end within its first
slice, if it was not asked before).

Bounds: parts are searched round-robin, smallest first, a slice of steps each (the compiled
search's, then the Python search's; slices growing from 1/2**GROWTH of a full one), like
Porcupine's goroutines, so one expensive key cannot hide a cheap violation in another; the
check stops at the first part shown not linearizable. The deadline is checked between
slices (every `SLICE` steps, so also inside a long search); the memo of all running parts
together is capped at `max_cache` entries. Running out of either gives `valid="unknown"` with
its cause, never a wrong verdict; and since the order of the work depends only on the
history, never on the clock, two runs that both decide give the same verdict.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Hashable, Sequence

from checkers.linearizability import compiled, deciders
from checkers.linearizability.bounds import DEFAULT_MAX_CACHE, FREE_SECONDS_PER_STATE, SLICE
from checkers.linearizability.evidence import DEFAULT_MINIMIZE_BUDGET, violation
from checkers.linearizability.history import Op, Operation, pair
from checkers.linearizability.parts import merge_verdicts, partition, verdict_of
from checkers.linearizability.refute import refute
from checkers.linearizability.search import Deepest, Search, search, searching
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.verdict import (
    CACHE_LIMIT,
    TIMEOUT,
    PartitionResult,
    Verdict,
)

GROWTH = 4
"""A part's first slice is 1/2**GROWTH of a full one, and each next one twice as long, up to
full (`_Rounds._advance`)."""


def _base_slice() -> int:
    """The Python search's own slice (`searching`'s `slice_size`): a turn takes a whole number
    of them. (Read at each use: tests set `SLICE`.)"""
    return max(1, SLICE >> GROWTH)


__all__ = ["DEFAULT_MAX_CACHE", "SLICE", "check", "check_operations", "merge_verdicts", "partition", "search"]

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
        parts = partition(model, operations)
        rounds = _Rounds(model, parts, deadline, max_cache)
        rounds.run()
        got = rounds.results
        results = tuple([got.get(i) or PartitionResult(key=k, operations=ops, valid="unknown")
                         for i, (k, ops) in enumerate(parts)])
        failure = None
        if rounds.failed is not None:
            failure = violation(model, results[rounds.failed], deadline=deadline, max_cache=max_cache,
                                minimize=minimize, minimize_budget=minimize_budget)
            results = results[: rounds.failed] + failure.partitions + results[rounds.failed + 1 :]
        unknown = rounds.unknown_cause or (TIMEOUT if len(got) < len(parts) else None)
        return verdict_of(model.name, results, failure, unknown)
    finally:
        if collecting:
            gc.enable()


class _Rounds:
    """The parts of one history decided in turn: `run()` fills `results`, and `failed` (the
    part shown not linearizable) or `unknown_cause` (a bound ran out)."""

    def __init__(self, model: SequentialModel, parts: Sequence[tuple[Hashable, tuple[Operation, ...]]],
                 deadline: float | None, max_cache: int) -> None:
        self.model, self.parts, self.deadline, self.max_cache = model, parts, deadline, max_cache
        self.results: dict[int, PartitionResult] = {}
        self.failed: int | None = None
        self.unknown_cause: str | None = None
        self.searches: dict[int, Search] = {}
        self.sizes: dict[int, int] = {}
        self.deepest: dict[int, Deepest] = {}
        self.deciders = deciders.cascade()
        self.deep: set[int] = set()  # parts `refute` was asked of with `deep`
        self.alongside: dict[int, compiled.Alongside | None] = {}  # None: none (any more)
        self.turns: dict[int, int] = {}  # slices each search had so far

    def run(self) -> None:
        """Each part's first slice in turn, smallest parts first (a fast path, a witness, or a
        refutation, is part of it), so a violation in one part stops the others before they
        are looked at; then the searches left, a slice each in turn."""
        order = sorted(range(len(self.parts)), key=lambda i: len(self.parts[i][1]))
        for i in order:
            # (`refute` was asked of a part of WITNESS_FROM ops or more already, by the cascade)
            if self._start(i) or (i in self.searches and self._advance(i, first=len(self.parts[i][1]) < deciders.WITNESS_FROM)):
                break
        else:
            while self.searches and not any(self._advance(i) for i in list(self.searches)):
                pass
        self.alongside.clear()
        for i, unfinished in self.searches.items():
            unfinished.close()
            key, ops = self.parts[i]
            self.results[i] = self.deepest[i].unknown(key, ops, self.sizes[i])

    def _start(self, i: int) -> bool:
        """Decide part i by the first decider that can (`deciders.cascade`), else start its
        search; True when the check must stop (the part is not linearizable)."""
        model = self.model
        key, ops = self.parts[i]
        decided = None
        for decide in self.deciders:
            decided = decide(model, key, ops)
            if decided is not None:
                break
        if decided is not None:
            self.results[i] = decided
            if decided.valid is False:
                self.failed = i
                return True
            return False
        self.deepest[i] = Deepest()
        self.searches[i] = searching(model, key, ops, self.deepest[i], slice_size=_base_slice())
        self.sizes[i] = 0
        self.turns[i] = 0
        return False

    def _advance(self, i: int, first: bool = False) -> bool:
        """One slice of part i's searches, the compiled one's first (`_alongside`); True when
        the check must stop. Slices grow: a part's first is 1/2**GROWTH of a full one (`SLICE`,
        `compiled.ALONGSIDE_SLICE`), each next one twice as long, so a part decided in a few
        thousand steps is decided before the others had more than a few each, and a check
        spends at most about twice on its undecided parts what the same rounds of full slices
        would. A part's first turn is the compiled search's alone (a part it decides in a few
        thousand steps, most of those the cascade leaves, costs no set-up of the Python search,
        which is most of that search's first slice). A search that does not end within its
        first slice may be a long one: a violation that needs no search (`refute`, unless asked
        already) ends it then."""
        turn = self.turns[i] = self.turns[i] + 1
        grown = 1 << min(turn - 1, GROWTH)
        if not first:
            beside = self._alongside(i, grown)
            if beside is not None:
                return beside
            if turn == 1 and self.alongside[i] is not None:
                return self._over_bounds()
        try:
            search = self.searches[i]
            # (a part smaller than WITNESS_FROM ops has a full first slice, as it had before
            # slices grew: its search most often ends within it, and the refutation and the
            # compiled search asked of one that does not end are a fixed cost of each part)
            full = max(1, SLICE // _base_slice())
            for _ in range(full if first else min(grown, full)):
                self.sizes[i] = next(search)
        except StopIteration as stop:
            result: PartitionResult = stop.value
            self.results[i] = result
            del self.searches[i], self.sizes[i]
            if result.valid is False:
                self.failed = i
                return True
            return False
        key, ops = self.parts[i]
        if first:
            shown_by = refute(self.model, ops)
            if shown_by is not None:
                self.searches.pop(i).close()
                self.results[i] = self.deepest[i].refuted(key, ops, self.sizes.pop(i), shown_by)
                self.failed = i
                return True
        if self.sizes[i] > len(ops) and i not in self.deep and self.model.tactics.builds is not None:
            # its memo outgrew the part: a long search ahead, worth a refutation that looks
            # further (what repairs a stale read could complete: `refute`'s deep)
            self.deep.add(i)
            shown_by = refute(self.model, ops, deep=True)
            if shown_by is not None:
                self.searches.pop(i).close()
                self.results[i] = self.deepest[i].unreachable(key, ops, self.sizes.pop(i), shown_by[0])
                self.failed = i
                return True
        return self._over_bounds()

    def _over_bounds(self) -> bool:
        """Past the deadline, or the memo of every search running over `max_cache`: True, with
        `unknown_cause` set (the check stops)."""
        held = sum(self.sizes.values()) + sum(c.memo for c in self.alongside.values() if c is not None)
        if self.deadline is not None and time.monotonic() + held * FREE_SECONDS_PER_STATE > self.deadline:
            self.unknown_cause = TIMEOUT
            return True
        if held > self.max_cache:
            self.unknown_cause = CACHE_LIMIT
            return True
        return False

    def _alongside(self, i: int, grown: int) -> bool | None:
        """A slice of the compiled search run beside part i's (`compiled.Alongside`, made at
        the part's first slice, or at its second for a part smaller than
        `deciders.WITNESS_FROM`, whose Python search most often ends in a few dozen steps),
        `grown`/2**GROWTH of a full one. When it decided the part, the Python search is closed
        and the answer is whether the check must stop (the part is not linearizable); None
        when it did not."""
        if i not in self.alongside:
            key, ops = self.parts[i]
            self.alongside[i] = compiled.alongside(self.model, key, ops, self.max_cache)
        beside = self.alongside[i]
        if beside is None:
            return None
        decided = beside.advance(max(1, compiled.ALONGSIDE_SLICE * grown >> GROWTH))
        if beside.out:
            self.alongside[i] = None  # (its memory back now)
        if decided is None:
            return None
        self.searches.pop(i).close()
        del self.sizes[i]
        self.results[i] = decided
        if decided.valid is False:
            self.failed = i
            return True
        return False
