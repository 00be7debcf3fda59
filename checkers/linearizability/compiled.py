"""The compiled search: asked for a part before `refute` and the Python search
(`straight_through`), and run beside the Python search of a part nothing else decided
(`Alongside`).

Why: on a part whose search runs nearly straight through (ten clients over eight keys: about
one op of the key in flight at a time, 1.2-4 steps an op), a check spends its time on what a
step costs, not on the number of steps, and a step of the Python loop (search.py) with its
set-up costs 2-5 us. `cwgl.c` is the Wing–Gong/Lowe search (Porcupine's), with four of
search.py's rules (its pruning by value among them) and its own order of candidates, in C; it
steps the register and kv ops
itself (`Tactics.step_kinds`, their states interned) and any other model's ops by calling
their compiled steps.

`straight_through` is asked only where it runs straight: a part whose ok ops have on average
more than `MAX_OVERLAP` others in flight at their call is left to the rest of the cascade (the
plain search backtracks there), and it gives up after `STEPS_PER_OP` steps an op. Where the
Python search then runs, `Alongside` runs the compiled search beside it, a slice each in turn,
the compiled one first: neither is faster everywhere (docs/check-history.md, "The compiled
search").

What it may do to a verdict: decide it, as the Python search would. An order is checked from
scratch (`witnessed`: real time, and every output by the model) before it counts. No order with
every configuration tried (its memo below its cap) shows the part not linearizable, with the
Python search's kind of evidence (`_refuted`: the deepest prefix, checked from scratch, the op
that cannot follow it, where the shrinking starts); a refutation rests on the search being
exact, which tests/checkers/linearizability/test_compiled.py holds it to against brute force.
No answer (not asked, budget spent, memo at its cap) leaves the part to `refute` and the Python
search. Without the compiled module (no C compiler at install), or with
`TCMCHECK_PURE_PYTHON=1` (not even imported then), the answer is always None: the same
verdicts, slower (test_compiled.py requires the module only where CI asks it to:
`TCMCHECK_REQUIRE_COMPILED=1`). The order it finds, or the deepest prefix of a part it refutes,
may differ from the Python search's: another of the same part.
"""
from __future__ import annotations

from collections.abc import Hashable
from itertools import islice
from operator import le
from types import ModuleType
from typing import Any

from checkers.linearizability import native
from checkers.linearizability.bounds import BYTES_PER_ENTRY, DEFAULT_MAX_CACHE, SLICE
from checkers.linearizability.history import Operation
from checkers.linearizability.native import PURE_PYTHON as PURE_PYTHON  # (re-exported: the switch)
from checkers.linearizability.native import pure_python as pure_python
from checkers.linearizability.search import found_order
from checkers.linearizability.sequential import SequentialModel, stepper
from checkers.linearizability.verdict import PartitionResult
from checkers.linearizability.witness import lined_up, replayed, stepped

cwgl: ModuleType | None = native.cwgl
"""The compiled module, or None (native.py); tests switch it off here."""

STEPS_PER_OP = 8
"""The budget, in steps per op of the part, plus `STEPS_AT_LEAST` (a step: one op tried in
one configuration). A part it is asked of takes 1.2-4 on the generated families (one part
of 137 ops, 8.6); past the budget the part is the Python search's, so the budget is what a
violation costs more than before (docs/check-history.md, "The compiled search")."""

STEPS_AT_LEAST = 512

MAX_OVERLAP = 2.0
"""Asked only of a part whose ok ops have on average at most this many other ok ops in flight
at their call. On the generated families the parts it shows linearizable within its budget
have at most 1.3; those it cannot (a hot key, one register of many clients, 50 clients over
8 keys) 3.3 and more."""


def compiled() -> bool:
    """Is the compiled search built (and so asked)?"""
    return cwgl is not None


