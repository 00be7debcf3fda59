"""A linearization of a kv (or register) part read off its values: a guess, checked by the caller.

Two guesses: `kv_offsets.by_offsets`, cheap, for the common case (string values whose suffixes
share a first character, as Porcupine's do), asked first; `propose`, for the rest.

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
from itertools import compress
from operator import attrgetter, not_
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.units import units_in_order

_READS = frozenset({"get", "read"})
_PUTS = frozenset({"put", "write"})
_INF = float("inf")
_INIT = -1  # the writer of the initial state
_CALL = attrgetter("call")
_RET = attrgetter("ret")


def propose(ops: Sequence[Operation], init: Any) -> list[int] | None:
    """A candidate linearization of one part: the positions in `ops` of all its ops, once
    each, in order; or None.

    One function, with short nested helpers (`pick`, `options`, `open_block`, `extend`,
    `heads_in`, `locate`): they all read and grow the same dozen structures (the blocks, their
    tips, appends placed...), which closures reach faster than a class's attributes in this
    per-op work, and which would otherwise be passed around whole."""
    if type(init) is not tuple or len(init) != 1:
        return None
    init_value = init[0]
    n_ops = len(ops)
    puts: dict[Any, int] = {}  # value -> its put (op index)
    suffixes: dict[str, int] = {}  # suffix -> its append (suffixes appended once)
    again: dict[str, list[int]] = {}  # a suffix appended more than once -> all its appends
    more: dict[Any, list[int]] = {}  # a value put more than once -> all its puts
    reads: dict[Any, list[int]] = {}  # value -> the gets that returned it
    placed = [False] * n_ops  # in a block (ok gets from the start)
    strings = True  # every put's value a string, or null
    try:
        for j, o in enumerate(ops):
            f = o.f
            if f == "append":
                s = o.input
                if s in suffixes:
                    again.setdefault(s, [suffixes[s]]).append(j)
                else:
                    suffixes[s] = j
            elif f in _READS:
                if o.ret is not None:
                    placed[j] = True
                    reads.setdefault(o.output, []).append(j)
            elif f in _PUTS:
                v = o.input
                if v in puts:
                    more.setdefault(v, [puts[v]]).append(j)
                else:
                    puts[v] = j
                if type(v) is not str and v is not None:
                    strings = False
            else:
                return None
    except TypeError:  # an unhashable value
        return None
    if not suffixes:
        strings = False
    elif not strings or not (init_value is None or type(init_value) is str):
        return None  # appends make strings of states: keep to strings (and null, as "")
    elif "" in suffixes or set(map(type, suffixes)) != {str}:
        return None
    repeated = sum(len(kin) for kin in again.values()) + sum(len(kin) for kin in more.values())
    if repeated > 16 and 4 * repeated > len(suffixes) + len(puts) + repeated:
        return None  # values written again and again: choosing among alike writers is a search
    for s in again:
        del suffixes[s]  # (an append of a suffix appended again is looked up in `again`)
    usual = len(next(iter(suffixes or again))) if strings else 0  # Porcupine's: "x 1 2 y"
    lengths: list[int] = []  # every suffix length, `usual` first (when first needed)
    ascending: list[int] = []  # the same, shortest first (when first needed)

    def all_lengths() -> list[int]:
        if not lengths:
            lengths.extend(sorted(set(map(len, suffixes)).union(map(len, again)), key=usual.__ne__))
        return lengths

    # Blocks, as found: block b starts with first_of[b] (a put's index, or _INIT), then the
    # appends tokens[b]; readers[b][k] are the gets of the state after its k-th write (0: the
    # head), ends[b] maps the length of that state to k (string states), and tips[b] is the
    # longest state read in it so far.
    first_of = [_INIT]  # block -> its put (op index), or _INIT
    tips: list[Any] = ["" if init_value is None and strings else init_value]
    tokens: list[list[int]] = [[]]
    readers: list[dict[int, list[int]]] = [{}]
    ends: list[dict[int, int]] = [{len(tips[0]): 0} if strings else {}]
    head_of: dict[int, int] = {}  # a put heading a block -> the block
    blocks_of: dict[Any, list[int]] = {}  # a value put -> the blocks it heads
    put_sizes: list[int] = []  # the lengths of the string values put, longest first (when asked)
    find = suffixes.get

    def pick(kin: list[int], deadline: float) -> int:
        """Of alike writes, the one not placed yet called last before `deadline` (or -1)."""
        best, best_call = -1, -1
        for w in kin:
            c = ops[w].call
            if not placed[w] and best_call < c <= deadline:
                best, best_call = w, c
        return best

    def options(value: str, at: int, deadline: float, after: float) -> list[tuple[int, int]]:
        """The appends not placed yet, called by `deadline` and not returned before `after`
        (the call of the write they follow), whose suffix starts at value[at:], with its
        length, shortest first: the parse takes them from the end, longer pieces first."""
        found = []
        if not ascending:
            ascending.extend(sorted(lengths or all_lengths()))
        for length in ascending:
            s = value[at : at + length]
            w = find(s, -1)
            if w >= 0:
                o = ops[w]
                if not placed[w] and o.call <= deadline and (o.ret is None or o.ret >= after):
                    found.append((w, length))
                continue
            kin = again.get(s)
            if kin is not None:
                w = pick(kin, deadline)
                if w >= 0:
                    found.append((w, length))
        return found

    def open_block(p: int, tip: Any) -> int:
        placed[p] = True
        first_of.append(p)
        blocks_of.setdefault(ops[p].input, []).append(len(first_of) - 1)
        tips.append(tip)
        tokens.append([])
        readers.append({})
        ends.append({len(tip): 0} if strings else {})
        b = head_of[p] = len(first_of) - 1
        return b

    def extend(b: int, value: str, at: int, deadline: float) -> int:
        """Parse value[at:] into appends after block b's tip; the place reached, or -1. A
        piece that leads nowhere is taken back and the next one tried, within a budget of
        steps (suffixes that share characters can be cut in many ways)."""
        end = len(value)
        line, reach = tokens[b], ends[b]
        start = len(line)
        head_call = -_INF if first_of[b] < 0 else ops[first_of[b]].call
        # per piece placed, and for the place reached: (place, other pieces there; None: the
        # usual length was tried alone, the others are asked for if it fails)
        tried: list[tuple[int, list[tuple[int, int]] | None]] = []
        budget = 4 * (end - at) + 16
        while at < end:
            w = find(value[at : at + usual], -1)
            here: list[tuple[int, int]] | None
            after = ops[line[-1]].call if line else head_call
            if w >= 0 and not placed[w] and ops[w].call <= deadline and not (ops[w].ret or after) < after:
                here = [(w, usual)]
                tried.append((at, None))
            else:
                here = options(value, at, deadline, after)
                tried.append((at, here))
            while not here:  # nothing fits here: take the last piece back
                tried.pop()
                budget -= 1
                if not tried or budget < 0:
                    for w in line[start:]:
                        placed[w] = False
                    del line[start:]
                    tip = len(tips[b])
                    for at in [at for at in reach if at > tip]:
                        del reach[at]
                    return -1
                w = line.pop()
                placed[w] = False
                del reach[at]
                at, here = tried[-1]
                if here is None:
                    placed[w] = True
                    after = ops[line[-1]].call if line else head_call
                    here = [option for option in options(value, at, deadline, after) if option[0] != w]
                    placed[w] = False
                    tried[-1] = (at, here)
            w, length = here.pop()
            placed[w] = True
            line.append(w)
            at += length
            reach[at] = len(line)
        tips[b] = value
        return len(line)

    def heads_in(value: str) -> list[str]:
        """The values put that begin `value`, longest first (looked up at the lengths put)."""
        if not put_sizes:
            put_sizes.extend(sorted({len(v) for v in puts if type(v) is str}, reverse=True) or [-1])
        return [value[:n] for n in put_sizes if 0 <= n <= len(value) and value[:n] in puts]

    def locate(value: Any, deadline: float) -> tuple[int, int]:
        """Block and place of the state `value`, found among or added to the blocks; or
        (-1, -1). Tried in turn: the block of the last value read, if the value extends its
        tip; the block whose tip it extends (the longest tip, the later block on a tie); a
        block with a state it reads; a new block: a put's value, then appends. Only the
        initial state's block and those of the puts that begin the value can hold it."""
        if value == init_value:
            return 0, 0
        if not strings or type(value) is not str:
            return -1, -1
        size = len(value)
        b = last
        tip = tips[b]
        if len(tip) < size and value.startswith(tip):
            k = extend(b, value, len(tip), deadline)
            if k >= 0:
                return b, k
        heads = heads_in(value)
        near = [0]
        for head in heads:
            near += blocks_of.get(head, ())
        b, best = -1, -1
        for c in sorted(near):
            tip = tips[c]
            t = len(tip)
            if best <= t < size and value.startswith(tip):
                b, best = c, t
        # a put not heading a block yet that begins the value further in than any tip: its
        # own block (the longest such put, called by the deadline)
        for head in heads:
            if len(head) <= best:
                break
            kin = more.get(head)
            w = pick(kin, deadline) if kin is not None else puts[head]
            if w >= 0 and not placed[w] and ops[w].call <= deadline:
                fresh = open_block(w, head)
                k = extend(fresh, value, len(head), deadline) if len(head) < size else 0
                if k >= 0:
                    return fresh, k
                break
        if b >= 0 and b != last:
            k = extend(b, value, best, deadline)
            if k >= 0:
                return b, k
        for b in sorted(near):
            tip = tips[b]
            if len(tip) > size and tip.startswith(value):
                k = ends[b].get(size, -1)
                if k > 0 or k == 0 and value == (init_value if first_of[b] < 0 else ops[first_of[b]].input):
                    return b, k
        # a new block: of the puts not yet heading one, called before `deadline`, whose value
        # begins this one, the longest (values put more than once: the one called last)
        for head in heads:
            kin = more.get(head)
            w = pick(kin, deadline) if kin is not None else puts[head]
            if w >= 0 and not placed[w] and ops[w].call <= deadline:
                b = open_block(w, head)
                k = extend(b, value, len(head), deadline)
                return (b, k) if k >= 0 else (-1, -1)
        return -1, -1

    last = 0  # the block of the last value placed
    try:
        for value, group in reads.items():
            if value in puts:
                # a put's value: the put called last before each get returned left it, or
                # else the state of that value in a block
                for g in group:
                    o = ops[g]
                    kin = more.get(value)
                    p = pick(kin, o.ret) if kin is not None else puts[value]  # type: ignore[arg-type]
                    if p >= 0 and (ops[p].call > o.ret or placed[p] and p not in head_of):  # type: ignore[operator]
                        p = -1
                    if p >= 0:
                        b = head_of[p] if p in head_of else open_block(p, value)
                        k = 0
                    else:
                        b, k = locate(value, o.ret)  # type: ignore[arg-type]
                        if b < 0:
                            return None
                    line = tokens[b]
                    if k < len(line):
                        ret = ops[line[k]].ret
                        if ret is not None and ret < o.call:
                            return None  # read after the next write returned: a stale read
                    readers[b].setdefault(k, []).append(g)
                    last = b
                continue
            # the gets of one value read one state: they must see it before any of them
            # returns (`deadline`), and after the last of them is called (`called`)
            if len(group) == 1:
                o = ops[group[0]]
                deadline, called = o.ret, o.call
            else:
                members = list(map(ops.__getitem__, group))
                deadline = min(map(_RET, members))
                called = members[-1].call
            b, k = locate(value, deadline)  # type: ignore[arg-type]
            if b < 0:
                return None
            line = tokens[b]
            if k < len(line):
                ret = ops[line[k]].ret
                if ret is not None and ret < called:
                    return None  # read after the next write returned: a stale read
            got = readers[b]
            if k in got:
                got[k] += group
            else:
                got[k] = group
            last = b
    except TypeError:  # an unhashable value
        return None

    # The blocks as units (the initial state's first), then the writes no get observed and
    # the gets of unknown output, each a unit of its own, with the latest call (`c`) and the
    # earliest return (`d`) of their ops.
    c: list[float] = []
    d: list[float] = []
    units: list[list[int]] = []
    first: list[int] = []
    for b, head in enumerate(first_of):
        got = readers[b]
        line = tokens[b]
        block = [] if head < 0 else [head]
        at = 0
        for k in sorted(got):
            block += line[at:k]
            block += got[k]
            at = k
        block += line[at:]
        if b:
            members = list(map(ops.__getitem__, block))
            c.append(max(map(_CALL, members)))
            rets = list(map(_RET, members))
            d.append(min(rets) if None not in rets else min((r for r in rets if r is not None), default=_INF))
            units.append(block)
        else:
            first = block
    for w in compress(range(n_ops), map(not_, placed)):
        o = ops[w]
        c.append(o.call)
        d.append(_INF if o.ret is None or o.f in _READS else o.ret)
        units.append([w])

    n = len(units)
    if n > 1:
        order = units_in_order(c, d)
        if order is None:
            return None
        for u in order:
            first += units[u]
    elif n:
        first += units[0]
    return first
