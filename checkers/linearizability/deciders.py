"""The ways to decide one part of a history before (or instead of) the search: `cascade()`.

Every decider has one signature, `(model, key, ops) -> PartitionResult | None`: a verdict for
the part, or None when it cannot tell (then the next one is asked, and after the last the
search runs: `wgl._Rounds`). None of them can make a verdict wrong: a linearization one finds
is checked from scratch (`witness.witnessed`: real time, and every output by `step`), and a
violation one shows is exact (the log's fast path, one order only; the compiled search, every
order tried: compiled.py) or a refutation whose argument holds for every model that gives the
tactics it uses (`refute.py`). A decider that
needs a tactic the model lacks answers None, so a model with `NO_TACTICS` is decided by
`in_sequence`, the compiled search and the Python search alone.

In order, cheapest and most often right first:
1. `exact`: the model's own decision procedure (`Tactics.fast_check`: the log's).
2. `in_sequence`: ops that follow one another have one order; step through it.
3. `QuickGuess`: the model's quick guess at a linearization (`Tactics.quick_witness`: kv's
   `by_offsets`), checked.
4. `compiled`: the plain WGL search in C, for parts with few ops in flight at once
   (`compiled.straight_through`: within a budget; its order checked; where it tried every
   order, not linearizable, shown by `refuted` when a stale read shows it).
5. `full_guess`: the model's other guess (`Tactics.witness`: kv's `propose`, the registers'
   chains), checked; or a conflict it names, searched alone.
6. `refuted`: a stale read shown without a search (`refute.refute`).
Deciders 3-6 are asked only of parts of `WITNESS_FROM` ops or more: smaller parts are searched
at once (their search takes a few dozen steps, less than setting a guess up).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from checkers.linearizability.compiled import straight_through
from checkers.linearizability.history import Operation
from checkers.linearizability.refute import refute
from checkers.linearizability.search import Deepest
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.verdict import PartitionResult
from checkers.linearizability.witness import in_sequence, witness

Decider = Callable[[SequentialModel, Hashable, tuple[Operation, ...]], PartitionResult | None]

WITNESS_FROM = 12
"""Parts of fewer ops are searched at once: their search takes a few dozen steps, less than
setting up a witness (Porcupine's c01 keys have 1-10 ops, its c10 keys 23-38)."""


def exact(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...]) -> PartitionResult | None:
    """The model's exact fast path (the log's), unless it cannot decide."""
    fast_check = model.tactics.fast_check
    if fast_check is None:
        return None
    decided = fast_check(ops, model.init, key)
    return None if decided.valid == "unknown" else decided


class QuickGuess:
    """The model's quick guess (`Tactics.quick_witness`), checked. It remembers, across the
    parts of one check, whether it can read this history's values: after two parts running
    where it made no guess, it is not asked again (a fresh one for each check: `cascade`)."""

    def __init__(self) -> None:
        self.misses = 0

    def __call__(self, model: SequentialModel, key: Hashable, ops: tuple[Operation, ...]) -> PartitionResult | None:
        if model.tactics.quick_witness is None or len(ops) < WITNESS_FROM or self.misses >= 2:
            return None
        decided, guessed = witness(model, key, ops, full=False)
        self.misses = 0 if guessed else self.misses + 1
        return decided


def compiled(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...]) -> PartitionResult | None:
    """Few ops in flight at once: the plain search, compiled, runs straight through, in less
    time than the model's full guess takes (see compiled.py). Where it tried every order and
    none fits, a stale read that shows why without a search (`refuted`) is the evidence, if
    there is one: a few ops a reader can check by hand."""
    if len(ops) < WITNESS_FROM:
        return None
    decided = straight_through(model, key, ops)
    if decided is not None and decided.valid is False:
        return refuted(model, key, ops) or decided
    return decided


def full_guess(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...]) -> PartitionResult | None:
    """The model's guess (`Tactics.witness`), checked, or the conflict it names, searched."""
    if model.tactics.witness is None or len(ops) < WITNESS_FROM:
        return None
    decided, _ = witness(model, key, ops, quick=False)
    return decided


def refuted(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...]) -> PartitionResult | None:
    """What spoils a guess is most often a stale read: shown without a search. (Smaller parts
    are asked by the search instead, once its first slice does not end it: `wgl._Rounds`.)"""
    if len(ops) < WITNESS_FROM:
        return None
    shown_by = refute(model, ops)
    return None if shown_by is None else Deepest().refuted(key, ops, 0, shown_by)


def cascade() -> tuple[Decider, ...]:
    """The deciders, in the order they are asked (fresh for each check: `QuickGuess` learns
    about one history)."""
    return (exact, in_sequence, QuickGuess(), compiled, full_guess, refuted)
