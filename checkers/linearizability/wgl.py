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
from bisect import bisect_right
from collections.abc import Callable, Generator, Hashable, Sequence
from typing import Any

from attrs import evolve

from checkers.linearizability.history import Op, Operation, pair, unpair
from checkers.linearizability.model import SequentialModel, _by_key
from checkers.linearizability.refute import refute, refute_by_count
from checkers.linearizability.verdict import (
    CACHE_LIMIT,
    LINEARIZABLE,
    NOT_LINEARIZABLE,
    TIMEOUT,
    LinearizabilityEvidence,
    PartitionResult,
    Verdict,
)

SLICE = 2048
"""Search iterations between two looks at the clock and the memo size (about a millisecond)."""

DEFAULT_MAX_CACHE = 3_000_000
"""Memo entries over all parts at once; an entry costs ~150 bytes, so ~450 MB at the cap."""

DEFAULT_MINIMIZE_BUDGET = 10.0
"""Seconds spent on evidence at most (and never past the deadline): a safety net only; the
work bounds below normally end the shrinking first, and keep its result deterministic."""

SHRINK_TRIAL_STATES = 20_000
"""Memo entries one shrinking trial may use; an undecided trial keeps the ops it would drop."""

SHRINK_STATES = 1_000_000
"""Memo entries all shrinking trials together may use (a few seconds of search at most)."""

FREE_SECONDS_PER_STATE = 4e-7
"""Time to free one memo entry (measured ~0.2 us, doubled): a search stops early enough
before the deadline to give its memory back in time, so "unknown" comes within the timeout."""

WITNESS_FROM = 12
"""Parts of fewer ops are searched at once: their search takes a few dozen steps, less than
setting up a witness (Porcupine's c01 keys have 1-10 ops, its c10 keys 23-38)."""

_NO_CHAIN = object()


class _Deepest:
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
        deepest: dict[int, _Deepest] = {}
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
            deepest[i] = _Deepest()
            if witnessing and len(ops) >= WITNESS_FROM:
                shown = _witness(model, key, ops)
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
            searches[i] = _search(model, key, ops, deepest[i])
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
        evidence = _violation(
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


def _witness(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...]) -> PartitionResult | None:
    """The part shown linearizable by one of the model's guesses at a linearization
    (`quick_witness`, then `witness`), each checked by `_witnessed`; or None."""
    for guess in (model.quick_witness, model.witness):
        order = None if guess is None else guess(ops, model.init)
        if order is not None:
            shown = _witnessed(model, key, ops, order)
            if shown is not None:
                return shown
    return None


def _witnessed(
    model: SequentialModel, key: Hashable, ops: tuple[Operation, ...], order: Sequence[int]
) -> PartitionResult | None:
    """The part's linearization `order` (positions in `ops`), checked from scratch, or None
    if it is not one.

    Checked here, not trusted: `order` holds each position of `ops` exactly once;
    no op comes after one that was called after it returned, that is each op's return is no
    earlier than the latest call before it; and the model accepts every op in turn from
    `model.init` (`replay`, or `step` op by op), so every recorded output is the model's."""
    if sorted(order) != list(range(len(ops))):
        return None
    line = [ops[i] for i in order]
    latest: float = -_FOREVER
    try:
        for o in line:
            if o.ret < latest:  # type: ignore[operator]  # None: TypeError, below
                return None
            if o.call > latest:
                latest = o.call
    except TypeError:  # an unknown outcome (no return): again, skipping those
        latest = -_FOREVER
        for o in line:
            ret = o.ret
            if ret is not None and ret < latest:
                return None
            if o.call > latest:
                latest = o.call
    replay = model.replay
    if replay is not None:
        states = replay(model.init, line)
        if states is None:
            return None
    else:
        step = model.step
        state = model.init
        states = []
        for o in line:
            state = step(state, o)
            if state is None:
                return None
            states.append(state)
    return PartitionResult(
        key=key,
        operations=ops,
        valid=True,
        linearization=tuple([o.id for o in line]),
        states=tuple(states),
        explored=0,
    )