def straight_through(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...],
                     budget: int | None = None, max_overlap: float = MAX_OVERLAP) -> PartitionResult | None:
    """The part decided by the compiled search within `budget` steps (default: `STEPS_PER_OP`
    an op, plus `STEPS_AT_LEAST`): an order checked from scratch (`_shown`), or every
    configuration tried with none (`_refuted`); else None (not built, not asked, budget spent,
    memo at its cap: the caller decides the part)."""
    if cwgl is None or not ops:
        return None
    if budget is None:
        budget = STEPS_PER_OP * len(ops) + STEPS_AT_LEAST
    # (no twins: they spare a search that backtracks, which this one is not asked to be, and
    # finding them is a fixed cost of every part asked; the ok ops by return are found in C,
    # for ops in call order, as paired ops are: one pass over them less here)
    ordered, by_ret, kinds, steps, forced, twins = _arguments(model, ops, with_twins=False, in_order=True)
    try:
        order, taken, refuted = cwgl.first_linearization(ordered, by_ret, model.init, budget, max_overlap, kinds,
                                                         steps, forced, twins)
    except (ValueError, TypeError):  # (not in call order, or built by hand: positions not ints)
        if by_ret is not None:
            raise
        ordered, by_ret, kinds, steps, forced, twins = _arguments(model, ops, with_twins=False)
        order, taken, refuted = cwgl.first_linearization(ordered, by_ret, model.init, budget, max_overlap, kinds,
                                                         steps, forced, twins)
    if refuted is not None:
        return _refuted(key, ops, model, ordered, refuted, taken)
    return None if order is None else _shown(model, key, ops, ordered, order, taken)


ALONGSIDE_SLICE = 128 * SLICE
"""Steps of the compiled search `Alongside` takes for each slice of the Python search: about four
times as long (one slice of the Python search, 2,048 of its iterations, took as long as
50,000-70,000 compiled steps on the kv parts of 50 clients measured, CPU time). Four to one,
not even: on the generated families the compiled search decides most parts the cascade leaves
first (it refutes as well as finds orders), so a part costs 1.25 times the compiled search's
time there; where the Python search's pruning wins, the compiled one costs at most four times
that search's time, and no more than it takes to fill its share of the memo bound
(`MEMO_SHARE`). Measured on seed 35's families and seeds 8675 and 58213's kv-reuse of 50
clients against 32 (even) and 64: 128 was
the fastest on all but one (58213's kv-reuse-5000-c50-ok, 7.8 s against 7.0 s; Porcupine does
not decide it in 60 s), before the compiled search pruned by value. With it (that history:
0.5 s), 256 and 1024 against 128 on nine of the slowest generated histories: 1024 was up to 43 %
faster on the kv-reuse and cas ones, even on kv-hot and kv-random, 256 in between; not changed,
because where the states are not interned (other models: steps called in Python, no pruning
in C) the Python search may still be the faster, and that was not measured
(docs/performance/check-history.md, fourth round; docs/check-history.md, "The compiled
search")."""


MEMO_SHARE = 2
"""`Alongside`'s memo may hold up to 1/`MEMO_SHARE` of the check's memo bound (`max_cache`
entries; each counted at `BYTES_PER_ENTRY` in words held too, as the bound counts the Python
search's), so the Python search beside it always has the other half; but only on a part with
no info op, else 128 MiB as before (`memo_caps`). Its entries count against the bound with the
Python search's (`wgl._Rounds._over_bounds`), so the check as a whole stays within it. Before,
the cap was a fixed 128 MiB everywhere (2.2 million entries of a kv part of 635 ops), and where
the compiled search needed more the Python search decided the part alone, about 20 times
slower a configuration: seed 27182's kv-reuse-5000-c50-bad has a part of 635 ops the compiled
search refutes with 3.5 million entries in 2.2 s, and the Python search in 39 s
(docs/performance/check-history.md, "Issue 35, fifth round: the compiled search's memo")."""


