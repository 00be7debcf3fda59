"""The metadata log's fast path: linearizability of commits and epoch reads without a search.

Every successful commit names its epoch, and an epoch follows exactly one predecessor, so the
order of all state changes is forced: epoch 1, 2, 3, ... Reads and rejections that name an
epoch e must sit between the commit of e and the commit of e+1. What is left is to place each
op at a point inside its [call, return] interval, in that forced order, which a greedy pass
does by putting every point as early as possible (each constraint is a lower bound from a call
or an upper bound from a return, so "earliest" never hurts a later op). Epochs no successful
commit claims must be filled by commits with unknown outcome (`info`), which may take effect
at any time after their call: the filler with the earliest call is the best choice for the
earliest gap. Near-linear: one sort plus one pass.

Returns the same `PartitionResult` the search would; a test checks both agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.verdict import PartitionResult

INF = float("inf")


def commit_outcome(output: Any) -> tuple[str, int | None]:
    """Decode a commit's output: ("committed", epoch), ("rejected", epoch-or-None) or ("unknown", None).

    An ok commit carries the epoch it was given (an int, or `{"epoch": e}`), or a rejection
    `{"rejected": reason}`, optionally with the `"epoch"` at which it was decided."""
    if output is None:
        return ("unknown", None)
    if isinstance(output, bool):
        raise ValueError(f"commit output {output!r} is neither an epoch nor a rejection")
    if isinstance(output, int):
        return ("committed", output)
    get = getattr(output, "get", None)
    if get is not None:
        epoch = get("epoch")
        if epoch is not None and (isinstance(epoch, bool) or not isinstance(epoch, int)):
            raise ValueError(f"commit epoch {epoch!r} is not an integer")
        if "rejected" in output:
            return ("rejected", epoch)
        if epoch is not None:
            return ("committed", epoch)
    raise ValueError(f"commit output {output!r} is neither an epoch nor a rejection")


def check_log(operations: Sequence[Operation], *, init: int = 0, key: Any = None) -> PartitionResult:
    """Decide one log partition. `operations` are paired ops with f "commit" or "read"."""
    ops = tuple(operations)
    committed: dict[int, Operation] = {}
    at_epoch: dict[int, list[Operation]] = {}  # reads and rejections decided at an epoch
    fillers: list[Operation] = []  # info commits
    free: list[Operation] = []  # rejections without an epoch: fit anywhere
    for o in ops:
        if o.f == "read":
            if o.ret is None:
                continue
            at_epoch.setdefault(o.output, []).append(o)
            continue
        kind, epoch = commit_outcome(o.output)
        if kind == "unknown":
            fillers.append(o)
        elif kind == "rejected":
            if epoch is None:
                free.append(o)
            else:
                at_epoch.setdefault(epoch, []).append(o)
        elif epoch is None or epoch <= init or epoch in committed:
            # a second commit of one epoch, or an epoch at or below the start, never linearizes
            return _fail(ops, key, o)
        else:
            committed[epoch] = o
    for e in at_epoch:
        if not isinstance(e, int) or isinstance(e, bool) or e < init:
            return _fail(ops, key, at_epoch[e][0])
    top = max([init, *committed, *at_epoch])
    fillers.sort(key=lambda o: o.call)
    next_filler = 0
    placed: list[tuple[tuple[float, int], Operation, int]] = []
    # (event position, tie-breaker): strictly increasing; several ops may share an instant, in
    # tie-breaker order, and an interval [call, return] is closed, so only positions compare
    point: tuple[float, int] = (-1, 0)
    for epoch in range(init, top + 1):
        if epoch > init:
            c = committed.get(epoch)
            if c is None:
                if next_filler >= len(fillers):
                    # nothing can have produced this epoch: blame what needed it soonest
                    needy = [o for e, o in committed.items() if e > epoch]
                    needy += [o for e, rs in at_epoch.items() if e >= epoch for o in rs]
                    return _result(ops, key, False, placed, min(needy, key=_ret))
                c = fillers[next_filler]
                next_filler += 1
            point = max((point[0], point[1] + 1), (c.call, 0))
            if c.ret is not None and point[0] > c.ret:
                return _result(ops, key, False, placed, c)
            placed.append((point, c, epoch))
        for r in sorted(at_epoch.get(epoch, ()), key=lambda o: o.call):
            point = max((point[0], point[1] + 1), (r.call, 0))
            if r.ret is not None and point[0] > r.ret:
                return _result(ops, key, False, placed, r)
            placed.append((point, r, epoch))
    # Unused fillers took effect last (as good as never: nothing observes it). An epoch-less
    # rejection fits anywhere in its own interval: put it at its call, seeing that epoch.
    for extra, o in enumerate(fillers[next_filler:], start=1):
        placed.append(((INF, o.call), o, top + extra))
    for o in free:
        placed.append(((o.call, -1), o, -1))
    placed.sort(key=lambda p: p[0])
    current = init
    for i, (pt, o, e) in enumerate(placed):
        if e == -1:
            placed[i] = (pt, o, current)
        else:
            current = e
    return _result(ops, key, True, placed, None)


def _ret(o: Operation) -> float:
    return INF if o.ret is None else o.ret


def _fail(ops: tuple[Operation, ...], key: Any, culprit: Operation) -> PartitionResult:
    return _result(ops, key, False, [], culprit)


def _result(
    ops: tuple[Operation, ...],
    key: Any,
    valid: bool,
    placed: list[tuple[tuple[float, int], Operation, int]],
    failing: Operation | None,
) -> PartitionResult:
    return PartitionResult(
        key=key,
        operations=ops,
        valid=valid,
        linearization=tuple(o.id for _, o, _ in placed),
        states=tuple(e for _, _, e in placed),
        failing=None if failing is None else failing.id,
        explored=len(ops),
    )
