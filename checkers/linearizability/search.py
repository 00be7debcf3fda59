"""The Wing–Gong/Lowe search of one part of a history (see wgl.py for the whole check)."""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Generator, Hashable, Sequence
from typing import Any

from attrs import evolve

from checkers.linearizability.bounds import DEFAULT_MAX_CACHE, FREE_SECONDS_PER_STATE, SLICE
from checkers.linearizability.history import Operation
from checkers.linearizability.layout import MORE, Layout, bits_of
from checkers.linearizability.reductions import Pruning, useful_info
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.verdict import PartitionResult

_NO_CHAIN = object()


class Deepest:
    """The deepest point a search reached so far: what an unfinished search can still show.
    Kept as a copy of the search's stack, decoded only when asked for."""

    __slots__ = ("depth", "failing", "frames", "last", "op_of")

    def __init__(self) -> None:
        self.depth = -1
        self.failing: int | None = None  # op id
        self.frames: list[tuple[Any, ...]] = []  # the search's frames: (position, state before, ...)
        self.last: Any = None  # the state after the last frame
        self.op_of: Callable[[int], int] | None = None  # position -> op id

    @property
    def order(self) -> tuple[int, ...]:
        """Op ids, in linearization order."""
        op_of = self.op_of
        return () if op_of is None else tuple(op_of(f[0]) for f in self.frames)

    @property
    def states(self) -> tuple[Any, ...]:
        frames = self.frames
        return tuple(f[1] for f in frames[1:]) + ((self.last,) if frames else ())

    def refuted(
        self, key: Hashable, ops: tuple[Operation, ...], explored: int, shown_by: tuple[Operation, ...]
    ) -> PartitionResult:
        return PartitionResult(
            key=key,
            operations=ops,
            valid=False,
            linearization=self.order,
            states=self.states,
            failing=shown_by[0].id,
            explored=explored,
            refutation=tuple(o.id for o in shown_by),
        )

    def unreachable(self, key: Hashable, ops: tuple[Operation, ...], explored: int, j: Operation) -> PartitionResult:
        """Not linearizable: no linearization reaches op `j`, as far as the history up to its
        return shows (`refute`'s deep answer, which names no small set of ops)."""
        return evolve(self.unknown(key, ops, explored), valid=False, failing=j.id, stuck_at=j.ret)

    def unknown(self, key: Hashable, ops: tuple[Operation, ...], explored: int) -> PartitionResult:
        return PartitionResult(
            key=key,
            operations=ops,
            valid="unknown",
            linearization=self.order,
            states=self.states,
            failing=self.failing,
            explored=explored,
        )


# A search yields the size of its memo every SLICE iterations and returns its PartitionResult.
Search = Generator[int, None, PartitionResult]

def search(
    model: SequentialModel,
    operations: Sequence[Operation],
    *,
    key: Hashable = None,
    deadline: float | None = None,
    max_cache: int = DEFAULT_MAX_CACHE,
    leave_out: bool = True,
) -> PartitionResult:
    """Search one part to the end (or to the deadline / memo cap: valid "unknown").
    `leave_out=False`: the caller has left out the unobserved info ops already."""
    deepest = Deepest()
    run = searching(model, key, tuple(operations), deepest, leave_out)
    while True:
        try:
            size = next(run)
        except StopIteration as stop:
            result: PartitionResult = stop.value
            return result
        late = deadline is not None and time.monotonic() + size * FREE_SECONDS_PER_STATE > deadline
        if late or size > max_cache:
            run.close()
            return deepest.unknown(key, tuple(operations), size)


def searching(
    model: SequentialModel,
    key: Hashable,
    every_op: tuple[Operation, ...],
    deepest: Deepest,
    leave_out: bool = True,
    slice_size: int = SLICE,
) -> Search:
    """The search of one part, as a generator: it yields its memo size every `slice_size`
    steps and returns its `PartitionResult`. Info ops no linearization needs are left out first
    (`useful_info`; `leave_out=False`: the caller has done it) and listed last."""
    ops = every_op
    useful = useful_info(model, ops) if leave_out else None
    left_out: list[Operation] = []
    if useful is not None:
        left_out = [o for o, u in zip(ops, useful, strict=True) if not u]
        ops = tuple(o for o, u in zip(ops, useful, strict=True) if u)
    if not ops:
        return found_order(model, key, every_op, [], [], model.init, left_out, 0)
        yield 0  # unreachable: makes this function a generator
    return (yield from _walk(model, key, every_op, Layout(model, ops), deepest, left_out, slice_size))


_FORCED = ("forced",)  # a configuration whose choice was a read that fits: nothing else to try
_AFTER_FIRST = ("after first",)  # its earliest deadline was tried; the other candidates next