def memo_caps(max_cache: int, with_info: bool) -> tuple[int, int]:
    """`Alongside`'s memo caps for a part of a check bounded at `max_cache` entries: (words
    held, entries), `MEMO_SHARE` of the bound; or (-1, -1), cwgl.c's 128 MiB, for a part with
    info ops (`with_info`). The Python search leaves out those no op observes (`useful_info`),
    which the compiled search searches, so there it may need far fewer configurations (seed
    44721's cas-crashes-1000-c50-bad, 29 of its 33 info ops left out: 20 s with the compiled
    search stopped at 128 MiB, 31 s with it given half the bound), and it gets the time back
    sooner. (Not `useful_info` itself: a pass over a part of thousands of ops, 3 % of a check
    of replicated-kv-20000-c50-bad, whose parts have info ops.)"""
    if with_info:
        return -1, -1
    entries = max(1, max_cache // MEMO_SHARE)
    return entries * BYTES_PER_ENTRY // 8, entries


class Alongside:
    """The compiled search of a part the Python search has (the cascade did not decide it),
    run beside it a slice at a time (`wgl._Rounds`): whichever ends first decides, so a part
    costs at most 1.25 times the compiled search's time, or five times the Python search's
    (`ALONGSIDE_SLICE`). Both prune by value where the states are interned (cwgl.c's
    `st_dead`); the Python search alone leaves unobserved info ops out, and prunes where the
    states are objects, and a configuration costs it about 50 times a step here. An order found
    here is checked from scratch (`witnessed`) like any other; every configuration tried with no order
    shows the part not linearizable (`_refuted`); its memo at its cap (`memo_caps`: half the
    check's `max_cache`, or 128 MiB on a part with info ops) leaves the part to the Python
    search."""

    def __init__(self, model: SequentialModel, key: Hashable, ops: tuple[Operation, ...],
                 max_cache: int = DEFAULT_MAX_CACHE) -> None:
        assert cwgl is not None
        self.model, self.key, self.ops = model, key, ops
        self.ordered, by_ret, kinds, steps, forced, twins = _arguments(model, ops)
        words, entries = memo_caps(max_cache, len(by_ret) < len(self.ordered))
        self.search = cwgl.Searcher(self.ordered, by_ret, model.init, kinds, steps, forced, twins, words, entries)
        self.out = False

    @property
    def memo(self) -> int:
        """Configurations in its memo (held like the Python search's)."""
        return int(self.search.memo)

    def advance(self, steps: int | None = None) -> PartitionResult | None:
        """Up to `steps` more steps (`ALONGSIDE_SLICE`): the part's result once it found an
        order (checked) or tried every configuration (not linearizable, with its evidence);
        else None, and `out` once it has no more to say (its memo at its cap, or an answer
        that did not check)."""
        order = self.search.advance(ALONGSIDE_SLICE if steps is None else steps)
        if order is False:
            return None
        self.out = True
        taken = int(self.search.taken)
        if order is None:
            refuted = self.search.refuted
            return None if refuted is None else _refuted(self.key, self.ops, self.model, self.ordered, refuted, taken)
        return _shown(self.model, self.key, self.ops, self.ordered, order, taken)


def alongside(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...],
              max_cache: int = DEFAULT_MAX_CACHE) -> Alongside | None:
    """The compiled search to run beside the Python search of a part of a check bounded at
    `max_cache` memo entries, or None (not built)."""
    return None if cwgl is None or not ops else Alongside(model, key, ops, max_cache)


def _arguments(model: SequentialModel, ops: tuple[Operation, ...], with_twins: bool = True,
               in_order: bool = False) -> tuple[Any, ...]:
    """What cwgl is given for a part: (ops in call order, the ok ones by return, kinds, steps,
    forced, twins or None). `in_order`: `ops` taken to be in call order (cwgl checks it) and
    the ok ones by return left to cwgl (None), without twins."""
    kinds = model.tactics.step_kinds
    if in_order and kinds is not None:
        return ops, None, dict(kinds), None, None, None
    ordered = ops
    calls = [o.call for o in ops]
    if not all(map(le, calls, islice(calls, 1, None))):  # (at C speed: a fixed cost of every part)
        ordered = tuple(sorted(ops, key=lambda o: o.call))  # (paired ops come in call order already)
    rets: list[Any] = [o.ret for o in ordered]
    by_ret = sorted([i for i, r in enumerate(rets) if r is not None], key=rets.__getitem__)
    read_only = model.tactics.read_only
    twins = ok_twins(ordered, by_ret, read_only) if with_twins else None
    if kinds is not None:  # (registers and kv: stepped in C, no call per step)
        return ordered, by_ret, dict(kinds), None, None, twins
    return (ordered, by_ret, None, [stepper(model, o) for o in ordered], [o.f in read_only for o in ordered],
            twins)


