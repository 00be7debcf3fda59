"""Histories: `Op` events as recorded (DESIGN's JSONL, one field each; observed/history.py) and the
`Operation`s they pair into.

A history is a tuple of `Op`s in the order they were observed. That order *is* real time for
the checker: operation A precedes B only if A's completion comes before B's invocation in the
tuple. `time` is carried along for display (the HTML time axis) but never decides precedence,
because clocks of different client machines tie and drift while the recorded order does not.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Literal

from attrs import frozen

from checkers.linearizability.frozen import SCALARS, freeze
from observed.history import EVENT_TYPES, EventType, Op

# (`Op`, the event, is observed/history.py's: the one op shape from a simulated run's clients
# to this checker and of the histories read from files)


def invoke(process: Hashable, f: str, value: Any = None, *, key: Hashable = None) -> Op:
    return Op(process=process, type="invoke", f=f, key=key, value=value)


def ok(process: Hashable, f: str, value: Any = None, *, key: Hashable = None) -> Op:
    return Op(process=process, type="ok", f=f, key=key, value=value)


def fail(process: Hashable, f: str, value: Any = None, *, key: Hashable = None) -> Op:
    return Op(process=process, type="fail", f=f, key=key, value=value)


def info(process: Hashable, f: str, value: Any = None, *, key: Hashable = None) -> Op:
    return Op(process=process, type="info", f=f, key=key, value=value)


@frozen(kw_only=True)
class Operation:
    """An invocation paired with its completion: what a model steps through.

    `call` and `ret` are positions of the two events in the history. `ret` is None when the
    outcome is unknown (`info`, or no completion before the history ended): such an operation
    may take effect at any time after its call, or never, and `output` is None.
    """

    id: int
    process: Hashable
    f: str
    key: Hashable
    input: Any
    output: Any
    call: int
    ret: int | None
    call_time: int | None = None
    ret_time: int | None = None

    @property
    def status(self) -> Literal["ok", "info"]:
        return "ok" if self.ret is not None else "info"


class HistoryError(ValueError):
    """A history that cannot be paired; `index` is the position of the offending event."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


def pair(history: Sequence[Op]) -> tuple[Operation, ...]:
    """Pair invocations with completions: the next ok/fail/info event of the same process.

    `fail` operations did not happen and are dropped. An `info` completion (crash, timeout)
    leaves the outcome unknown, and retires the process: Jepsen gives the worker a new process
    id, so a retired process that invokes again is an error. Operations still open when the
    history ends are treated like `info` ones. Operation ids are assigned in invocation order.
    Values are frozen (lists become tuples, objects `FrozenMap`s): model states must hash.
    """
    open_calls: dict[Hashable, tuple[int, Op]] = {}
    retired: set[Hashable] = set()
    done: list[tuple[int, Op, Op | None, int | None]] = []
    for i, op in enumerate(history):
        if op.type == "invoke":
            if op.process in retired:
                raise HistoryError(
                    i, f"process {op.process!r} invoked {op.f} after an operation that ended in info"
                )
            if op.process in open_calls:
                raise HistoryError(
                    i, f"process {op.process!r} invoked {op.f} while its previous operation is open"
                )
            open_calls[op.process] = (i, op)
            continue
        if op.type not in EVENT_TYPES:
            raise HistoryError(i, f"unknown event type {op.type!r}")
        started = open_calls.pop(op.process, None)
        if started is None:
            raise HistoryError(i, f"{op.type} {op.f} of process {op.process!r} with no open invocation")
        ci, call = started
        if call.f != op.f:
            raise HistoryError(i, f"{op.type} {op.f} completes an invocation of {call.f}")
        if call.key != op.key and op.key is not None:
            raise HistoryError(i, f"{op.type} {op.f} on key {op.key!r} completes one on key {call.key!r}")
        if op.type == "fail":
            continue
        if op.type == "info":
            retired.add(op.process)
            done.append((ci, call, None, None))
        else:
            done.append((ci, call, op, i))
    for ci, call in open_calls.values():
        done.append((ci, call, None, None))
    done.sort(key=lambda d: d[0])
    operations = []
    scalar = SCALARS
    # One object per name: every later pass reads `f` of every op (a dict lookup of the model's
    # rules, a comparison), and a string a reader made per event is one more cache miss each.
    names: dict[str, str] = {}
    for n, (ci, call, comp, ri) in enumerate(done):
        value = call.value
        if type(value) not in scalar:
            value = freeze(value)
        if comp is None:
            output = ret_time = None
        else:
            output = comp.value
            if type(output) not in scalar:
                output = freeze(output)
            ret_time = comp.time
        operations.append(
            Operation(
                id=n,
                process=call.process,
                f=names.setdefault(call.f, call.f),
                key=call.key,
                input=value,
                output=output,
                call=ci,
                ret=ri,
                call_time=call.time,
                ret_time=ret_time,
            )
        )
    return tuple(operations)


def unpair(operations: Sequence[Operation]) -> tuple[Op, ...]:
    """The events of some operations as a history again (an `info` op gets an info completion).

    Used to print a failing sub-history; events keep their original relative order."""
    events: list[tuple[float, int, Op]] = []
    for o in operations:
        events.append(
            (o.call, 0, Op(process=o.process, type="invoke", f=o.f, key=o.key, value=o.input, time=o.call_time))
        )
        if o.ret is not None:
            done = Op(process=o.process, type="ok", f=o.f, key=o.key, value=o.output, time=o.ret_time)
            events.append((o.ret, 1, done))
        else:
            events.append((float("inf"), o.call, Op(process=o.process, type="info", f=o.f, key=o.key)))
    events.sort(key=lambda e: (e[0], e[1]))
    return tuple(e[2] for e in events)


__all__ = ["EVENT_TYPES", "EventType", "HistoryError", "Op", "Operation", "fail", "info", "invoke", "ok",
           "pair", "unpair"]