def _walk(
    model: SequentialModel,
    key: Hashable,
    every_op: tuple[Operation, ...],
    lay: Layout,
    deepest: Deepest,
    left_out: list[Operation],
    slice_size: int,
) -> Search:
    """The depth-first search over configurations (ops linearized, state), memoizing those
    that failed. One function, because it is the inner loop: locals are what CPython reads
    fastest, and a call per step would cost more than most steps (docs/check-history.md, "The
    search", gives each rule's argument).

    At a configuration, with o the op of the earliest return still ahead: a read that fits is
    taken at once, with no alternative; else o itself; else (`Layout.later`) the ops that may
    give o the state it needs, the rest of the window in call order, the info ops called by
    then. A frame on the stack holds a configuration, what was tried from it and how to go
    on: (position taken, state, base, rel, rp, info_bits, chain, candidates, next candidate).
    A configuration enters the memo only when every way on from it failed: one still on the stack cannot be reached again
    (its set of ops only grows), so a search that runs straight through stores nothing."""
    ops = lay.ops
    by_ret = lay.by_ret
    m = len(by_ret)
    limit, steps, forced = lay.limit, lay.steps, lay.forced
    info, info_steps, twin = lay.info, lay.info_steps, lay.twin
    rank_of = [-1] * len(ops)
    for k, p in enumerate(info):
        rank_of[p] = k
    reads_needing = lay.reads_needing
    ok_twin = lay.ok_twin
    calls = [x.call for x in ops]
    rets: list[Any] = [x.ret for x in ops]
    due: Any = 0  # the earliest return still ahead (o's)
    bits = bits_of(len(ops) + 1)
    memo: dict[tuple[Any, ...], list[int]] = {}
    stack: list[tuple[Any, ...]] = []
    state: Any = model.init
    base, rel, rp = lay.base, lay.rel, 0
    info_bits = 0
    chain: Any = _NO_CHAIN
    todo: Any = None  # None: a configuration just reached
    pos = o = 0
    prune = Pruning(model, lay, bits)
    entries = visited = 0
    best_depth = furthest = -1
    countdown = slice_size
    deepest.op_of = lambda p: ops[p].id
    deepest_frames = deepest.frames = []
    low = 0  # frames below this depth are the same on the stack and in `deepest_frames`
    backtracked = False
    while True:
        countdown -= 1
        if not countdown:
            countdown = slice_size
            yield entries
        failing = -1
        if todo is None:
            if rp == m:
                break  # every ok op is linearized
            o = by_ret[rp]
            due = rets[o]
            c = -1
            if reads_needing is not None:
                waiting = reads_needing.get(state)
                if waiting is not None:
                    c = _fitting_read(waiting, base, rel, limit[o], steps, state, chain)
            if c >= 0:
                todo = _FORCED
            else:
                c, todo = o, _AFTER_FIRST
        elif todo is _FORCED:
            c = -1
        else:
            if todo is _AFTER_FIRST:
                todo = lay.later(o, state, base, rel, info_bits)
                pos = 0
            if pos < len(todo):
                c = todo[pos]
                if c == MORE:  # the first candidates failed: the others now
                    del todo[pos]
                    todo += lay.rest(o, base, rel, info_bits, set(todo))
                    continue
                pos += 1
            else:
                c = -1
                failing = o
        if c >= 0:
            k = rank_of[c]
            if k < 0:  # an ok op
                tw = ok_twin[c]
                if tw >= base and not rel >> (tw - base) & 1 and calls[tw] <= due:
                    continue  # its alike twin returning earlier is a candidate too: that one first
                new = steps[c](state)
                if new is None:
                    if visited < prune.after or not prune.dead(c, state, base, rel, info_bits):
                        continue
                    failing = c  # it needs a state nothing left can bring back: a dead end
                elif chain is not _NO_CHAIN and steps[c](chain) == new:
                    continue  # blind to the chain: tried before it
                else:
                    d = c - base
                    nrel = rel | bits[d]
                    nbase = base
                    if not d:
                        t = (~nrel & (nrel + 1)).bit_length() - 1
                        nrel >>= t
                        nbase += t
                    seen = memo.get((nrel, nbase, new)) if memo else None
                    if seen is None or _open(seen, info_bits):
                        nrp = rp
                        if c == o:
                            nrp += 1
                            while nrp < m:
                                j = by_ret[nrp]
                                if j >= nbase and not nrel >> (j - nbase) & 1:
                                    break
                                nrp += 1
                        stack.append((c, state, base, rel, rp, info_bits, chain, _FORCED if forced[c] else todo, pos))
                        state, base, rel, rp, chain = new, nbase, nrel, nrp, _NO_CHAIN
                        todo = None
                        visited += 1
                        continue
                    if not forced[c]:
                        continue
                    # a read that fits, whose continuation failed before: so does this one
            else:  # an info op, tried only once its twin is in
                b = bits[k]
                t = twin[k]
                if info_bits & b or (t and not info_bits & t):
                    continue
                new = info_steps[k](state)
                if new is None or new == state or (chain is not _NO_CHAIN and info_steps[k](chain) == new):
                    # (no effect here is as good as never taking effect; blind to the chain so
                    # far, it would do the same first, on its own)
                    continue
                start = state if chain is _NO_CHAIN else chain
                with_it = info_bits | b
                if memo and not (_open(memo.get((rel, base, new), ()), with_it)
                                 and _open(memo.get((rel, base, new, start), ()), with_it)):
                    continue
                # This configuration may come back with more info ops (same ok ops, same state):
                # let it dominate those while it is still being searched.
                here = (rel, base, state) if chain is _NO_CHAIN else (rel, base, state, chain)
                seen = memo.get(here)
                if seen is None:
                    memo[here] = [info_bits]
                    entries += 1
                elif _open(seen, info_bits):
                    admit(seen, info_bits)
                    entries += 1
                stack.append((c, state, base, rel, rp, info_bits, chain, todo, pos))
                state, info_bits, chain = new, with_it, start
                todo = None
                visited += 1
                continue
        if not backtracked:
            lay.backtracking()
            backtracked = True
        if failing >= 0:
            depth = len(stack)
            if depth > best_depth:
                best_depth = deepest.depth = depth
                deepest.failing = ops[failing].id
                # the frames below `low` are unchanged since the last copy: copy the rest only
                del deepest_frames[low:]
                deepest_frames += stack[low:]
                low = depth
                deepest.last = state
            ret = ops[o].ret
            if ret is not None and ret > furthest:
                furthest = ret
        # backtrack: the configuration failed; so did the ones above it that had no choice
        while stack:
            failed = (rel, base, state) if chain is _NO_CHAIN else (rel, base, state, chain)
            seen = memo.get(failed)
            if seen is None:
                memo[failed] = [info_bits]
            else:
                admit(seen, info_bits)
            entries += 1
            _, state, base, rel, rp, info_bits, chain, todo, pos = stack.pop()
            if len(stack) < low:
                low = len(stack)
            if todo is not _FORCED:
                o = by_ret[rp]
                due = rets[o]
                break
        else:
            return PartitionResult(
                key=key,
                operations=every_op,
                valid=False,
                linearization=deepest.order,
                states=deepest.states,
                failing=deepest.failing,
                explored=visited,
                stuck_at=furthest if furthest >= 0 else None,
            )
    order = [ops[f[0]].id for f in stack]
    states = [f[1] for f in stack[1:]]
    states.append(state)
    # info ops never linearized took effect last (as good as never: nothing observes it)
    unused = [ops[p] for k, p in enumerate(info) if not info_bits >> k & 1]
    return found_order(model, key, every_op, order, states, state, unused + left_out, visited)


