"""Knossos' other models (knossos/src/knossos/model.clj): `mutex`, `multi-register`, `set`,
`unordered-queue` and `fifo-queue`, as semantics only (no tactics but `read_only`).

What an op means follows Knossos' history preparation (knossos.history/complete and
without-failures, read at knossos 0.3.15): an `ok` op has its completion's value (a read's,
a dequeue's), a `fail` op never happened and is dropped, and an `info` op (or one never
completed) may have taken effect at any time after its call, or never, with its invocation's
value. Knossos steps every op with one `:value`; here an op carries the invocation's value
(`input`) and the completion's (`output`), and each model below reads the one Knossos reads.

Where an `info` op's effect is not a function of its invocation (a dequeue's value is what it
would have returned), Knossos steps it with its invocation's value, nil, which no dequeue
matches: it never takes effect. For an unordered queue that is exact, since removing an element
only makes later dequeues harder, so "never" is always at least as good. For a FIFO queue it is
not: a dequeue that timed out may have consumed the head, after which the next dequeue returns
the second element. Knossos calls that history not linearizable; here a timed-out dequeue
takes the head (or, as any info op may, never takes effect), which is what the queue could
have done. docs/check-history.md, "Models", says so too.

Every model is partitioned by key (Jepsen's `independent` tuples: one object per key); within a
key none of these is P-compositional by anything smaller (a multi-register transaction spans
registers; a set read returns the whole set; a FIFO queue orders all its values).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from checkers.linearizability.frozen import thaw
from checkers.linearizability.history import Operation
from checkers.linearizability.sequential import Malformed, SequentialModel, Tactics, by_key
from observed.edn_values import edn, name_of


def _show(value: Any) -> str:
    return edn(value)


def describe(op: Operation) -> str:
    """An op as Knossos' models read it: `f value` (the input; a dequeue's and a read's is
    nil, so left out), then `-> output`, `ok` when an op returns nothing of its own, or `?`."""
    key = "" if op.key is None else f"{_show(op.key)}: "
    arg = "" if op.input is None else f" {_show(op.input)}"
    if op.ret is None:
        out = "?"
    elif op.f in ("read", "dequeue", "txn"):
        out = _show(op.output)
    else:
        out = "ok"
    return f"{key}{op.f}{arg} -> {out}"


# --- mutex -------------------------------------------------------------------------------------


def mutex_step(locked: bool, op: Operation) -> bool | None:
    """Knossos' Mutex: acquire takes a free lock, release frees a held one; values are ignored."""
    if op.f == "acquire":
        return None if locked else True
    if op.f == "release":
        return False if locked else None
    return None


def _lock_state(locked: bool) -> str:
    return "locked" if locked else "free"


MUTEX = SequentialModel(
    describe_op=describe,
    name="mutex",
    init=False,
    step=mutex_step,
    partition=by_key,
    describe_state=_lock_state,
    functions=frozenset({"acquire", "release"}),
)
"""One lock (per key), initially free: acquire, release. A failed acquire is `fail`."""


# --- multi-register ----------------------------------------------------------------------------

READ, WRITE = "read", "write"
_MICRO = {"read": READ, "r": READ, "write": WRITE, "w": WRITE}
"""A micro-op's f: Knossos' `:read`/`:write`, and jepsen.txn's `:r`/`:w` (Elle's rw-register)."""


def txn_of(op: Operation) -> Any:
    """The transaction Knossos steps: the completion's (reads filled in) if the op completed
    with one, else the invocation's (an info op's reads are nil: always legal)."""
    return op.output if op.ret is not None and op.output is not None else op.input


def multi_register_step(state: frozenset[tuple[Hashable, Any]], op: Operation) -> frozenset[tuple[Hashable, Any]] | None:
    """Knossos' MultiRegister: a `txn` of `[f k v]` micro-ops applied in order to registers
    that start as nil; a read of nil is always legal (what it read is unknown), any other read
    must see the register's value. A state holds the non-nil registers, as (key, value) pairs."""
    values = dict(state)
    for micro in txn_of(op):
        f, k, v = micro
        if _MICRO[name_of(f) or ""] == READ:
            if v is not None and values.get(k) != v:
                return None
        elif v is None:
            values.pop(k, None)
        else:
            values[k] = v
    return frozenset(values.items())


def _registers_state(state: frozenset[tuple[Hashable, Any]]) -> str:
    return "{" + ", ".join(sorted(f"{_show(k)} {_show(v)}" for k, v in state)) + "}"


def _txn_problem(txn: Any) -> str | None:
    if not isinstance(txn, tuple):
        return f"a txn is a list of [f k v] micro-ops, got {thaw(txn)!r}"
    for micro in txn:
        if not (isinstance(micro, tuple) and len(micro) == 3):
            return f"a txn micro-op is [f k v], got {thaw(micro)!r}"
        if _MICRO.get(name_of(micro[0]) or "") is None:
            return f"a txn micro-op's f is :read or :write, got {thaw(micro[0])!r}"
    return None


