"""kv's quick guess at a linearization (`by_offsets`), asked before `kv_fast.propose` and checked
the same way (`witness.witnessed`): for Porcupine-style values, whose appended suffixes all begin
with one character found nowhere else in them, `str.split` cuts a value into its suffixes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.units import units_in_order


def by_offsets(ops: Sequence[Operation], init: Any) -> list[int] | None:
    """`propose`'s guess for the common case, cheaper and wrong more often (the caller checks
    it, then asks `propose`): every value a string, no cas, no value put twice, and the
    suffixes appended all begin with one character found nowhere else in them (Porcupine's
    `"x 1 2 y"`), so that `str.split` cuts a value into them.

    A block is the put whose value is the longest prefix of what a get read (or the initial
    state). The longest value read in a block, cut after its head, gives its appends in
    order; each get goes right after the append that ends where its value ends (a get whose
    value ends inside a suffix is left out, and the order fails its check). The units
    (the blocks, and each write no get read) are then ordered as in `propose`, the initial
    state's block first. Plain loops, not pipelines of `map`: on slotted ops they are faster.
    Values of the wrong type end it (TypeError)."""
    if type(init) is not tuple or len(init) != 1:
        return None
    head0 = "" if init[0] is None else init[0]
    appends: dict[str, int] = {}
    again: dict[str, list[int]] = {}  # a suffix appended more than once: all its appends
    puts: dict[str, int] = {head0: -1}  # block heads, the initial state's first
    values: dict[str, list[int]] = {}  # a value read -> the gets that read it
    try:
        for j, o in enumerate(ops):
            f = o.f
            if f == "append":
                s = o.input
                if s in appends:
                    again.setdefault(s, [appends[s]]).append(j)
                else:
                    appends[s] = j
            elif f == "get" or f == "read":
                out = o.output or ""  # (None: the initial state)
                if out in values:
                    values[out].append(j)
                else:
                    values[out] = [j]
            elif (f == "put" or f == "write") and o.input not in puts:
                puts[o.input] = j
            else:
                return None
        if not appends:
            return None
        # every suffix begins with the mark and holds no other: `str.split` can cut them apart
        # (counted over all of them at once: a test per suffix costs a quarter of the guess)
        mark = next(iter(appends))[:1]
        if not mark or "".join(appends).count(mark) != len(appends):
            return None
        if ("\0" + "\0".join(appends)).count("\0" + mark) != len(appends):
            return None

        # The values read in each block.
        members: dict[str, list[str]] = {}
        if len(puts) == 1:
            members[head0] = list(values)
        else:
            # a put's value first when it begins the value, longer values first (with many
            # puts, looked up at the lengths they have: a prefix test per put is quadratic)
            heads = sorted(puts, key=len, reverse=True)
            heads.remove(head0)
            sizes = sorted({len(head) for head in heads}, reverse=True) if len(heads) > 8 else []
            for out in values:
                if sizes:
                    for size in sizes:
                        head = out[:size]
                        if len(head) == size and head in puts and head != head0:
                            break
                    else:
                        head = head0
                else:
                    for head in heads:
                        if out.startswith(head):
                            break
                    else:
                        head = head0
                if head in members:
                    members[head].append(out)
                else:
                    members[head] = [out]

        # Each block: its appends in order, each followed by the gets of the value it leaves.
        # An append placed leaves `unread`; a suffix appended more than once is placed first as
        # its first append, then as the others in the order called.
        unread = appends
        copies = {s: iter(kin[1:]) for s, kin in again.items()}
        take = unread.pop
        runs: list[list[int]] = []
        for head, read in members.items():
            # the gets by the length of the value they read, and the longest value
            by_size: dict[int, list[int]] = {}
            longest, most = head, len(head)
            for out in read:
                size = len(out)
                if size in by_size:
                    return None  # two values of one length read in one block
                by_size[size] = values[out]
                if size > most:
                    longest, most = out, size
            if most == len(head):
                cut = []  # (no append read in the block)
            else:
                cut = longest[len(head) :].replace(mark, _SEP + mark).split(_SEP)
                if cut[0]:
                    return None  # not the block's head and appends after it
                del cut[0]
            p = puts[head]
            run = [] if p < 0 else [p]
            size = len(head)
            got = by_size.get(size)
            if got is not None:
                run += got
            for piece in cut:
                j = take(piece, -1)
                if j < 0:
                    j = next(copies[piece], -1)  # (KeyError: no append of it, or read twice)
                    if j < 0:
                        return None  # a suffix read more often than appended
                run.append(j)
                size += len(piece)
                got = by_size.get(size)
                if got is not None:
                    run += got
            if p < 0:
                runs.insert(0, run)
            else:
                runs.append(run)

        # The writes no get read, each a unit.
        free = list(unread.values())
        for rest in copies.values():
            free += rest
        if len(puts) > len(members):
            free += [j for head, j in puts.items() if j >= 0 and head not in members]
        first = runs.pop(0) if head0 in members else []
        if len(runs) + len(free) < 2:
            return first + (runs[0] if runs else free)
        c: list[Any] = []
        d: list[Any] = []
        for run in runs:
            # the latest call: of the last op (ops come in the order called, as `pair` gives
            # them; if not, the guess may be wrong and fail its check)
            c.append(ops[max(run)].call)
            earliest: Any = ops[run[0]].ret  # (an unknown outcome, None, ends it: TypeError)
            for j in run:
                ret = ops[j].ret
                if ret < earliest:
                    earliest = ret
            d.append(earliest)
        for j in sorted(free):
            runs.append([j])
            o = ops[j]
            c.append(o.call)
            d.append(o.ret)
        order = units_in_order(c, d)
        if order is None:
            return None
        for u in order:
            first += runs[u]
        return first
    except (TypeError, KeyError, AttributeError):  # a value of the wrong type or unknown; a None
        return None


_SEP = "\0"  # a value holding it is cut wrong, and the guess fails its check