def partition(
    model: SequentialModel, operations: Sequence[Operation]
) -> tuple[tuple[Hashable, tuple[Operation, ...]], ...]:
    """The model's independent parts, in order of first appearance; info reads dropped.

    Why drop them: an op that changes nothing and whose output is unknown is consistent with
    every state, so it can always be linearized (at its call) and constrains nothing."""
    groups: dict[Hashable, list[Operation]] = {}
    read_only = model.read_only
    by_key = model.partition is _by_key  # (the common case: no call per op)
    key_of = model.partition
    for o in operations:
        if o.ret is None and o.f in read_only:
            continue
        k = o.key if by_key else key_of(o)
        try:
            groups[k].append(o)
        except KeyError:
            groups[k] = [o]
    return tuple([(k, tuple(v)) for k, v in groups.items()])


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
    deepest = _Deepest()
    run = _search(model, key, tuple(operations), deepest, leave_out)
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


def _useful_info(model: SequentialModel, ops: Sequence[Operation]) -> list[bool] | None:
    """Which info ops some linearization may need; None if all (nothing to leave out).

    An info op may also never take effect, so one that no ok op can observe is left out:
    - one called after every ok op returned comes after them all in any linearization;
    - for models that say what each op needs and produces (registers): an info op whose
      produced state no ok op returning after its call needs, nor a useful info op needs to
      take effect. Leaving it out changes no state any op needs (the state an op sees is the
      last effect before it, which comes from an op called before it returns; and every effect
      that may produce a needed state is kept, with the state it needs)."""
    last_ok = -1
    n_info = 0
    for o in ops:
        if o.ret is None:
            n_info += 1
        elif o.ret > last_ok:
            last_ok = o.ret
    if not n_info:
        return None
    useful = [o.ret is not None or o.call <= last_ok for o in ops]
    needs, produces, effect_needs = model.needs, model.produces, model.effect_needs
    if needs is not None and produces is not None and effect_needs is not None and model.leads_to is not None:
        return _useful_info_leading(model, ops, useful)
    if needs is not None and produces is not None and effect_needs is not None:
        read_only = model.read_only
        needed: dict[Any, float] = {}  # a state ok ops need -> the latest return of one
        waiting: dict[Any, list[int]] = {}  # produced state -> info ops producing it
        for j, o in enumerate(ops):
            if o.ret is not None:
                need = needs(o)
                if need is None and (o.f in read_only or produces(o) is None):
                    return _all_or_none(useful)  # an ok op that depends on the state otherwise
                if need is not None and needed.get(need, -1) < o.ret:
                    needed[need] = o.ret
            elif useful[j]:
                result = produces(o)
                if result is None:
                    return _all_or_none(useful)  # its effect depends on the state (an append)
                waiting.setdefault(result, []).append(j)
        for candidates in waiting.values():
            for j in candidates:
                useful[j] = False
        todo = list(needed)
        while todo:
            state = todo.pop()
            until = needed[state]
            for j in waiting.get(state, ()):
                if useful[j] or ops[j].call > until:
                    continue
                useful[j] = True
                need = effect_needs(ops[j])
                if need is not None and needed.get(need) != _FOREVER:
                    # an info op may take effect at any time after its call
                    needed[need] = _FOREVER
                    todo.append(need)
    return _all_or_none(useful)


_FOREVER = float("inf")


