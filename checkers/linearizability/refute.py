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
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from heapq import heappop, heappush
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.reductions import leading
from checkers.linearizability.sequential import SequentialModel

SCAN = 256
"""Ops looked at, going back from each op, for one that spoils its state: keeps refuting near
linear on long parts whose values only grow (kv appends with no put: no op spoils any read).
Looking at fewer only finds fewer refutations, never a wrong one."""


def _spoiler(j: Operation, need: Any, changers: list[tuple[int, Operation, Any]], calls: list[int],
             leads: Callable[[Any, Any], bool], may_lead: Any) -> Operation | None:
    """The latest-called op among the SCAN changers called before `j` that returned before `j`
    was called and leaves a state not leading to `need` (a fixed result, or a dependent change
    `may_lead` rules out), or None."""
    i = bisect_left(calls, j.call) - 1
    stop = max(-1, i - SCAN)
    while i > stop:
        _, p, result = changers[i]
        i -= 1
        if p.ret is None or p.ret >= j.call:
            continue  # overlaps j: may come after it
        if not (leads(result, need) if result is not None else may_lead(p, need)):
            return p
    return None


def refute(model: SequentialModel, ops: Sequence[Operation], deep: bool = False) -> tuple[Operation, ...] | None:
    """Ops of `ops` (one part) that cannot be linearized together, or None if none are found:
    the op `j` no linearization can reach first, then the op `p` that spoils its state, then
    the ops that could repair the state but returned before `p` was called. These fail with
    every other op of the part relaxed to unknown outcome (the argument above holds: a relaxed
    op that could repair the state was never among those that returned too early).

    `deep` (models with `builds`, kv's): a repairer leaving a state short of what `j` needs
    (a put of "ab" for a read of "abc") counts only if the appends that may come after `p`
    and before `j` (called before `j` returns, not returned before `p` was called) can build
    the rest (`builds`: "c"). Then only `j` and `p` are named (what it rules out is too many
    ops to list; the history up to `j`'s return fails). Dearer: asked of long searches."""
    needs, produces, may_lead = model.tactics.needs, model.tactics.produces, model.tactics.may_lead
    if needs is None or produces is None:
        return None
    builds = model.tactics.builds if deep else None
    leads: Callable[[Any, Any], bool] = model.tactics.leads_to or operator.eq
    read_only = model.tactics.read_only
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
    pieces = None if builds is None else _Pieces(ops, produces, read_only)
    restarts: dict[Any, list[_Repairers]] = {}  # a needed state -> the repairers of each source
    by_result: dict[Any, _Repairers] = {}  # a fixed result -> the ops producing it, indexed
    sources: Callable[[Any], list[Any]] | None = None  # fixed results leading to a state
    for j in ops:
        if j.ret is None or (need := needs(j)) is None:
            continue
        spoiler = _spoiler(j, need, changers, calls, leads, may_lead)
        if spoiler is None:
            continue
        able = restarts.get(need)
        if able is None:
            if sources is None:
                sources = leading(model, fixed)
            able = restarts[need] = []
            for state in sources(need):
                if state not in by_result:
                    by_result[state] = _Repairers(state, fixed[state])
                able.append(by_result[state])
        if not any(r.can_repair(j, spoiler.call) for r in able):
            early = tuple(r for rs in able for r in rs.ops if r is not j and r.call <= j.ret)
            return (j, spoiler, *early)
        if builds is not None and pieces is not None:
            between = pieces.between(spoiler.call, j.ret)
            if not any(r.can_repair(j, spoiler.call) and builds(r.state, need, between) for r in able):
                return (j, spoiler)
    return None


class _Pieces:
    """The ops whose result depends on the state (appends), ok or not, by call: those that
    may come after an op called at `after` and before one returning at `until`."""

    def __init__(self, ops: Sequence[Operation], produces: Callable[[Operation], Any],
                 read_only: frozenset[str]) -> None:
        dependent = sorted((o for o in ops if o.f not in read_only and produces(o) is None), key=lambda o: o.call)
        self.ok = [o for o in dependent if o.ret is not None]
        self.calls = [o.call for o in self.ok]
        self.longest = max((o.ret - o.call for o in self.ok if o.ret is not None), default=0)
        self.unknown = [o for o in dependent if o.ret is None]

    def between(self, after: float, until: float) -> list[Operation]:
        found = [o for o in self.unknown if o.call <= until]
        k = bisect_right(self.calls, until) - 1
        ok, earliest = self.ok, after - self.longest  # (called earlier: returned before `after`)
        while k >= 0 and self.calls[k] >= earliest:
            o = ok[k]
            if o.ret is not None and o.ret >= after:
                found.append(o)
            k -= 1
        return found


class _Repairers:
    """The ops producing one state, by call, with the latest return among the first k:
    is there one, not `j`, called before `j` returns and not returned before `after`? One
    bisection, not a pass over them all (many puts of one value make long lists)."""

    def __init__(self, state: Any, ops: list[Operation]) -> None:
        self.state = state  # (what they produce)
        self.ops = sorted(ops, key=lambda r: r.call)
        self.calls = [r.call for r in self.ops]
        self.latest: list[float] = []
        top = -_FOREVER
        for r in self.ops:
            ret = _FOREVER if r.ret is None else r.ret
            if ret > top:
                top = ret
            self.latest.append(top)
        self.members = {id(r) for r in self.ops}

    def can_repair(self, j: Operation, after: float) -> bool:
        ret = j.ret
        assert ret is not None  # (asked of ok ops only)
        if id(j) in self.members:  # (j itself does not count: look at the others one by one)
            return any(r is not j and r.call <= ret and (r.ret is None or r.ret >= after) for r in self.ops)
        k = bisect_right(self.calls, ret)
        return k > 0 and self.latest[k - 1] >= after