def _open(failed: Sequence[int] | list[int], info_bits: int) -> bool:
    """Is a configuration with `info_bits` still open, no failed one with the same ok ops
    and state having a subset of its info ops? (What it completes, that one would too: an
    info op may also never take effect.)"""
    others = ~info_bits
    return all(b & others for b in failed)


def _fitting_read(waiting: list[int], base: int, rel: int, hi: int, steps: list[Callable[[Any], Any]],
                  state: Any, chain: Any) -> int:
    """A read of the window not linearized yet that fits `state` (and not the chain's start
    as well: blind to the chain, it was tried before it), or -1."""
    x = bisect_left(waiting, base)
    end = len(waiting)
    while x < end:
        i = waiting[x]
        if i >= hi:
            break
        x += 1
        if rel >> (i - base) & 1 or steps[i](state) is None:
            continue
        if chain is not _NO_CHAIN and steps[i](chain) is not None:
            return -1
        return i
    return -1


def found_order(
    model: SequentialModel,
    key: Hashable,
    ops: tuple[Operation, ...],
    order: Sequence[int],
    states: list[Any],
    state: Any,
    unused: list[Operation],
    entries: int,
) -> PartitionResult:
    """A linearization: `order` (op ids) with `states` (after each), then the info ops it did
    not use, last."""
    if unused:
        order = list(order)
    for o in sorted(unused, key=lambda o: o.call) if unused else ():
        after = model.step(state, o)
        if after is not None:
            state = after
        order.append(o.id)  # type: ignore[attr-defined]  # (a list: above)
        states.append(state)
    return PartitionResult(
        key=key, operations=ops, valid=True, linearization=tuple(order), states=tuple(states), explored=entries
    )


def admit(antichain: list[int], info_bits: int) -> None:
    """Add a set of info ops that no set of `antichain` is part of; drop the sets it is part
    of (they are dominated now): the list stays an antichain, as short as it can be."""
    if len(antichain) > 1:
        antichain[:] = [b for b in antichain if info_bits & ~b]
    antichain.append(info_bits)