def _useful_info_leading(model: SequentialModel, ops: Sequence[Operation], useful: list[bool]) -> list[bool] | None:
    """`_useful_info` for models whose ops build on the state (kv's append): an info op is kept
    if the state it leaves may lead (`leads_to`, `may_lead`) to one an ok op returning after its
    call needs, or a useful info op needs to take effect. One left out leaves a state from which
    no needed one is reached before a fixed result (a put) replaces it, and the ops in between
    accept any state, so nothing any op needs changes."""
    needs, produces, effect_needs = model.needs, model.produces, model.effect_needs
    leads_to, may_lead = model.leads_to, model.may_lead
    assert needs is not None and produces is not None and effect_needs is not None and leads_to is not None
    if may_lead is None:
        return _all_or_none(useful)
    needed: dict[Any, float] = {}
    candidates: list[int] = []
    for j, o in enumerate(ops):
        if o.ret is not None:
            need = needs(o)
            if need is None:
                if o.f in model.read_only:
                    return _all_or_none(useful)
                continue  # a put or an append: accepts any state
            if needed.get(need, -1) < o.ret:
                needed[need] = o.ret
        elif useful[j]:
            candidates.append(j)
            useful[j] = False
    changed = True
    while changed:
        changed = False
        for j in candidates:
            if useful[j]:
                continue
            o = ops[j]
            result = produces(o)
            for need, until in needed.items():
                if until >= o.call and (leads_to(result, need) if result is not None else may_lead(o, need)):
                    useful[j] = True
                    break
            else:
                continue
            enabling = effect_needs(o)
            if enabling is not None and needed.get(enabling) != _FOREVER:
                needed[enabling] = _FOREVER  # an info op may take effect at any time after its call
                changed = True
    return _all_or_none(useful)


def _all_or_none(useful: list[bool]) -> list[bool] | None:
    return None if all(useful) else useful


def _search(
    model: SequentialModel,
    key: Hashable,
    every_op: tuple[Operation, ...],
    deepest: _Deepest,
    leave_out: bool = True,
) -> Search:
    ops = every_op
    useful = _useful_info(model, ops) if leave_out else None
    left_out: list[Operation] = []
    if useful is not None:
        left_out = [o for o, u in zip(ops, useful, strict=True) if not u]
        ops = tuple(o for o, u in zip(ops, useful, strict=True) if u)
    n = len(ops)
    if n == 0:
        return _found(model, key, every_op, [], [], model.init, left_out, 0)
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
    bits = _bits(n)
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
    producers: _Producers | None = None
    restart: list[int] = []
    needed: list[Any] = []
    leads_to: Callable[[Any, Any], bool] = _never_leads
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
                            producers = _Producers(model, ops, bits)
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
                            _admit(seen, info_bits)
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
                        _admit(seen, with_it)
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
        return _found(model, key, every_op, order, states, state, unused + left_out, entries)
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


def _bits(n: int) -> list[int]:
    """[1 << j for j in range(n)], from a list kept for the purpose."""
    while len(_BITS) < n:
        _BITS.extend(1 << j for j in range(len(_BITS), 2 * len(_BITS)))
    return _BITS[:n]