def refute_by_count(model: SequentialModel, ops: Sequence[Operation]) -> bool:
    """True if `ops` (one part) cannot be linearized because stale reads need more repairs than
    there are ops to make them: each op may take effect once (an info op at most once).

    As in `refute`, an ok op `j` needing V after an op `p` that spoils V (returned before `j`
    was called; here `p` may also be a read that saw a state not leading to V) needs a repairer: an op with a fixed result leading to V, linearized after `p`
    and before `j`, so called before `j` returns and not returned before `p` was called. Two
    such needs whose intervals are ordered in real time (`j1` returns before `p2` is called)
    need two distinct repairers: `r1 < j1 < p2 < r2` in every linearization. So for a chain of
    real-time-ordered needs of one state, the repairers must match the needs one to one; when
    no matching exists (the chain needs more repairers than can serve it), the part is not
    linearizable. Each repairer can serve a contiguous run of the chain (its intervals' ends
    only grow), so earliest-deadline-first decides the matching. The chain is the greedy
    earliest-ending one of each state's needs, each with its latest-called spoiler (the
    tightest interval): a heuristic for which chains are tried, never for the answer. Used by
    the shrinking to answer a trial without a search (etcd_057 and etcd_099 of Porcupine's
    corpus: violations that need a timed-out write to take effect twice). It also answers
    True for every single need no repairer can serve (`refute`'s stale read, with the reads as
    spoilers too), so a trial asks this alone."""
    needs, produces, may_lead = model.tactics.needs, model.tactics.produces, model.tactics.may_lead
    if needs is None or produces is None:
        return False
    leads: Callable[[Any, Any], bool] = model.tactics.leads_to or operator.eq
    read_only = model.tactics.read_only
    fixed: dict[Any, list[Operation]] = {}
    # ok ops that leave a known state: changers with a fixed result, and the ok ops that saw
    # one (a read of V: the state was V there), dependent changers (appends) with None
    changers: list[tuple[int, Operation, Any]] = []
    for o in ops:
        if o.f in read_only:
            if o.ret is not None and (seen := needs(o)) is not None:
                changers.append((o.call, o, seen))
            continue
        result = produces(o)
        if result is not None:
            fixed.setdefault(result, []).append(o)
        elif may_lead is None:
            return False
        if o.ret is not None:
            changers.append((o.call, o, result))
    changers.sort(key=lambda c: c[0])
    calls = [c[0] for c in changers]
    intervals: dict[Any, list[tuple[int, int, Operation]]] = {}  # state -> (spoiler's call, j's return, j)
    sources: Callable[[Any], list[Any]] | None = None
    for j in ops:
        if j.ret is None or (need := needs(j)) is None:
            continue
        p = _spoiler(j, need, changers, calls, leads, may_lead)
        if p is not None:
            intervals.setdefault(need, []).append((p.call, j.ret, j))
    for need, spans in intervals.items():
        if sources is None:
            sources = leading(model, fixed)  # (only the ops producing the state itself, without leads_to)
        repairers = [r for state in sources(need) for r in fixed[state]]
        # one need no repairer can serve (`refute`'s case): the latest return among the
        # repairers called before j returns comes before the spoiler was called
        repairers.sort(key=lambda r: r.call)
        by_call = [r.call for r in repairers]
        latest: list[float] = []
        for r in repairers:
            ret = _FOREVER if r.ret is None else r.ret
            latest.append(ret if not latest or ret > latest[-1] else latest[-1])
        for a, b, j in spans:
            k = bisect_right(by_call, b)
            if k == 0 or latest[k - 1] < a:
                return True
            own = j.f not in read_only and (result := produces(j)) is not None and leads(result, need)
            if own and not any(r is not j and (r.ret is None or r.ret >= a) for r in repairers[:k]):
                return True  # j alone could repair: it cannot precede itself
        if len(spans) < 2:
            continue
        spans.sort(key=lambda s: (s[1], -s[0]))
        chain: list[tuple[int, int]] = []
        for a, b, _ in spans:
            if not chain or a > chain[-1][1]:
                chain.append((a, b))
        if len(chain) < 2:
            continue
        starts = [a for a, _ in chain]
        ends = [b for _, b in chain]
        # each repairer serves the chain's needs lo..hi: called before the need's op returns
        # (b >= call), not returned before its spoiler was called (a <= ret)
        ranges: list[tuple[int, int]] = []
        for r in repairers:
            lo = bisect_left(ends, r.call)
            hi = len(chain) - 1 if r.ret is None else bisect_right(starts, r.ret) - 1
            if lo <= hi:
                ranges.append((lo, hi))
        if len(ranges) < len(chain):
            return True
        ranges.sort()
        waiting: list[int] = []  # the ends of the ranges open at the current need
        k = 0
        for i in range(len(chain)):
            while k < len(ranges) and ranges[k][0] == i:
                heappush(waiting, ranges[k][1])
                k += 1
            while waiting and waiting[0] < i:
                heappop(waiting)
            if not waiting:
                return True
            heappop(waiting)
    return False


_FOREVER = float("inf")
