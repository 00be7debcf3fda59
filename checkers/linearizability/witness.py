"""Linearizations found without a search, and the check that makes them safe to use.

`witness` asks the model's guesses (`quick_witness`, then `witness`: kv's and the registers'
read the order off the values) and `witnessed` checks a guess from scratch, so a wrong guess
costs time, never a verdict. `in_sequence` shows a part whose ops follow one another (it has
one order only) linearizable by stepping through it. `in_call_order` is the cheapest witness of
all, for shrinking trials.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from checkers.linearizability import native
from checkers.linearizability.history import Operation
from checkers.linearizability.reductions import FOREVER
from checkers.linearizability.search import Deepest, search
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.units import Conflict
from checkers.linearizability.verdict import PartitionResult


def witness(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...],
            quick: bool = True, full: bool = True) -> tuple[PartitionResult | None, bool]:
    """The part shown linearizable by one of the model's guesses at a linearization
    (`quick_witness` unless not `quick`, then `witness` unless not `full`), each checked by
    `witnessed`, or None; and whether the quick guess made one (a history whose values it
    cannot cut is not asked again for its other parts)."""
    guessed = False
    for guess in (model.tactics.quick_witness if quick else None, model.tactics.witness if full else None):
        order = None if guess is None else guess(ops, model.init)
        if isinstance(order, Conflict):
            shown = conflicting(model, key, ops, order)
            if shown is not None:
                return shown, guessed
        elif order is not None:
            guessed = guessed or guess is model.tactics.quick_witness
            shown = witnessed(model, key, ops, order)
            if shown is not None:
                return shown, guessed
    return None, guessed


CONFLICT_STATES = 20_000
"""Memo entries the search of a conflict's ops may use (they are few: it needs far fewer)."""


def conflicting(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...],
                conflict: Conflict) -> PartitionResult | None:
    """The part refuted by a guess's `conflict`, if the search of its ops alone fails (that
    they fail whenever the part does is the guess's argument); else None. The refutation
    names first the op of the conflict returning last, as `refute` names an op no
    linearization reaches: the history up to its return holds the whole conflict, which is
    what the shrinking (`evidence.shrink`) takes a refutation's first op for."""
    sub = tuple(ops[p] for p in conflict.positions)
    last = max((o for o in sub if o.ret is not None), key=lambda o: o.ret or 0, default=None)
    if last is None:
        return None
    found = search(model, sub, key=key, max_cache=CONFLICT_STATES)
    if found.valid is not False:
        return None
    return Deepest().refuted(key, ops, found.explored, (last, *(o for o in sub if o is not last)))


def witnessed(
    model: SequentialModel, key: Hashable, ops: tuple[Operation, ...], order: Sequence[int]
) -> PartitionResult | None:
    """The part's linearization `order` (positions in `ops`), checked from scratch, or None
    if it is not one.

    Checked here, not trusted: `order` holds each position of `ops` exactly once;
    no op comes after one that was called after it returned, that is each op's return is no
    earlier than the latest call before it; and the model accepts every op in turn from
    `model.init` (`replay`, or `step` op by op), so every recorded output is the model's."""
    got = lined_up(ops, order) if len(order) == len(ops) else None
    states = None if got is None else stepped(model, got[0])
    if got is None or states is None:
        return None
    return PartitionResult(
        key=key,
        operations=ops,
        valid=True,
        linearization=got[1],
        states=tuple(states),
        explored=0,
    )


def lined_up(ops: tuple[Operation, ...], order: Sequence[int]) -> tuple[list[Operation], tuple[int, ...]] | None:
    """The ops at the positions `order` of `ops`, in that order, and their ids, if each position
    is one of `ops` and comes once, and the line keeps real time (`in_real_time`); else None.
    In C where it is built (`cwgl.lined_up`, by code apart from the search's): one pass over
    the ops where this makes four, and on a part of thousands of ops each pass is mostly cache
    misses. `lined_up_in_python` is the same, and a test holds the two to each other."""
    cwgl = native.cwgl
    if cwgl is not None and type(order) is list and type(ops) is tuple:
        got: tuple[list[Operation], tuple[int, ...]] | None = cwgl.lined_up(ops, order)
        return got
    return lined_up_in_python(ops, order)


