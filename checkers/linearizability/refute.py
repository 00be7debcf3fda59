"""Refuting a part without a search: an ok op whose needed state real time alone rules out.

The search proves a violation by trying every order; many violations need no search. An ok op
`j` that needs one state V (a read of V; a cas expecting V) must come after every op that
returned before it was called. If one of those, `p`, leaves a state from which V cannot be
reached by the ops whose result depends on the state (an append cannot remove a suffix; a
register's write of another value stays until the next write), then some op with a fixed
result (a write, a put, a cas) that leads to V must take effect after `p` and before `j`. If
no op can (none called before `j` returns and returning after `p` is called), `j` can never be
linearized: the part is not linearizable. That is the stale read, in registers and in kv.

Only `p` called last among those spoiling V needs checking: a restart after it is one after
every earlier `p`. Used to schedule parts (a refuted part is searched first, so its violation is
found without first searching the others), never to decide a verdict alone: the search still
runs on that part, and finds the violation and its evidence.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.model import SequentialModel

SCAN = 256
"""Ops looked at, going back from each op, for one that spoils its state: keeps refuting near
linear on long parts whose values only grow (kv appends with no put: no op spoils any read).
Looking at fewer only finds fewer refutations, never a wrong one."""


def refute(model: SequentialModel, ops: Sequence[Operation]) -> tuple[Operation, ...] | None:
    """Ops of `ops` (one part) that cannot be linearized together, or None if none are found:
    the op `j` no linearization can reach first, then the op `p` that spoils its state, then
    the ops that could repair the state but returned before `p` was called. These fail with
    every other op of the part relaxed to unknown outcome (the argument above holds: a relaxed
    op that could repair the state was never among those that returned too early)."""
    needs, produces, may_lead = model.needs, model.produces, model.may_lead
    if needs is None or produces is None:
        return None
    leads: Callable[[Any, Any], bool] = model.leads_to or operator.eq
    read_only = model.read_only
    fixed: dict[Any, list[Operation]] = {}  # a fixed result -> the ops (ok or not) producing it
    changers: list[tuple[int, Operation, Any]] = []  # ok ops changing the state: (call, op, result)
    for o in ops:
        if o.f in read_only:
            continue
        result = produces(o)
        if result is not None:
            fixed.setdefault(result, []).append(o)
        elif may_lead is None:
            return None  # a result that depends on the state, and no way to reason about it
        if o.ret is not None:
            changers.append((o.call, o, result))
    changers.sort(key=lambda c: c[0])
    calls = [c[0] for c in changers]
    restarts: dict[Any, list[Operation]] = {}
    for j in ops:
        if j.ret is None or (need := needs(j)) is None:
            continue
        spoiler = None
        i = bisect_left(calls, j.call) - 1
        stop = max(-1, i - SCAN)
        while i > stop:
            _, p, result = changers[i]
            i -= 1
            if p.ret is None or p.ret >= j.call:
                continue  # overlaps j: may come after it
            if not (leads(result, need) if result is not None else may_lead(p, need)):  # type: ignore[misc]
                spoiler = p
                break
        if spoiler is None:
            continue
        able = restarts.get(need)
        if able is None:
            able = restarts[need] = [r for state, rs in fixed.items() if leads(state, need) for r in rs]
        after = spoiler.call
        ret = j.ret
        if not any(r is not j and r.call <= ret and (r.ret is None or r.ret >= after) for r in able):
            early = tuple(r for r in able if r is not j and r.call <= ret)
            return (j, spoiler, *early)
    return None
