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
    n_ops = len(ops)
    puts: dict[Any, int] = {}  # value -> its put
    suffixes: dict[str, int] = {}  # suffix -> its append
    more: dict[Any, list[int]] = {}  # a suffix, or (a put's value,), written again -> the others
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
                    more.setdefault((v,), []).append(j)
            else:
                return None
            if o.call < latest_call:
                in_call_order = False
            latest_call = o.call
    except TypeError:  # an unhashable value
        return None
    strings = bool(suffixes)
    if strings and not all(v is None or type(v) is str for v in (init_value, *puts)):
        return None  # appends make strings of states: keep to strings (and null, as "")
    if not in_call_order:
        gets.sort(key=lambda g: ops[g].call)
    lengths = sorted({len(s) for s in suffixes})
    placed = [False] * n_ops

    # Blocks, as found: block b starts with heads[b] (a put, or _INIT), then the appends
    # tokens[b]; readers[b][k] are the gets of the state after its k-th write (0: the head),
    # ends[b] maps the length of that state to k (strings), and tips[b] is the longest state
    # read in it so far. `seen` maps a value read to its block and place.
    heads = [_INIT]
    tips: list[Any] = ["" if init_value is None and strings else init_value]
    tokens: list[list[int]] = [[]]
    readers: list[list[list[int]]] = [[[]]]
    ends: list[dict[int, int]] = [{len(tips[0]): 0} if strings else {}]
    seen: dict[Any, tuple[int, int]] = {}
    try:
        seen[init_value] = (0, 0)
    except TypeError:
        return None
    head_of: dict[int, int] = {}  # a put heading a block -> the block

    def pick(first: int, kin: list[int], deadline: float) -> int:
        """Of alike writes, the one not placed yet called last before `deadline` (or -1)."""
        best, best_call = -1, -1
        for w in (first, *kin):
            c = ops[w].call
            if not placed[w] and best_call < c <= deadline:
                best, best_call = w, c
        return best

    def open_block(p: int, tip: Any) -> int:
        placed[p] = True
        heads.append(p)
        tips.append(tip)
        tokens.append([])
        readers.append([[]])
        ends.append({len(tip): 0} if strings else {})
        b = head_of[p] = len(heads) - 1
        return b

    def extend(b: int, value: str, at: int, deadline: float) -> int:
        """Parse value[at:] into appends after block b's tip; the place reached, or -1."""
        end = len(value)
        new: list[int] = []
        marks: list[int] = []
        while at < end:
            for length in lengths:
                s = value[at : at + length]
                w = suffixes.get(s)
                if w is not None:
                    break
            else:
                w = -1
            if w >= 0 and (placed[w] or ops[w].call > deadline or more and s in more):
                w = pick(w, more.get(s, []), deadline)
            if w < 0:
                for w in new:
                    placed[w] = False
                return -1
            placed[w] = True
            new.append(w)
            at += length
            marks.append(at)
        line, reach, got = tokens[b], ends[b], readers[b]
        for w, at in zip(new, marks, strict=True):
            line.append(w)
            got.append([])
            reach[at] = len(line)
        tips[b] = value
        return len(line)

    for g in gets:
        o = ops[g]
        value = o.output
        deadline = o.ret
        assert deadline is not None
        try:
            hit = seen.get(value)
        except TypeError:
            return None
        if hit is not None:
            b, k = hit
            if puts:
                p = puts.get(value)
                if p is not None and heads[b] != p:
                    # the value of a put too: the write called last before the get left it
                    kin = more.get((value,))
                    if kin is not None:
                        p = max((w for w in (p, *kin) if ops[w].call <= deadline), default=-1, key=lambda w: ops[w].call)
                    writer = heads[b] if k == 0 else tokens[b][k - 1]
                    if p >= 0 and p != writer and ops[p].call > (-1 if writer < 0 else ops[writer].call):
                        b = head_of[p] if p in head_of else open_block(p, value)
                        k = 0
                        seen[value] = (b, 0)
            readers[b][k].append(g)
            continue
        found = False
        if strings and type(value) is str:
            # a block whose tip it extends (the longest tip; the later block on a tie), or
            # one with a state it reads
            size = len(value)
            best, best_size = -1, -1
            for b, tip in enumerate(tips):
                t = len(tip)
                if best_size <= t < size and value.startswith(tip):
                    best, best_size = b, t
            if best >= 0:
                k = extend(best, value, best_size, deadline)
                if k >= 0:
                    readers[best][k].append(g)
                    seen[value] = (best, k)
                    continue
            for b, tip in enumerate(tips):
                if len(tip) > size and tip.startswith(value):
                    k = ends[b].get(size, -1)
                    if k > 0 or k == 0 and value == (init_value if heads[b] < 0 else ops[heads[b]].input):
                        readers[b][k].append(g)
                        seen[value] = (b, k)
                        found = True
                        break
            if found:
                continue
            # a new block: a put's value, then appends
            end = size
            while True:
                p = puts.get(value[:end])
                if p is not None:
                    kin = more.get((value[:end],))
                    if kin is not None or placed[p]:
                        p = pick(p, kin or [], deadline)
                    if p >= 0:
                        break
                for length in lengths:
                    if length <= end and value[end - length : end] in suffixes:
                        end -= length
                        break
                else:
                    return None
                if not end:
                    return None
            b = open_block(p, value[:end])
            k = extend(b, value, end, deadline)
            if k < 0:
                return None
            readers[b][k].append(g)
            seen[value] = (b, k)
            continue
        p = puts.get(value)
        if p is None:
            return None
        kin = more.get((value,))
        if kin is not None or placed[p]:
            p = pick(p, kin or [], deadline)
            if p < 0:
                return None
        b = open_block(p, value)
        readers[b][0].append(g)
        seen[value] = (b, 0)

    # The blocks as units (the initial state's first), with their latest call and earliest
    # return; then the writes no get observed, each a unit of its own.
    units: list[tuple[float, float, list[Operation]]] = []
    first: list[Operation] = []
    for b, head in enumerate(heads):
        block: list[Operation] = []
        latest: float = -1
        earliest: float = _INF
        if head >= 0:
            o = ops[head]
            block.append(o)
            latest = o.call
            if o.ret is not None:
                earliest = o.ret
        got = readers[b]
        for k, w in enumerate((-1, *tokens[b])):
            if w >= 0:
                o = ops[w]
                block.append(o)
                if o.call > latest:
                    latest = o.call
                if o.ret is not None and o.ret < earliest:
                    earliest = o.ret
            for g in got[k]:
                o = ops[g]
                block.append(o)
                if o.call > latest:
                    latest = o.call
                if o.ret < earliest:  # type: ignore[operator]
                    earliest = o.ret  # type: ignore[assignment]
        if b:
            units.append((latest, earliest, block))
        else:
            first = block
    for j, o in enumerate(ops):
        if not placed[j] and o.f not in _READS:
            free.append(j)
    for j in free:
        o = ops[j]
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