def lined_up_in_python(ops: tuple[Operation, ...], order: Sequence[int]) -> tuple[list[Operation],
                                                                                  tuple[int, ...]] | None:
    """`lined_up`, in Python."""
    if len(set(order)) != len(order) or order and not (min(order) >= 0 and max(order) < len(ops)):
        return None
    line = [ops[i] for i in order]
    if not in_real_time(line):
        return None
    return line, tuple([o.id for o in line])


def replayed(model: SequentialModel, line: Sequence[Operation]) -> Sequence[Any] | None:
    """The states after each op of `line`, if it is a linearization of its own ops (as
    `witnessed` checks one: real time, and the model accepts each op in turn from
    `model.init`); else None."""
    if not in_real_time(line):
        return None
    return stepped(model, line)


def in_real_time(line: Sequence[Operation]) -> bool:
    """No op of `line` after one that was called after it returned: each op's return is no
    earlier than the latest call before it (an op of unknown outcome has none to check)."""
    latest: float = -FOREVER
    try:
        for o in line:
            if o.ret < latest:  # type: ignore[operator]  # None: TypeError, below
                return False
            if o.call > latest:
                latest = o.call
    except TypeError:  # an unknown outcome (no return): again, skipping those
        latest = -FOREVER
        for o in line:
            ret = o.ret
            if ret is not None and ret < latest:
                return False
            if o.call > latest:
                latest = o.call
    return True


def stepped(model: SequentialModel, line: Sequence[Operation]) -> Sequence[Any] | None:
    """The states after each op of `line` from `model.init` (`replay`, or `step` op by op), or
    None where the model refuses one."""
    replay = model.tactics.replay
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
    return states



def in_call_order(model: SequentialModel, ops: Sequence[Operation]) -> bool:
    """True if the ok ops in order of their calls, each preceded when needed by one info op
    that lets it happen, are a linearization (the info ops not placed never took effect):
    a witness that `ops` pass, found without a search. False says nothing.

    Call order respects real time (an op that returned before another was called was also
    called before it). An info op placed before the k-th ok op must be called before every
    ok op from the k-th on returns: the ops placed before it are then all those that must be."""
    step = model.step
    oks = sorted((o for o in ops if o.ret is not None), key=lambda o: o.call)
    infos = [o for o in ops if o.ret is None]
    soonest: list[float] = [FOREVER] * (len(oks) + 1)  # the earliest return from the k-th on
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


def in_sequence(model: SequentialModel, key: Hashable, ops: tuple[Operation, ...]) -> PartitionResult | None:
    """The part decided, if its ops follow one another in real time (each called after the one
    before returned, none of unknown outcome: one client's, say): that is its only order, so
    it is linearizable if the model accepts the ops in it, and not linearizable otherwise,
    stuck at the first op the model refuses (what the search would find, without setting one
    up: the linearization before that op, the op, its return); else None."""
    ret: float = -FOREVER
    for o in ops:
        if o.ret is None or o.call <= ret:
            return None
        ret = o.ret
    replay = model.tactics.replay
    if replay is not None and (replayed := replay(model.init, ops)) is not None:
        states: list[Any] = replayed
    else:  # (no replay, or it refused an op: stepping through says which)
        step = model.step
        state = model.init
        states = []
        for k, o in enumerate(ops):
            state = step(state, o)
            if state is None:
                return PartitionResult(key=key, operations=ops, valid=False,
                                       linearization=tuple([x.id for x in ops[:k]]), states=tuple(states),
                                       failing=o.id, explored=k, stuck_at=o.ret)
            states.append(state)
    return PartitionResult(key=key, operations=ops, valid=True, linearization=tuple([o.id for o in ops]),
                           states=tuple(states), explored=0)
