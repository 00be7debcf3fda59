"""The compiled search, asked for a part before `refute` and the Python search: `straight_through`.

Why: on a part whose search runs nearly straight through (ten clients over eight keys: about
one op of the key in flight at a time, 1.2-4 steps an op), a check spends its time on what a
step costs, not on the number of steps, and a step of the Python loop (search.py) with its
set-up costs 2-5 us. `cwgl.c` is the plain Wing–Gong/Lowe search (Porcupine's), with two
of search.py's rules, in C; it steps the register and kv ops itself (`Tactics.step_kinds`)
and any other model's ops by calling their compiled steps.

It is asked only where it runs straight: a part whose ok ops have on average more than
`MAX_OVERLAP` others in flight at their call is left to the Python search at once (the plain
search backtracks there, and search.py's reductions win), and it gives up after
`STEPS_PER_OP` steps an op.

What it may do to a verdict: nothing. It answers only with an order; the order is checked
from scratch (`witnessed`: real time, and every output by the model) before it counts, and
with no order (not asked, budget spent, or the part not linearizable) the part is decided as
before: `refute`, then the Python search, which finds the evidence. Without the compiled
module (no C compiler at install), or with `TCMCHECK_PURE_PYTHON=1` (not even imported then),
the answer is always None: the same verdicts, slower (tests/checkers/linearizability/
test_compiled.py requires the module only where CI asks it to: `TCMCHECK_REQUIRE_COMPILED=1`).
The order it finds may differ from the Python search's: another linearization of the same part.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from types import ModuleType
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.search import found_order
from checkers.linearizability.sequential import SequentialModel, stepper
from checkers.linearizability.verdict import PartitionResult
from checkers.linearizability.witness import witnessed

PURE_PYTHON = "TCMCHECK_PURE_PYTHON"
"""The switch that keeps the compiled search out: `TCMCHECK_PURE_PYTHON=1` (any value but empty
or 0) and cwgl is not even imported; every part is decided in Python, with the same verdicts
(for a suspected fault in the C code, or to compare). Read once, when this module is imported."""


def pure_python() -> bool:
    """Is the compiled search switched off (`TCMCHECK_PURE_PYTHON`)?"""
    return os.environ.get(PURE_PYTHON, "") not in ("", "0")


cwgl: ModuleType | None = None
if not pure_python():
    try:
        from checkers.linearizability import cwgl
    except ImportError:  # built without a C compiler: the Python search decides every part
        cwgl = None

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
    """The part shown linearizable by the compiled search within `budget` steps (default:
    `STEPS_PER_OP` an op, plus `STEPS_AT_LEAST`), its order checked by `witnessed`; else None
    (not built, not asked, budget spent, or no linearization: the caller decides the part)."""
    if cwgl is None or not ops:
        return None
    ordered = ops
    calls = [o.call for o in ops]
    if any(a > b for a, b in zip(calls, calls[1:], strict=False)):
        ordered = tuple(sorted(ops, key=lambda o: o.call))  # (paired ops come in call order already)
    rets: list[Any] = [o.ret for o in ordered]
    by_ret = sorted([i for i, r in enumerate(rets) if r is not None], key=rets.__getitem__)
    if budget is None:
        budget = STEPS_PER_OP * len(ordered) + STEPS_AT_LEAST
    kinds = model.tactics.step_kinds
    if kinds is not None:  # (registers and kv: stepped in C, no call per step)
        found = cwgl.first_linearization(ordered, by_ret, model.init, budget, max_overlap, dict(kinds), None, None)
    else:
        read_only = model.tactics.read_only
        found = cwgl.first_linearization(ordered, by_ret, model.init, budget, max_overlap, None,
                                         [stepper(model, o) for o in ordered], [o.f in read_only for o in ordered])
    order, taken = found
    if order is None:
        return None
    line = tuple([ordered[p] for p in order])
    shown = witnessed(model, key, line, range(len(line)))
    if shown is None:  # (a wrong order: never, tests/checkers/test_compiled.py)
        return None
    # the info ops it did not linearize took effect last (as good as never: nothing observes it)
    placed = set(order)
    unused = [o for p, o in enumerate(ordered) if p not in placed]
    states = list(shown.states)
    return found_order(model, key, ops, list(shown.linearization), states,
                       states[-1] if states else model.init, unused, taken)