def _found(
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


def _admit(antichain: list[int], info_bits: int) -> None:
    """Add a set of info ops that no set of `antichain` is part of; drop the sets it is part
    of (they are dominated now): the list stays an antichain, as short as it can be."""
    if len(antichain) > 1:
        antichain[:] = [b for b in antichain if info_bits & ~b]
    antichain.append(info_bits)


class _Producers:
    """Pruning by value. For an ok op that needs one state (`model.needs`): the ops of the part
    that could produce that state (`model.produces`, `model.reaches`) as a bitset, -1 when the
    model cannot say; and in `restart[j]` those that could set a state from which it may be
    reached again (`model.leads_to`), -1 when the model cannot say, -2 until first asked.
    Only ops called before the op returns count: the others cannot come before it."""

    def __init__(self, model: SequentialModel, ops: tuple[Operation, ...], bits: list[int]) -> None:
        self.model = model
        self.ops = ops
        self.bits = bits
        self.restart = [-1] * len(ops)
        self.needed: list[Any] = [None] * len(ops)
        self.leads_to = model.leads_to or _never_leads
        self.ready = False
        self.fixed_ready = False
        self.fixed: dict[Any, int] = {}  # state -> the ops that set it, whatever it was
        self.dependent: list[int] = []  # ops whose result depends on the state
        self.by_state: dict[Any, int] = {}
        self.again: dict[Any, int] = {}
        self.calls: list[int] = []
        self.prefix: list[int] = []  # the first k ops called, as a mask (unless in call order)
        self.in_call_order = False
        self.all_ops = 0

    def _prepare(self) -> None:
        ops, bits = self.ops, self.bits
        calls = [o.call for o in ops]
        if all(a <= b for a, b in zip(calls, calls[1:], strict=False)):
            self.in_call_order = True  # paired ops: the first k ops called are ops 0..k-1
        else:
            order = sorted(range(len(ops)), key=lambda k: ops[k].call)
            calls = [ops[k].call for k in order]
            prefix = [0]
            for k in order:
                prefix.append(prefix[-1] | bits[k])
            self.prefix = prefix
        self.calls = calls
        self.all_ops = (1 << len(ops)) - 1
        self.ready = True

    def _prepare_fixed(self) -> None:
        """`fixed` and `dependent` (asked by `restarts`, and by `of` without `leads_to`)."""
        model, bits = self.model, self.bits
        produces = model.produces
        for k, o in enumerate(self.ops):
            if o.f in model.read_only:
                continue
            result = None if produces is None else produces(o)
            if result is None:
                self.dependent.append(k)
            else:
                self.fixed[result] = self.fixed.get(result, 0) | bits[k]
        self.fixed_ready = True

    def of(self, j: int) -> int:
        model = self.model
        if model.needs is None or model.reaches is None:
            return -1
        need = model.needs(self.ops[j])
        if need is None:
            return -1
        if not self.ready:
            self._prepare()
        produce = self.by_state.get(need)
        if produce is None:
            reaches, ops, bits = model.reaches, self.ops, self.bits
            if model.leads_to is not None:
                # The state must lead to `need`, or an op left must produce one that does
                # (`restarts`): that alone prunes well (kv), so skip asking every append
                # whether it could produce `need` itself (all ops count as producers).
                produce = self.all_ops
            else:
                if not self.fixed_ready:
                    self._prepare_fixed()
                produce = self.fixed.get(need, 0)
                for k in self.dependent:
                    if reaches(ops[k], need):
                        produce |= bits[k]
            self.by_state[need] = produce
        self.needed[j] = need
        self.restart[j] = -2 if self.model.leads_to is not None else -1
        return produce & self._usable(j)

    def restarts(self, j: int) -> int:
        """The ops that set a state leading to what op j needs (computed when first asked)."""
        need = self.needed[j]
        again = self.again.get(need)
        if again is None:
            again = 0
            leads_to = self.leads_to
            if not self.fixed_ready:
                self._prepare_fixed()
            for result, mask in self.fixed.items():
                if leads_to(result, need):
                    again |= mask
            self.again[need] = again
        again &= self._usable(j)
        self.restart[j] = again
        return again

    def _usable(self, j: int) -> int:
        """Ops called before op j returns, but j: the only ones that can come before it."""
        ret = self.ops[j].ret
        if ret is None:
            usable = self.all_ops
        else:
            k = bisect_right(self.calls, ret)
            usable = (1 << k) - 1 if self.in_call_order else self.prefix[k]
        return usable & ~self.bits[j]


def _never_leads(state: Any, target: Any) -> bool:
    return True


# --- evidence for a violation ----------------------------------------------------------------


def _violation(
    model: SequentialModel,
    parts: tuple[PartitionResult, ...],
    failed: int,
    *,
    deadline: float | None,
    max_cache: int,
    minimize: bool,
    minimize_budget: float,
) -> LinearizabilityEvidence:
    part = parts[failed]
    by_id = {o.id: o for o in part.operations}
    if model.fast_check is not None:
        # The fast path decided; a bounded search finds the deepest partial linearization.
        budget = _budget(deadline, minimize_budget)
        cap = min(max_cache, SHRINK_STATES)
        searched = search(model, part.operations, key=part.key, deadline=budget, max_cache=cap)
        if searched.valid is False:
            part = searched
            parts = parts[:failed] + (part,) + parts[failed + 1 :]
    failing_op = by_id[part.failing] if part.failing is not None else None
    previous_ok = None
    if failing_op is not None:
        before = [o for o in part.operations if o.ret is not None and o.ret < failing_op.call]
        previous_ok = max(before, key=lambda o: o.ret or 0, default=None)
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
        partitions=parts,
        key=part.key,
        failing_op=failing_op,
        previous_ok=previous_ok,
        longest_prefix=tuple(by_id[i] for i in part.linearization),
        prefix_states=part.states,
        window=window,
        window_history=unpair(window),
        window_minimal=minimal,
    )


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
        kept = [o for o in ops if not (o.ret is None and o.f in model.read_only)]
        if model.fast_check is not None:
            return model.fast_check(kept, model.init, None).valid is False
        trial = tuple((o.id, o.ret is None) for o in kept)
        answer = self.known.get(trial)
        if answer is None:
            # most trials pass, most of them by the plain order of calls (no search); a stale
            # read needs no search (the search would try every order before it), nor stale
            # reads that need more repairs than there are ops to make them
            if _in_call_order(model, kept):
                answer = False
            else:
                useful = _useful_info(model, kept)
                if useful is not None:  # (and so neither the refutation nor the search sees them)
                    kept = [o for o, u in zip(kept, useful, strict=True) if u]
                answer = refute_by_count(model, kept) or self._search(model, kept)
            self.known[trial] = answer
        return answer

    def _search(self, model: SequentialModel, kept: list[Operation]) -> bool:
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


