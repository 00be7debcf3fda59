"""What register and key-value states are, for the models of `model.py`: each function here is
one field of `REGISTER`, `CAS_REGISTER` or `KV` (a state is a 1-tuple holding the value, since
a register may hold null).

`step` and its faster equivalents (`compiler`'s per-op closures, the `replay` folds: tests check
they agree), and what pruning by value asks (`needs`, `produces`, `reaches`, `effect_needs`,
and for kv's appends, which build on the state, `kv_leads_to`, `kv_may_lead`, `kv_leading`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from checkers.linearizability.history import Operation


def value_state(state: Any) -> str:
    return repr(state[0])


def register_step(state: tuple[Any], op: Operation) -> tuple[Any] | None:
    f = op.f
    if f == "read":
        if op.ret is None or op.output == state[0]:
            return state
        return None
    if f == "write":
        return (op.input,)
    return None


def cas_step(state: tuple[Any], op: Operation) -> tuple[Any] | None:
    f = op.f
    if f == "cas":
        expected, new = op.input
        # A cas with ok output swapped; an info cas swaps iff it is linearized where the value
        # is `expected` (elsewhere it would have returned false: no effect).
        if state[0] == expected:
            return (new,)
        return state if op.ret is None else None
    return register_step(state, op)


def _same(state: Any) -> Any:
    return state


def _compile_read(op: Operation) -> Callable[[Any], Any]:
    if op.ret is None:
        return _same
    expected = op.output
    return lambda s: s if s[0] == expected else None


def _compile_write(op: Operation) -> Callable[[Any], Any]:
    new = (op.input,)
    return lambda s: new


def _compile_cas(op: Operation) -> Callable[[Any], Any]:
    expected, value = op.input
    new = (value,)
    if op.ret is None:
        return lambda s: new if s[0] == expected else s
    return lambda s: new if s[0] == expected else None


def _compile_append(op: Operation) -> Callable[[Any], Any]:
    suffix = op.input
    return lambda s: (("" if s[0] is None else s[0]) + suffix,)


def _never(state: Any) -> Any:
    return None


def needs(op: Operation) -> tuple[Any] | None:
    """The state an ok read or ok cas must see (registers and kv)."""
    if op.ret is None:
        return None
    if op.f in ("read", "get"):
        return (op.output,)
    if op.f == "cas":
        return (op.input[0],)
    return None


def reaches(op: Operation, state: Any) -> bool:
    """May `op` turn a state other than `state` into `state`? (registers and kv)"""
    f = op.f
    if f in ("write", "put"):
        return bool(state == (op.input,))
    if f == "cas":
        return bool(state == (op.input[1],))
    if f == "append":
        # current + suffix == state: only a non-empty suffix changes the state
        value = state[0]
        return bool(op.input) and isinstance(value, str) and value.endswith(op.input)
    return False  # reads change nothing


def produces(op: Operation) -> tuple[Any] | None:
    """The state a write or cas leaves, whatever the state before (registers and kv)."""
    if op.f in ("write", "put"):
        return (op.input,)
    if op.f == "cas":
        return (op.input[1],)
    return None


def kv_may_lead(op: Operation, target: Any) -> bool:
    """Can a state an append leaves lead to `target`? Only if its suffix occurs in it."""
    value = target[0]
    return op.f != "append" or (isinstance(value, str) and isinstance(op.input, str) and op.input in value)


def effect_needs(op: Operation) -> tuple[Any] | None:
    """The state a cas needs to swap, ok or not (registers and kv); a write swaps in any."""
    if op.f == "cas":
        return (op.input[0],)
    return None


def kv_leads_to(state: Any, target: Any) -> bool:
    """May appends alone turn `state` into `target`? (kv: only if it is a prefix of it)"""
    current, value = state[0], target[0]
    if not isinstance(value, str):
        return bool(current == value)
    if current is None:
        return True
    return isinstance(current, str) and value.startswith(current)


def kv_builds(start: Any, target: Any, appends: Sequence[Operation]) -> bool:
    """May some of `appends`, in some order, turn `start` into `target`? (kv: False only if
    the rest of the target after `start` is no concatenation of their suffixes, each used any
    number of times: a looser question, so a False holds for the real one too.)"""
    current, value = start[0], target[0]
    if current is None:
        current = ""
    if not isinstance(value, str) or not isinstance(current, str):
        return True  # (not strings: nothing to say)
    if not value.startswith(current):
        return False
    rest = value[len(current):]
    if not rest:
        return True
    suffixes = set()
    for o in appends:
        if not isinstance(o.input, str):
            return True
        if o.input:
            suffixes.add(o.input)
    reach = [True] + [False] * len(rest)
    for i in range(len(rest)):
        if reach[i]:
            for suffix in suffixes:
                if rest.startswith(suffix, i):
                    reach[i + len(suffix)] = True
    return reach[-1]


def kv_leading(states: Iterable[Any]) -> Callable[[Any], list[Any]]:
    """`kv_leads_to` as a lookup over `states`: a string target is led to by the null state
    and by its prefixes, looked up at the lengths the string states have; any other target
    only by itself."""
    known: set[Any] = set()
    nulls: list[Any] = []
    lengths: set[int] = set()
    for state in states:
        known.add(state)
        value = state[0]
        if value is None:
            nulls.append(state)
        elif isinstance(value, str):
            lengths.add(len(value))
    sizes = sorted(lengths)

    def lookup(target: Any) -> list[Any]:
        value = target[0]
        if not isinstance(value, str):
            return [target] if target in known else []
        found = list(nulls)
        for size in sizes:
            if size > len(value):
                break
            prefix = (value[:size],)
            if prefix in known:
                found.append(prefix)
        return found

    return lookup


def register_replay(state: tuple[Any], ops: Sequence[Operation]) -> list[tuple[Any]] | None:
    """`register_step` folded over `ops`: the state after each, or None where one is refused."""
    if any(op.f == "cas" for op in ops):
        return None
    return cas_replay(state, ops)


def cas_replay(state: tuple[Any], ops: Sequence[Operation]) -> list[tuple[Any]] | None:
    """`cas_step` folded over `ops`: the state after each, or None where one is refused."""
    states: list[tuple[Any]] = []
    add = states.append
    value = state[0]
    for op in ops:
        f = op.f
        if f == "read":
            if op.ret is not None and not op.output == value:  # noqa: SIM201 (step compares with ==)
                return None
        elif f == "write":
            value = op.input
            state = (value,)
        elif f == "cas":
            expected, new = op.input
            if value == expected:
                value = new
                state = (value,)
            elif op.ret is not None:
                return None
        else:
            return None
        add(state)
    return states


_COMPILERS: dict[str, Callable[[Operation], Callable[[Any], Any]]] = {
    "read": _compile_read,
    "get": _compile_read,
    "write": _compile_write,
    "put": _compile_write,
    "cas": _compile_cas,
    "append": _compile_append,
}


STEP_KINDS: dict[str, int] = {"read": 1, "get": 1, "write": 2, "put": 2, "cas": 3, "append": 4}
"""The compiled search's codes for the rules of `_COMPILERS` (cwgl.c steps them itself)."""