def _shown(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...], ordered: tuple[Operation, ...],
           order: list[int], taken: int) -> PartitionResult | None:
    """The part's result from the compiled search's order, checked from scratch as `witnessed`
    checks one (each position once and real time — `lined_up`, code apart from the search's,
    reading each op's fields anew —, every ok op placed, and every output by the model:
    `stepped`); None for a wrong order (never: tests/checkers/test_compiled.py). (Not
    `witnessed` itself: the info ops the search left out come last, as never taking effect.)"""
    got = lined_up(ordered, order)
    if got is None:
        return None
    line, ids = got
    states = stepped(model, line)
    if states is None:
        return None
    # the info ops it did not linearize took effect last (as good as never: nothing observes it)
    unused = []
    if len(order) < len(ordered):
        placed = set(order)
        unused = [o for p, o in enumerate(ordered) if p not in placed]
    if any(o.ret is not None for o in unused):
        return None
    states = list(states)
    return found_order(model, key, ops, ids, states, states[-1] if states else model.init, unused, taken)


def _refuted(key: Hashable, ops: tuple[Operation, ...], model: SequentialModel, ordered: tuple[Operation, ...],
             refuted: tuple[list[int], int, int], taken: int) -> PartitionResult | None:
    """The part shown not linearizable: the compiled search tried every configuration (its memo
    below its cap) and found no order. Its evidence is the Python search's (`search.Deepest`):
    the deepest configuration every way on from which failed, the op of the earliest return
    still ahead there (it cannot follow), and the furthest return any configuration failed at
    (`stuck_at`, where the shrinking starts). The prefix is checked from scratch as an order
    (`replayed`: real time, every output the model's) and as one the search could be at (every
    op that returned before one of its ops was called is in it; the failing op is an ok op not
    in it); None if it is not (never: tests/checkers/linearizability/test_compiled.py), and the
    Python search decides the part."""
    prefix, fail, far = refuted
    line = [ordered[p] for p in prefix]
    placed = set(prefix)
    if len(placed) != len(prefix) or not 0 <= fail < len(ordered) or fail in placed or ordered[fail].ret is None:
        return None
    latest = max((o.call for o in line), default=None)
    if latest is not None and any(o.ret is not None and o.ret < latest and p not in placed
                                  for p, o in enumerate(ordered)):
        return None
    states = replayed(model, line)
    if states is None:
        return None
    return PartitionResult(key=key, operations=ops, valid=False, linearization=tuple([o.id for o in line]),
                           states=tuple(states), failing=ordered[fail].id, explored=taken,
                           stuck_at=ordered[far].ret if far >= 0 else None)


def ok_twins(ops: tuple[Operation, ...], by_ret: list[int], read_only: frozenset[str]) -> list[int] | None:
    """Per position, the ok op alike it (same f, key, input and output; not a read) that
    returns just before it, or -1 (as the Python search's `Layout._ok_twins`): while both may
    come next, the search tries only the earlier one (cwgl.c, `set_twins`, says why that loses
    no linearization). None where a value is unhashable (ops built by hand): no twins."""
    twin = [-1] * len(ops)
    last: dict[Hashable, int] = {}
    try:
        for i in by_ret:
            o = ops[i]
            if o.f in read_only:
                continue
            alike = (o.f, o.key, o.input, o.output)
            twin[i] = last.get(alike, -1)
            last[alike] = i
    except TypeError:
        return None
    return twin