def _in_call_order(model: SequentialModel, ops: Sequence[Operation]) -> bool:
    """True if the ok ops in order of their calls, each preceded when needed by one info op
    that lets it happen, are a linearization (the info ops not placed never took effect):
    a witness that `ops` pass, found without a search. False says nothing.

    Call order respects real time (an op that returned before another was called was also
    called before it). An info op placed before the k-th ok op must be called before every
    ok op from the k-th on returns: the ops placed before it are then all those that must be."""
    step = model.step
    oks = sorted((o for o in ops if o.ret is not None), key=lambda o: o.call)
    infos = [o for o in ops if o.ret is None]
    soonest: list[float] = [_FOREVER] * (len(oks) + 1)  # the earliest return from the k-th on
    for k in range(len(oks) - 1, -1, -1):
        ret = oks[k].ret
        assert ret is not None
        soonest[k] = min(ret, soonest[k + 1])
    used = [False] * len(infos)
    state = model.init
    for k, j in enumerate(oks):
        after = step(state, j)
        if after is None:
            bound = soonest[k]
            for x, i in enumerate(infos):
                if used[x] or i.call >= bound:
                    continue
                between = step(state, i)
                if between is not None and (after := step(between, j)) is not None:
                    used[x] = True
                    break
            else:
                return False
        state = after
    return True


def _as_info(o: Operation) -> Operation:
    return o if o.ret is None else evolve(o, ret=None, output=None, ret_time=None)


def truncate(operations: Sequence[Operation], cut: int) -> tuple[Operation, ...]:
    """The history up to event position `cut`: later ops vanish, ops still open become info."""
    return tuple(
        o if o.ret is not None and o.ret <= cut else _as_info(o)
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
    if model.needs is not None and failing is not None:
        need = next((model.needs(o) for o in ops if o.id == failing), None)

    def related(o: Operation) -> bool:
        if need is None or o.f in model.read_only and o.ret is None:
            return False
        produced = None if model.produces is None or o.f in model.read_only else model.produces(o)
        return produced == need or (o.ret is not None and model.needs(o) == need)  # type: ignore[misc]

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
    read_only = model.read_only
    relaxed = [(o, None if o.f in read_only else _as_info(o)) for o in ops]
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
