"""The Wing–Gong/Lowe search of one part of a history (see wgl.py for the whole check)."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Hashable, Sequence
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.model import SequentialModel
from checkers.linearizability.reductions import Producers, never_leads, useful_info
from checkers.linearizability.verdict import PartitionResult

SLICE = 2048
"""Search iterations between two looks at the clock and the memo size (about a millisecond)."""

DEFAULT_MAX_CACHE = 3_000_000
"""Memo entries over all parts at once; an entry costs ~150 bytes, so ~450 MB at the cap."""

FREE_SECONDS_PER_STATE = 4e-7
"""Time to free one memo entry (measured ~0.2 us, doubled): a search stops early enough
before the deadline to give its memory back in time, so "unknown" comes within the timeout."""

_NO_CHAIN = object()


class Deepest:
    """The deepest point a search reached so far: what an unfinished search can still show.
    Kept as a copy of the search's stack, decoded only when asked for."""

    __slots__ = ("depth", "failing", "frames", "last", "op_of")

    def __init__(self) -> None:
        self.depth = -1
        self.failing: int | None = None  # op id
        self.frames: list[tuple[int, Any]] = []  # (entry, state before)
        self.last: Any = None  # the state after the last frame
        self.op_of: Callable[[int], int] | None = None  # entry -> op id

    @property
    def order(self) -> tuple[int, ...]:
        """Op ids, in linearization order."""
        op_of = self.op_of
        return () if op_of is None else tuple(op_of(e) for e, _ in self.frames)

    @property
    def states(self) -> tuple[Any, ...]:
        frames = self.frames
        return tuple(s for _, s in frames[1:]) + ((self.last,) if frames else ())

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
) -> Search:
    ops = every_op
    useful = useful_info(model, ops) if leave_out else None
    left_out: list[Operation] = []
    if useful is not None:
        left_out = [o for o, u in zip(ops, useful, strict=True) if not u]
        ops = tuple(o for o, u in zip(ops, useful, strict=True) if u)
    n = len(ops)
    if n == 0:
        return found_order(model, key, every_op, [], [], model.init, left_out, 0)
        yield 0  # unreachable: makes this function a generator
    # Events in real-time order. Paired histories have distinct positions; should a call and
    # a return share one (ops built by hand), the call goes first: intervals are closed, so
    # ops that touch overlap. Only ops with a known outcome enter the linked list; an op with
    # unknown outcome (info) has no return: it is a candidate from its call on, forever.
    events: list[tuple[float, int, int]] = []
    ret_pos: list[int] = []  # an op's return position (-1: none, an info op)
    n_info = 0
    for j, o in enumerate(ops):
        events.append((o.call, 0, j))
        if o.ret is not None:
            events.append((o.ret, 1, j))
            ret_pos.append(o.ret)
        else:
            n_info += 1
            ret_pos.append(-1)
    events.sort()
    size = len(events) - n_info + 2  # 0 is the head, size - 1 the tail
    tail = size - 1
    nxt = list(range(1, size + 1))
    prv = list(range(-1, size - 1))
    code = [0] * size  # j >= 0: the call of op j; ~j < 0: its return
    match = [0] * size  # call entry -> its return entry
    rank = [0] * size  # an entry's place among all events
    rank[tail] = len(events)
    code[tail] = ~n  # a return, of no op
    call_entry = [0] * n
    info: list[int] = []  # info ops in call order, and the rank of each one's call
    info_rank: list[int] = []
    pos = 0
    for r, (_, is_return, j) in enumerate(events):
        if ret_pos[j] < 0:
            info.append(j)
            info_rank.append(r)
            continue
        pos += 1
        rank[pos] = r
        if is_return:
            code[pos] = ~j
            match[call_entry[j]] = pos
        else:
            code[pos] = j
            call_entry[j] = pos
    compile_op = model.compile_op
    steps = [compile_op(o) for o in ops] if compile_op is not None else [model.stepper(o) for o in ops]
    bits = bits_of(n)
    info_steps = [steps[j] for j in info]
    info_bits_of = [bits[j] for j in info]
    # Two info ops alike (same f, key and input) are interchangeable once both are called:
    # the later one is tried only after the earlier one is linearized.
    twin = [0] * n_info
    alike: dict[Hashable, int] = {}
    for k, j in enumerate(info if n_info > 1 else ()):
        o = ops[j]
        try:
            twin[k] = alike.get((o.f, o.key, o.input), 0)
            alike[(o.f, o.key, o.input)] = bits[j]
        except TypeError:  # an unhashable input (ops built by hand): no twin
            pass
    # A read that fits the current state is linearized at once, with no alternative tried:
    # if any order completes the history from here, one does with the read next (it changes
    # nothing, and every op that must precede it has returned, so is linearized already).
    read_only = model.read_only
    forced = [o.f in read_only for o in ops]
    deepest.op_of = lambda e: ops[code[e] if e < size else info[e - size]].id
    # pruning by value, set up when first needed (most searches end before)
    producers: Producers | None = None
    restart: list[int] = []
    needed: list[Any] = []
    leads_to: Callable[[Any, Any], bool] = never_leads
    doomed: list[int | None] = [None] * n
    # Most searches run nearly straight through: pruning by value starts only once a search
    # has made more configurations than it has ops (its masks cost more than they save before)
    prune_after = n
    state: Any = model.init
    ok_bits = 0
    info_bits = 0
    not_info = -1  # ~info_bits
    stack: list[tuple[int, Any]] = []  # (entry, state before); an info op's entry is size + k
    # The memo: (ok ops linearized, state) -> the sets of info ops linearized with them. A
    # configuration is dominated by one seen with the same ok ops and state and fewer info ops
    # (an info op may also never take effect, so what one completes, the other does too).
    memo: dict[tuple[Any, ...], list[int]] = {}
    # A chain of info ops is useful only if the ok op right after it sees the difference (a
    # write after it would leave the same state with or without it, so drop the chain: the
    # info ops never took effect). Every linearization can be put in that form, so the search
    # tries an ok op after a chain only if its outcome from the chain's start differs;
    # `chain` is that start (`_NO_CHAIN` outside a chain), `chains` one per info frame.
    chain: Any = _NO_CHAIN
    chains: list[Any] = []
    entries = 0
    best_depth = -1
    furthest = -1  # the latest return (event position) some configuration could not pass
    countdown = SLICE
    entry = nxt[0]
    scan = -1  # >= 0: trying info ops from info[scan] on, before the first return `entry`
    limit = 0
    found = False
    while True:
        countdown -= 1
        if not countdown:
            countdown = SLICE
            yield entries
        failing = -1
        if scan < 0:
            j = code[entry]
            if j >= 0:
                new_state = steps[j](state)
                if new_state is None:
                    need = doomed[j]
                    if need is None:
                        if entries < prune_after:
                            entry = nxt[entry]
                            continue
                        if producers is None:
                            producers = Producers(model, ops, bits)
                            restart, needed, leads_to = producers.restart, producers.needed, producers.leads_to
                        need = doomed[j] = producers.of(j)
                    if need < 0:
                        entry = nxt[entry]
                        continue
                    left = ~ok_bits & not_info
                    if need & left:
                        if leads_to(state, needed[j]):
                            entry = nxt[entry]
                            continue
                        again = restart[j]
                        if again == -2:
                            again = producers.restarts(j)  # type: ignore[union-attr]
                        if again < 0 or again & left:
                            entry = nxt[entry]
                            continue
                    # no op left can produce the state this op needs, or none can lead there
                    # from here (an append cannot undo a wrong append): a dead end
                    failing = j
                    e = entry
                    while code[e] >= 0:
                        e = nxt[e]
                    if e != tail and ret_pos[~code[e]] > furthest:
                        furthest = ret_pos[~code[e]]
                else:
                    if chain is not _NO_CHAIN and steps[j](chain) == new_state:
                        entry = nxt[entry]  # blind to the chain: tried before the chain
                        continue
                    memo_key: tuple[Any, ...] = (ok_bits | bits[j], new_state)
                    seen = memo.get(memo_key)
                    fresh = True
                    if seen is None:
                        memo[memo_key] = [info_bits]
                    else:
                        for b in seen:
                            if not b & not_info:
                                fresh = False
                                break
                        else:
                            admit(seen, info_bits)
                    if fresh:
                        entries += 1
                        stack.append((entry, state))
                        state = new_state
                        ok_bits = memo_key[0]
                        chain = _NO_CHAIN
                        # lift the op: its call and its return leave the list
                        r = match[entry]
                        p, q = prv[entry], nxt[entry]
                        nxt[p] = q
                        prv[q] = p
                        p, q = prv[r], nxt[r]
                        nxt[p] = q
                        prv[q] = p
                        entry = nxt[0]
                        continue
                    if not forced[j]:
                        entry = nxt[entry]
                        continue
                    # a read that fits, whose continuation failed before: so does this one
            elif entry == tail:
                found = True
                break
            elif n_info:
                scan = 0
                limit = rank[entry]
                continue
            else:
                failing = ~j
                if ret_pos[failing] > furthest:
                    furthest = ret_pos[failing]
        else:
            # the ok ops are exhausted up to the return `entry`: try the info ops called before it
            while scan < n_info and info_rank[scan] < limit:
                b = info_bits_of[scan]
                t = twin[scan]
                if info_bits & b or (t and not info_bits & t):
                    scan += 1
                    continue
                new_state = info_steps[scan](state)
                if new_state is None or (
                    chain is not _NO_CHAIN and info_steps[scan](chain) == new_state
                ):
                    # (blind to the chain so far: it would do the same first, on its own)
                    scan += 1
                    continue
                start = state if chain is _NO_CHAIN else chain
                with_it = info_bits | b
                without = ~with_it
                fresh = True
                # what a configuration outside a chain completes, this one does too
                for s in memo.get((ok_bits, new_state), ()):
                    if not s & without:
                        fresh = False
                        break
                if not fresh:
                    scan += 1
                    continue
                memo_key = (ok_bits, new_state, start)
                seen = memo.get(memo_key)
                if seen is None:
                    memo[memo_key] = [with_it]
                else:
                    without = ~with_it
                    for s in seen:
                        if not s & without:
                            fresh = False
                            break
                    else:
                        admit(seen, with_it)
                if fresh:
                    entries += 1
                    stack.append((size + scan, state))
                    chains.append(start)
                    chain = start
                    state = new_state
                    info_bits = with_it
                    not_info = ~with_it
                    scan = -1
                    entry = nxt[0]
                    break
                scan += 1
            if scan < 0:
                continue
            failing = ~code[entry]
            if ret_pos[failing] > furthest:
                furthest = ret_pos[failing]
        if failing >= 0:
            depth = len(stack)
            if depth > best_depth:
                best_depth = deepest.depth = depth
                deepest.failing = ops[failing].id
                deepest.frames = stack[:]
                deepest.last = state
        # backtrack: undo the last choice, and the forced reads above it, then try the next
        scan = -1
        while stack:
            e, state = stack.pop()
            if e >= size:
                k = e - size
                info_bits ^= info_bits_of[k]
                not_info = ~info_bits
                chains.pop()
                chain = chains[-1] if stack and stack[-1][0] >= size else _NO_CHAIN
                scan = k + 1
                entry = nxt[0]
                while code[entry] >= 0:
                    entry = nxt[entry]
                limit = rank[entry]
                break
            j = code[e]
            ok_bits ^= bits[j]
            chain = chains[-1] if stack and stack[-1][0] >= size else _NO_CHAIN
            # unlift: put the return back, then the call (reverse order of the lift)
            r = match[e]
            nxt[prv[r]] = r
            prv[nxt[r]] = r
            nxt[prv[e]] = e
            prv[nxt[e]] = e
            if not forced[j]:
                entry = nxt[e]
                break
        else:
            break  # nothing left to try
    if found:
        order = [ops[code[e] if e < size else info[e - size]].id for e, _ in stack]
        states = [s for _, s in stack]
        states.append(state)
        del states[0]
        # info ops never linearized took effect last (as good as never: nothing observes it)
        unused = [ops[j] for k, j in enumerate(info) if not info_bits & info_bits_of[k]]
        return found_order(model, key, every_op, order, states, state, unused + left_out, entries)
    return PartitionResult(
        key=key,
        operations=every_op,
        valid=False,
        linearization=deepest.order,
        states=deepest.states,
        failing=deepest.failing,
        explored=entries,
        stuck_at=furthest if furthest >= 0 else None,
    )


_BITS: list[int] = [1 << j for j in range(256)]


def bits_of(n: int) -> list[int]:
    """[1 << j for j in range(n)], from a list kept for the purpose."""
    while len(_BITS) < n:
        _BITS.extend(1 << j for j in range(len(_BITS), 2 * len(_BITS)))
    return _BITS[:n]


def found_order(
    model: SequentialModel,
    key: Hashable,
    ops: tuple[Operation, ...],
    order: list[int],
    states: list[Any],
    state: Any,
    unused: list[Operation],
    entries: int,
) -> PartitionResult:
    """A linearization: `order` (op ids) with `states` (after each), then the info ops it did
    not use, last."""
    for o in sorted(unused, key=lambda o: o.call) if unused else ():
        after = model.step(state, o)
        if after is not None:
            state = after
        order.append(o.id)
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