def step_kinds(functions: frozenset[str]) -> dict[str, int]:
    """`SequentialModel.step_kinds` for a model stepped by `compiler(functions)`."""
    return {f: STEP_KINDS[f] for f in functions}


def compiler(functions: frozenset[str]) -> Callable[[Operation], Callable[[Any], Any]]:
    def compile_op(op: Operation) -> Callable[[Any], Any]:
        make = _COMPILERS.get(op.f) if op.f in functions else None
        return _never if make is None else make(op)

    return compile_op



def kv_step(state: tuple[Any], op: Operation) -> tuple[Any] | None:
    f = op.f
    if f in ("read", "get"):
        if op.ret is None or op.output == state[0]:
            return state
        return None
    if f in ("write", "put"):
        return (op.input,)
    if f == "append":
        current = state[0]
        return (("" if current is None else current) + op.input,)
    if f == "cas":
        return cas_step(state, op)
    return None


def kv_replay(state: tuple[Any], ops: Sequence[Operation]) -> list[tuple[Any]] | None:
    """`kv_step` folded over `ops`: the state after each, or None where one is refused."""
    states: list[tuple[Any]] = []
    add = states.append
    value = state[0]
    for op in ops:
        f = op.f
        if f == "append":
            if value is None:
                value = ""
            value += op.input
            state = (value,)
        elif f == "get" or f == "read":
            if op.ret is not None and not op.output == value:  # noqa: SIM201 (step compares with ==)
                return None
        elif f == "put" or f == "write":
            value = op.input
            state = (value,)
        else:
            after = kv_step(state, op)
            if after is None:
                return None
            state = after
            value = state[0]
        add(state)
    return states
