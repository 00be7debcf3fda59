"""A linearization of a kv (or register) part read off its values: a guess, checked by the caller.

The checker validates what `propose` returns (`wgl._witnessed`: every op once, real time kept,
every output the model's) and searches when it returns None or the order fails, so a mistake
here costs time, never a verdict.

Why values suffice when written values are unique. A state is the value of one key. The state
a get returned names the write that produced it (the put of that value, the append whose suffix
ends it, or the initial state), and the rest of the value names the writes before that one,
back to a put or the initial state: `"x 1 0 yx 2 0 y"` is the append of `"x 2 0 y"` right after
that of `"x 1 0 y"`. So the values the gets returned pin chains of writes, *blocks*: a first
write (a put, or the initial state), the appends after it in order, and after each write the
gets reading the state it leaves. A write no get observes, directly or inside a longer value,
is *free*: it can only come at the end of a block, where the next put overwrites it or nothing
reads it. A block cannot be split (any op inside it would change what its later gets read), so
a linearization is the block of the initial state, then the other blocks and the free writes,
each as one unit, in some order.

The order of the units. Inside a unit each op is placed as early as its call and the ops
before it allow. Unit U may come after unit V iff every op of V was called before every op of
U returned: `c(V) <= d(U)`, with `c` the latest call in a unit and `d` its earliest return
(unknown outcome: none). Some unit may be last iff its `d` reaches the largest `c` of the
others, and then any such unit may be taken last (taking it out only loosens the others'
constraints); so a pass from the back finds an order whenever there is one.

Values that repeat (Porcupine's kv files have a few: one process appending `"x 1 0 y"` twice,
a put of a string another op appended) leave a choice of writer; the one called last before
the reader (or the write after it) must have taken effect is taken, which is the right one
when the two are far apart in time. For unique values and no cas this finds a linearization
whenever one exists. Gives up (None) on a cas, an empty or non-string suffix, and a value no
op can have produced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checkers.linearizability.history import Operation

_READS = frozenset({"get", "read"})
_PUTS = frozenset({"put", "write"})
_INF = float("inf")
_INIT = -1  # the writer of the initial state


def propose(ops: Sequence[Operation], init: Any) -> list[Operation] | None:
    """A candidate linearization of one part (all its ops, once each), or None."""
    if type(init) is not tuple or len(init) != 1:
        return None
    init_value = init[0]
    puts: dict[Any, int] = {}  # value -> its put
    suffixes: dict[str, int] = {}  # suffix -> its append
    more: dict[Any, list[int]] = {}  # a value or suffix written again -> the other ops
    gets: list[int] = []
    free: list[int] = []  # gets of unknown output, and writes no get observes
    latest_call = -1
    in_call_order = True
    try:
        for j, o in enumerate(ops):
            f = o.f
            if f in _READS:
                if o.ret is None:
                    free.append(j)
                else:
                    gets.append(j)
            elif f == "append":
                s = o.input
                if type(s) is not str or not s:
                    return None
                if suffixes.setdefault(s, j) != j:
                    more.setdefault(s, []).append(j)
            elif f in _PUTS:
                v = o.input
                if puts.setdefault(v, j) != j:
                    more.setdefault((v,), []).append(j)  # (a put's value, apart from suffixes)
            else:
                return None
            if o.call < latest_call:
                in_call_order = False
            latest_call = o.call
    except TypeError:  # an unhashable value
        return None
    if suffixes and not all(v is None or type(v) is str for v in (init_value, *puts)):
        return None  # appends make strings of states: keep to strings (and null, as "")
    if not in_call_order:
        gets.sort(key=lambda g: ops[g].call)
    lengths = sorted({len(s) for s in suffixes})
    settled: dict[Any, int] = {}  # a value only one op (or the initial state) can leave -> it
    result: dict[int, Any] = {}  # an observed append -> the state it leaves
    succ: dict[int, int] = {}  # a write (or _INIT) -> the append right after it
    readers: dict[int, list[int]] = {}  # a write (or _INIT) -> the gets of the state it leaves

    def writer(value: Any, after_append: bool, deadline: float) -> int | None:
        """The op (or _INIT) that left `value`: of those that can, the one called last before
        `deadline`. After an append's suffix is taken off, "" stands for null too."""
        candidates: list[int] = []
        if value == init_value or (after_append and value == "" and init_value is None):
            candidates.append(_INIT)
        w = puts.get(value)
        if w is not None:
            candidates.append(w)
            if more:
                candidates += more.get((value,), ())
        if after_append and value == "":
            w = puts.get(None)
            if w is not None:
                candidates.append(w)
                candidates += more.get((None,), ())
        if type(value) is str and value:
            n = len(value)
            for length in lengths:
                if length > n:
                    break
                end = value[n - length :]
                w = suffixes.get(end)
                if w is not None:
                    candidates.append(w)
                    if more:
                        candidates += more.get(end, ())
        if len(candidates) == 1:
            w = candidates[0]
            if value or not after_append:
                settled[value] = w  # (as a get's value, "" is not null)
            if w >= 0 and (ops[w].call > deadline or result.get(w, value) != value):
                return None
            return w
        best: int | None = None
        best_call: float = -2
        for w in candidates:
            if w < 0:
                c: float = -1
            else:
                c = ops[w].call
                if result.get(w, value) != value:
                    continue
            if best_call < c <= deadline:
                best, best_call = w, c
        return best

    try:
        for g in gets:
            o = ops[g]
            value = o.output
            deadline = o.ret
            assert deadline is not None
            w = settled.get(value)
            if w is None:
                w = writer(value, False, deadline)
                if w is None:
                    return None
            elif w >= 0 and ops[w].call > deadline:
                return None
            seen = readers.get(w)
            if seen is None:
                readers[w] = [g]
            else:
                seen.append(g)
            # the appends behind it, back to a put or the initial state
            while w >= 0:
                o = ops[w]
                if o.f != "append":
                    break
                known = result.get(w)
                if known is not None:
                    if known != value:
                        return None  # one append leaving two states
                    break
                result[w] = value
                if o.ret is not None and o.ret < deadline:
                    deadline = o.ret
                value = value[: len(value) - len(o.input)]
                p = settled.get(value) if value else None
                if p is None:
                    p = writer(value, True, deadline)
                    if p is None:
                        return None
                elif p >= 0 and ops[p].call > deadline:
                    return None
                if succ.setdefault(p, w) != w:
                    return None  # two appends right after one write
                w = p
    except TypeError:  # an unhashable value
        return None

    # The blocks (first the initial state's), each op placed as early as it can be: a block
    # none can be is not part of any linearization (for unique values: the search decides).
    units: list[tuple[float, float, list[Operation]]] = []
    first: list[Operation] = []
    heads = [_INIT]
    for v, w in puts.items():
        if w in succ or w in readers:
            heads.append(w)
        elif (v,) not in more:
            free.append(w)
        for w in more.get((v,), ()):
            (heads if w in succ or w in readers else free).append(w)
    for s, w in suffixes.items():
        if w not in result:
            free.append(w)
        for w in more.get(s, ()):
            if w not in result:
                free.append(w)
    for head in heads:
        block: list[Operation] = []
        point: float = -1  # the latest call so far: where the next op can be at the earliest
        earliest: float = _INF
        w = head
        if w >= 0:
            o = ops[w]
            block.append(o)
            point = o.call
            if o.ret is not None:
                earliest = o.ret
        while True:
            seen = readers.get(w)
            if seen is not None:
                after = point
                for g in seen:
                    o = ops[g]
                    block.append(o)
                    ret = o.ret
                    assert ret is not None
                    if o.call > point:
                        if o.call > ret:
                            return None
                        if o.call > after:
                            after = o.call
                    elif point > ret:
                        return None
                    if ret < earliest:
                        earliest = ret
                point = after
            w = succ.get(w, -2)
            if w == -2:
                break
            o = ops[w]
            block.append(o)
            if o.call > point:
                point = o.call
            if o.ret is not None:
                if point > o.ret:
                    return None
                if o.ret < earliest:
                    earliest = o.ret
        if head == _INIT:
            first = block
        else:
            units.append((point, earliest, block))
    for w in free:
        o = ops[w]
        units.append((o.call, _INF if o.ret is None or o.f in _READS else o.ret, [o]))

    # The order of the units, from the back: while some unit's `d` reaches the largest `c`
    # left, it goes last; else the unit of the largest `c` does if its `d` reaches the next.
    n = len(units)
    if n > 1:
        by_c = sorted(range(n), key=lambda k: units[k][0], reverse=True)
        by_d = sorted(range(n), key=lambda k: units[k][1], reverse=True)
        taken = [False] * n
        backwards: list[int] = []
        ci = di = 0
        while len(backwards) < n:
            while taken[by_c[ci]]:
                ci += 1
            top = by_c[ci]
            c_top = units[top][0]
            before = len(backwards)
            while di < n and units[by_d[di]][1] >= c_top:
                u = by_d[di]
                di += 1
                if not taken[u]:
                    taken[u] = True
                    backwards.append(u)
            if len(backwards) > before:
                continue
            k = ci + 1
            while k < n and taken[by_c[k]]:
                k += 1
            if k < n and units[top][1] < units[by_c[k]][0]:
                return None
            taken[top] = True
            backwards.append(top)
        for u in reversed(backwards):
            first += units[u][2]
    elif n:
        first += units[0][2]
    return first
