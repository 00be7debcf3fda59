"""The order of units in a guessed linearization (kv's blocks, registers' chains).

A guess (`kv_fast.propose`, `kv_offsets.by_offsets`, `register_fast.chains`) cuts a part into
units that no op can enter: a block or chain, or a write nobody observes. Unit U may come after
unit V iff every op of V was called before every op of U returned: `c(V) <= d(U)`, with `c`
the latest call in a unit and `d` its earliest return (unknown outcome: none). Some unit may be
last iff its `d` reaches the largest `c` of the others, and then any such unit may be taken
last (taking it out only loosens the others' constraints); so a pass from the back finds an
order whenever there is one.
"""

from __future__ import annotations

from collections.abc import Sequence


def units_in_order(c: Sequence[float], d: Sequence[float]) -> list[int] | None:
    """An order of units (latest call `c`, earliest return `d` of each) in which each may come
    after every one before it (`c` of those <= its `d`), front to back; None if there is none."""
    found = arrange(c, d)
    return found if isinstance(found, list) else None


def arrange(c: Sequence[float], d: Sequence[float]) -> list[int] | tuple[int, int]:
    """`units_in_order`'s order, or when there is none two units U, V each of which must come
    before the other (`d[U] < c[V]` and `d[V] < c[U]`): the reason there is none.

    From the back: while some unit's `d` reaches the largest `c` left, it goes last; else the
    unit of the largest `c` does if its `d` reaches the next. When it does not, no unit left
    reaches the largest `c` (that unit's own `d` included), and that unit's `d` does not reach
    the next largest `c`: those two form the cycle."""
    n = len(c)
    if n == 2:
        return [0, 1] if c[0] <= d[1] else [1, 0] if c[1] <= d[0] else (0, 1)
    # most often the units in the order of their latest calls will do
    order = sorted(range(n), key=c.__getitem__)
    for k in range(1, n):
        if d[order[k]] < c[order[k - 1]]:
            break
    else:
        return order
    by_c = sorted(range(n), key=c.__getitem__, reverse=True)
    by_d = sorted(range(n), key=d.__getitem__, reverse=True)
    taken = [False] * n
    backwards: list[int] = []
    ci = di = 0
    while len(backwards) < n:
        while taken[by_c[ci]]:
            ci += 1
        top = by_c[ci]
        c_top = c[top]
        before = len(backwards)
        while di < n and d[by_d[di]] >= c_top:
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
        if k < n and d[top] < c[by_c[k]]:
            return (top, by_c[k])
        taken[top] = True
        backwards.append(top)
    backwards.reverse()
    return backwards


class Conflict:
    """What a guess at a linearization (`SequentialModel.witness`) may return instead of an
    order: the positions of ops that its reading of the values shows cannot be linearized
    together. A claim, not a verdict: `witness.witness` searches those ops alone (as a
    sub-history) and takes the conflict only if that search fails, and only guesses whose
    argument shows that every linearization of the part would give one of those ops alone
    may return one (`register_fast.chains_or_conflict` says why its do)."""

    __slots__ = ("positions",)

    def __init__(self, positions: tuple[int, ...]) -> None:
        self.positions = positions
