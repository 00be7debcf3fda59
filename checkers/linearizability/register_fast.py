"""A linearization of a register part read off its values: a guess, checked by the caller.

`chains(ops, init)` is the register's counterpart of `kv_fast.propose`, for read, write and
cas. The checker validates what it returns (`witness.witnessed`: every op once, real time
kept, every output the model's) and searches when it returns None or the order fails, so a
mistake here costs time, never a verdict.

Why values suffice when written values are unique. A read of v comes after the op that wrote
v (a write, or a cas that swapped to v) and before the next change; a cas from a to b comes
right after the op that left a (two ok cas from one a cannot both have swapped). So the
values pin *chains*: a write (or the initial state), the cas ops that follow one another from
its value, and after each op the reads of the value it left. A chain cannot be split (any op
put inside it would change what its later ops see), so a linearization is the chain of the
initial state, then the other chains, each as one unit, in an order in which each unit may
follow every one before it (`units.units_in_order`, as for kv's blocks). An op of unknown
outcome takes effect only if its value is seen (read, or expected by a cas that swapped); one
whose value nobody sees is left out, and listed last (as good as never taking effect).

Gives up (None) on a value written twice (or written and initial), two swaps from one value,
a value seen that nobody wrote, a cas that no chain reaches, and unhashable values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checkers.linearizability import native
from checkers.linearizability.history import Operation
from checkers.linearizability.units import Conflict, arrange

_INIT = -1  # the writer of the initial state
_INF = float("inf")


def chains(ops: Sequence[Operation], init: Any) -> list[int] | None:
    """A candidate linearization of one part: the positions in `ops` of all its ops, once
    each, in order; or None."""
    found = chains_or_conflict(ops, init)
    return found if isinstance(found, list) else None


def chains_or_conflict(ops: Sequence[Operation], init: Any) -> list[int] | Conflict | None:
    """`chains`, or when the chains have no order a `Conflict`: two chains each of which must
    come before the other (an op of each returned before an op of the other was called), cut
    after the last of those ops. The registers' `witness`.

    Why those ops alone fail whenever the part does (the caller still searches them): values
    are unique, so every state a kept op needs (a read's value, a cas's expected value) has
    one producer in the whole part, the op before it in its chain, which is kept (each cut
    chain runs from its first write). Take a linearization of the part and keep only those
    ops, in its order: each kept op that needs a state still follows its producer, and the
    ops between them in the part changed nothing (the state they saw was the needed one, or
    a later kept op could not have seen it again), so each kept op sees the state it saw.
    And those ops alone cannot be linearized: a cut chain is one block (any op of the other
    put inside would change a state its later ops need, and no op can bring it back), and
    either block first puts an op after one that returned before it was called."""
    if type(init) is not tuple or len(init) != 1:
        return None
    try:
        cwgl = native.cwgl
        if cwgl is not None and type(ops) is tuple:
            # (in C where it is built: the same answer, in one pass over the ops where this
            # makes five; on a part of thousands of ops each is mostly cache misses)
            found = cwgl.register_chains(ops, init[0])
            if found is not NotImplemented:
                return _conflict(ops, *found) if isinstance(found, tuple) else found
        return chains_in_python(ops, init)
    except TypeError:  # an unhashable value
        return None


def chains_in_python(ops: Sequence[Operation], init: Any) -> list[int] | Conflict | None:
    """`chains_or_conflict` in Python (`cwgl.register_chains` is the same in C, and a test holds
    the two alike); TypeError for an unhashable value."""
    scanned = _scan(ops, init[0])
    if scanned is None:
        return None
    writer, swap, readers = scanned
    taken = _taken(ops, init[0], writer, swap, readers)
    if taken is None:
        return None
    return _order(ops, init[0], writer, swap, readers, taken)


def _scan(ops: Sequence[Operation], first: Any) -> tuple[dict[Any, int], dict[Any, int], dict[Any, list[int]]] | None:
    """`writer[v]`: the op that leaves v whatever the state (write) or from another value
    (cas); `swap[a]`: the ok cas from a; `readers[v]`: the ok reads of v, in call order."""
    writer: dict[Any, int] = {first: _INIT}
    swap: dict[Any, int] = {}
    readers: dict[Any, list[int]] = {}
    for j, o in enumerate(ops):
        f = o.f
        if f == "read":
            if o.ret is not None:
                got = readers.get(o.output)
                if got is None:
                    readers[o.output] = [j]
                else:
                    got.append(j)
            continue
        if f == "write":
            value = o.input
        elif f == "cas":
            expected, value = o.input
            if o.ret is not None:
                if expected in swap:
                    return None
                swap[expected] = j
        else:
            return None
        if value in writer:
            return None
        writer[value] = j
    return writer, swap, readers


def _taken(ops: Sequence[Operation], first: Any, writer: dict[Any, int], swap: dict[Any, int],
           readers: dict[Any, list[int]]) -> list[bool] | None:
    """Which ops took effect: every ok op, and each op of unknown outcome whose value is
    seen (read, or expected by a cas that took effect); an unknown cas taken swaps from its
    expected value, which is then seen too."""
    taken = [o.ret is not None for o in ops]
    seen = list(readers) + list(swap)
    while seen:
        value = seen.pop()
        w = writer.get(value)
        if w is None:
            return None  # seen, and nobody wrote it
        if w == _INIT or taken[w]:
            continue
        taken[w] = True
        o = ops[w]
        if o.f == "cas":
            expected = o.input[0]
            if expected in swap:
                return None
            swap[expected] = w
            seen.append(expected)
    return taken


def _order(ops: Sequence[Operation], first: Any, writer: dict[Any, int], swap: dict[Any, int],
           readers: dict[Any, list[int]], taken: list[bool]) -> list[int] | Conflict | None:
    """The chains, the initial state's first, then the others in an order real time allows;
    then the ops of unknown outcome that took no effect."""
    placed = 0
    units: list[list[int]] = []
    c: list[float] = []
    d: list[float] = []
    head_chain: list[int] = []
    heads = [_INIT] + [j for j, o in enumerate(ops) if o.f == "write" and taken[j]]
    for head in heads:
        chain = [] if head == _INIT else [head]
        value = first if head == _INIT else ops[head].input
        while True:
            chain += readers.get(value, ())
            nxt = swap.get(value)
            if nxt is None:
                break
            chain.append(nxt)
            value = ops[nxt].input[1]
            if len(chain) > len(ops):
                return None  # (a cycle of swaps: no chain holds them)
        placed += len(chain)
        if head == _INIT:
            head_chain = chain
            continue
        latest, earliest = -_INF, _INF
        for j in chain:
            o = ops[j]
            if o.call > latest:
                latest = o.call
            if o.ret is not None and o.ret < earliest:
                earliest = o.ret
        units.append(chain)
        c.append(latest)
        d.append(earliest)
    if placed != sum(taken):
        return None  # a cas no chain reaches
    order = head_chain
    if len(units) > 1:
        ranked = arrange(c, d)
        if isinstance(ranked, tuple):
            return _conflict(ops, units[ranked[0]], units[ranked[1]])
        for u in ranked:
            order += units[u]
    elif units:
        order += units[0]
    order += [j for j, t in enumerate(taken) if not t]
    return order


CONFLICT_MOST = 256
"""Ops a conflict may hold (its two chains cut): a bigger one is left to the search."""


def _conflict(ops: Sequence[Operation], u: list[int], v: list[int]) -> Conflict | None:
    """Chains `u` and `v` (each must come before the other), each cut after the latest of
    its op returning first and its op called last: the ops that show it."""
    kept: list[int] = []
    for chain in (u, v):
        soonest = latest = 0
        first_ret = _INF
        for k, j in enumerate(chain):
            o = ops[j]
            if o.ret is not None and o.ret < first_ret:
                soonest, first_ret = k, o.ret
            if o.call > ops[chain[latest]].call:
                latest = k
        kept += chain[: max(soonest, latest) + 1]
    return Conflict(tuple(sorted(kept))) if len(kept) <= CONFLICT_MOST else None