def _multi_register_malformed(op: Operation) -> Malformed | None:
    """The invocation's txn, and the completion's when it has one, are lists of [f k v]; the
    completion's names the same micro-ops (same f and k, in order) as the invocation's."""
    if op.input is None and op.ret is not None and op.output is not None:
        problem = _txn_problem(op.output)
        return None if problem is None else Malformed(at="return", reason=problem)
    problem = _txn_problem(op.input)
    if problem is not None:
        return Malformed(at="call", reason=problem)
    if op.ret is None or op.output is None:
        return None
    problem = _txn_problem(op.output)
    if problem is not None:
        return Malformed(at="return", reason=problem)
    shape = [(_MICRO[name_of(m[0]) or ""], m[1]) for m in op.input]
    if shape != [(_MICRO[name_of(m[0]) or ""], m[1]) for m in op.output]:
        return Malformed(at="return", reason=f"the completed txn {thaw(op.output)!r} is not the invoked one, "
                                             f"{thaw(op.input)!r} (same micro-ops, in order, values filled in)")
    return None


MULTI_REGISTER = SequentialModel(
    describe_op=describe,
    name="multi-register",
    init=frozenset(),
    step=multi_register_step,
    partition=by_key,
    describe_state=_registers_state,
    functions=frozenset({"txn"}),
    malformed=_multi_register_malformed,
)
"""Registers read and written together: `txn` of `[:read k v]` / `[:write k v]`, all nil at first.
Partitioned by independent key only: a transaction spans registers."""


# --- set ---------------------------------------------------------------------------------------


def set_step(state: frozenset[Any], op: Operation) -> frozenset[Any] | None:
    """Knossos' Set: add(v) adds v; a read returns the whole set."""
    if op.f == "add":
        return state | {op.input}
    if op.f == "read":
        if op.ret is None or frozenset(op.output) == state:
            return state
        return None
    return None


def _set_state(state: frozenset[Any]) -> str:
    return "#{" + " ".join(sorted(_show(v) for v in state)) + "}"


def _set_malformed(op: Operation) -> Malformed | None:
    """A read returns a collection of distinct elements (a set, or a list: compared as a set)."""
    if op.f != "read" or op.ret is None:
        return None
    out = op.output
    if isinstance(out, frozenset):
        return None
    if not isinstance(out, tuple):
        return Malformed(at="return", reason=f"a set read returns a collection, got {thaw(out)!r}")
    if len(frozenset(out)) != len(out):
        return Malformed(at="return", reason=f"a set read lists an element twice: {thaw(out)!r}")
    return None


SET = SequentialModel(
    describe_op=describe,
    name="set",
    init=frozenset(),
    step=set_step,
    partition=by_key,
    describe_state=_set_state,
    functions=frozenset({"add", "read"}),
    malformed=_set_malformed,
    tactics=Tactics(read_only=frozenset({"read"})),
)
"""A grow-only set, initially empty: add(v), read -> the set (a read must see exactly it)."""


# --- queues ------------------------------------------------------------------------------------


def unordered_queue_step(pending: frozenset[tuple[Any, int]], op: Operation) -> frozenset[tuple[Any, int]] | None:
    """Knossos' UnorderedQueue: a multiset of pending values (here (value, count) pairs).
    enqueue(v) adds one v; an ok dequeue removes the one it returned, which must be pending.
    A dequeue of unknown outcome removes nothing: see the module doc."""
    if op.f == "enqueue":
        counts = dict(pending)
        counts[op.input] = counts.get(op.input, 0) + 1
        return frozenset(counts.items())
    if op.f == "dequeue":
        if op.ret is None:
            return pending
        counts = dict(pending)
        n = counts.get(op.output, 0)
        if not n:
            return None
        if n == 1:
            del counts[op.output]
        else:
            counts[op.output] = n - 1
        return frozenset(counts.items())
    return None


def _multiset_state(pending: frozenset[tuple[Any, int]]) -> str:
    return "{" + " ".join(sorted(" ".join([_show(v)] * n) for v, n in pending)) + "}"


UNORDERED_QUEUE = SequentialModel(
    describe_op=describe,
    name="unordered-queue",
    init=frozenset(),
    step=unordered_queue_step,
    partition=by_key,
    describe_state=_multiset_state,
    functions=frozenset({"enqueue", "dequeue"}),
)
"""A queue that may hand out its pending values in any order: enqueue(v), dequeue -> v. A
dequeue that finds it empty is `fail` (Jepsen's queue clients'), as in Knossos."""


def fifo_queue_step(pending: tuple[Any, ...], op: Operation) -> tuple[Any, ...] | None:
    """Knossos' FIFOQueue: enqueue(v) appends v; an ok dequeue returns the head, which must be
    the value it returned. A dequeue of unknown outcome takes the head: see the module doc."""
    if op.f == "enqueue":
        return (*pending, op.input)
    if op.f == "dequeue":
        if not pending or (op.ret is not None and op.output != pending[0]):
            return None
        return pending[1:]
    return None


def _fifo_state(pending: tuple[Any, ...]) -> str:
    return "[" + " ".join(_show(v) for v in pending) + "]"


FIFO_QUEUE = SequentialModel(
    describe_op=describe,
    name="fifo-queue",
    init=(),
    step=fifo_queue_step,
    partition=by_key,
    describe_state=_fifo_state,
    functions=frozenset({"enqueue", "dequeue"}),
)
"""A first-in first-out queue: enqueue(v), dequeue -> the oldest pending value."""


KNOSSOS_MODELS = (MUTEX, MULTI_REGISTER, SET, UNORDERED_QUEUE, FIFO_QUEUE)
