"""Sequential specifications the linearizability search steps through.

A `SequentialModel` is a record of plain functions, not a class to subclass. A state is any
hashable value, compared with `==`: the search memoizes (linearized set, state) pairs, so a
state must never be mutated. `step(state, op)` returns the next state, or None when the
operation's output is impossible in `state`; hence no model uses None as a state (registers
wrap their value in a 1-tuple, because a register may hold null).

An `info` operation (`op.ret is None`, `op.output is None`) has an unknown outcome: `step` must
accept it in every state where it could have taken effect, with the effect it would have had.

Four instances: `REGISTER`, `CAS_REGISTER`, `KV` and `LOG`; `with_initial` changes a model's
initial value (Porcupine's kv histories start every key at "", ours at null).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from attrs import evolve, field, frozen

from checkers.linearizability.history import Operation
from checkers.linearizability.kv_fast import by_offsets, propose
from checkers.linearizability.log_fast import check_log, commit_outcome
from checkers.linearizability.register_fast import chains
from checkers.linearizability.verdict import PartitionResult

State = Hashable
Step = Callable[[Any, Operation], Any]


def _no_partition(op: Operation) -> Hashable:
    return None


def by_key(op: Operation) -> Hashable:
    return op.key


def _describe_op(op: Operation) -> str:
    key = "" if op.key is None else f"{op.key}: "
    out = "?" if op.ret is None else repr(op.output)
    return f"{key}{op.f}({'' if op.input is None else repr(op.input)}) -> {out}"


@frozen(kw_only=True)
class SequentialModel:
    """Porcupine's `Model` as a frozen record.

    - `init`: the initial state of every partition.
    - `step(state, op)`: next state, or None if `op` cannot happen in `state`. Pure.
    - `partition(op)`: the independent sub-history an op belongs to (P-compositionality: the
      history is linearizable iff every part is). One part for all ops when not partitioned.
    - `functions`: the `f` names the model understands (anything else is bad input).
    - `read_only`: `f` names that leave every state unchanged (reads). Their `info` ops are
      dropped (unknown output and no effect constrain nothing), and the search linearizes such
      an op as soon as it fits the state, trying no later place for it: declare only true reads.
    - `compile_op(op)`: optional, a function of the state alone that equals
      `lambda s: step(s, op)`: the search calls it in its inner loop (a test checks they agree).
    - `fast_check(ops, init, key)`: an exact decision procedure for one part that needs no
      search (the log's); the search still runs after a violation, to find evidence.
    - `needs`, `produces`, `reaches`: optional, for pruning by value. `needs(op)` is the one
      state in which an ok op can be linearized (a read: its output; a swapping cas: its
      expected value), None if several. `produces(op)` is the one state `op` turns any other
      state into (a write, a cas), None if that depends on the state (an append) or the op
      changes nothing; for the former, `reaches(op, state)` is False only if `op` can never
      turn another state into `state`. With them, the search abandons a configuration as soon
      as an op that must still be linearized needs a state no op left can produce: on
      unique-value histories most dead ends end there.
    - `effect_needs(op)`: optional, with `needs` and `produces`: the one state in which `op`
      has its effect (a cas: its expected value), None if it has it in every state (a write).
      With it, an info op whose effect no op can use is left out of the search (see
      `wgl._useful_info`): on histories with many timed-out writes of unread values, most.
    - `may_lead(op, target)`: optional, for an op whose result depends on the state (kv's
      append, which must accept every state): False only if no state it leaves can lead to
      `target` (`leads_to`). With it, `refute` finds stale reads without a search, and info
      ops whose effect no op can use leave the search.
    - `leads_to(state, target)`: optional, sharper pruning for models whose ops build on the
      state (kv's append): False only if the ops whose result depends on the state can never
      turn `state` into `target` (appending to "ab" never gives "ac"). Then a needed state is
      also out of reach when the state cannot lead to it and no op left produces one that can.
    - `leading(states)`: optional, with `leads_to`: a lookup `target -> [those of states that
      may lead to target]`, the same answers as asking `leads_to` of each state but without
      asking each one (kv: the target's prefixes of the lengths present). The checks that
      look for the ops able to repair a needed state use it, so they stay near-linear.
    - `witness(ops, init)`: optional, a cheap guess at a linearization of one part (the
      positions in `ops` of all its ops, once each, in order), or None. The checker validates it (real time, and every
      output by `step`) and searches when there is none or it fails: a wrong guess costs time,
      never a verdict (kv's: `kv_fast.propose`, registers': `register_fast.chains`; both
      exact when written values are unique).
    - `quick_witness(ops, init)`: optional, a cheaper guess tried (and checked) before
      `witness` (kv's: `kv_fast.by_offsets`).
    - `replay(state, ops)`: optional, the states after each op of `ops` in turn from `state`,
      or None if `step` refuses one: folding `step`, without a call per op (a test checks
      they agree). Used to check a witness.
    """

    name: str
    init: State
    step: Step
    partition: Callable[[Operation], Hashable] = _no_partition
    describe_op: Callable[[Operation], str] = _describe_op
    describe_state: Callable[[Any], str] = repr
    functions: frozenset[str] = field(default=frozenset())
    read_only: frozenset[str] = field(default=frozenset())
    fast_check: Callable[[Sequence[Operation], Any, Hashable], PartitionResult] | None = None
    compile_op: Callable[[Operation], Callable[[Any], Any]] | None = None
    needs: Callable[[Operation], Any] | None = None
    reaches: Callable[[Operation, Any], bool] | None = None
    produces: Callable[[Operation], Any] | None = None
    leads_to: Callable[[Any, Any], bool] | None = None
    leading: Callable[[Iterable[Any]], Callable[[Any], list[Any]]] | None = None
    effect_needs: Callable[[Operation], Any] | None = None
    may_lead: Callable[[Operation, Any], bool] | None = None
    witness: Callable[[Sequence[Operation], Any], list[int] | None] | None = None
    quick_witness: Callable[[Sequence[Operation], Any], list[int] | None] | None = None
    replay: Callable[[Any, Sequence[Operation]], list[Any] | None] | None = None

    def stepper(self, op: Operation) -> Callable[[Any], Any]:
        """`lambda state: step(state, op)`, or the model's faster equivalent (`compile_op`)."""
        if self.compile_op is not None:
            return self.compile_op(op)
        step = self.step
        return lambda state: step(state, op)


# --- registers -------------------------------------------------------------------------------


def _value_state(state: Any) -> str:
    return repr(state[0])


def _register_step(state: tuple[Any], op: Operation) -> tuple[Any] | None:
    f = op.f
    if f == "read":
        if op.ret is None or op.output == state[0]:
            return state
        return None
    if f == "write":
        return (op.input,)
    return None


def _cas_step(state: tuple[Any], op: Operation) -> tuple[Any] | None:
    f = op.f
    if f == "cas":
        expected, new = op.input
        # A cas with ok output swapped; an info cas swaps iff it is linearized where the value
        # is `expected` (elsewhere it would have returned false: no effect).
        if state[0] == expected:
            return (new,)
        return state if op.ret is None else None
    return _register_step(state, op)


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


def _needs(op: Operation) -> tuple[Any] | None:
    """The state an ok read or ok cas must see (registers and kv)."""
    if op.ret is None:
        return None
    if op.f in ("read", "get"):
        return (op.output,)
    if op.f == "cas":
        return (op.input[0],)
    return None


def _reaches(op: Operation, state: Any) -> bool:
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


def _produces(op: Operation) -> tuple[Any] | None:
    """The state a write or cas leaves, whatever the state before (registers and kv)."""
    if op.f in ("write", "put"):
        return (op.input,)
    if op.f == "cas":
        return (op.input[1],)
    return None


def _kv_may_lead(op: Operation, target: Any) -> bool:
    """Can a state an append leaves lead to `target`? Only if its suffix occurs in it."""
    value = target[0]
    return op.f != "append" or (isinstance(value, str) and isinstance(op.input, str) and op.input in value)


def _effect_needs(op: Operation) -> tuple[Any] | None:
    """The state a cas needs to swap, ok or not (registers and kv); a write swaps in any."""
    if op.f == "cas":
        return (op.input[0],)
    return None


def _kv_leads_to(state: Any, target: Any) -> bool:
    """May appends alone turn `state` into `target`? (kv: only if it is a prefix of it)"""
    current, value = state[0], target[0]
    if not isinstance(value, str):
        return bool(current == value)
    if current is None:
        return True
    return isinstance(current, str) and value.startswith(current)


def _kv_leading(states: Iterable[Any]) -> Callable[[Any], list[Any]]:
    """`_kv_leads_to` as a lookup over `states`: a string target is led to by the null state
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


def _register_replay(state: tuple[Any], ops: Sequence[Operation]) -> list[tuple[Any]] | None:
    """`_register_step` folded over `ops`: the state after each, or None where one is refused."""
    if any(op.f == "cas" for op in ops):
        return None
    return _cas_replay(state, ops)


def _cas_replay(state: tuple[Any], ops: Sequence[Operation]) -> list[tuple[Any]] | None:
    """`_cas_step` folded over `ops`: the state after each, or None where one is refused."""
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


def _compiler(functions: frozenset[str]) -> Callable[[Operation], Callable[[Any], Any]]:
    def compile_op(op: Operation) -> Callable[[Any], Any]:
        make = _COMPILERS.get(op.f) if op.f in functions else None
        return _never if make is None else make(op)

    return compile_op


REGISTER = SequentialModel(
    name="register",
    init=(None,),
    step=_register_step,
    partition=by_key,
    describe_state=_value_state,
    functions=frozenset({"read", "write"}),
    compile_op=_compiler(frozenset({"read", "write"})),
    read_only=frozenset({"read"}),
    needs=_needs,
    produces=_produces,
    reaches=_reaches,
    effect_needs=_effect_needs,
    witness=chains,
    replay=_register_replay,
)
"""A read/write register per key, initially null: read -> value, write(v)."""

CAS_REGISTER = SequentialModel(
    name="cas-register",
    init=(None,),
    step=_cas_step,
    partition=by_key,
    describe_state=_value_state,
    functions=frozenset({"read", "write", "cas"}),
    compile_op=_compiler(frozenset({"read", "write", "cas"})),
    read_only=frozenset({"read"}),
    needs=_needs,
    produces=_produces,
    reaches=_reaches,
    effect_needs=_effect_needs,
    witness=chains,
    replay=_cas_replay,
)
"""A compare-and-set register per key: read, write(v), cas([expected, new]) (ok = swapped)."""


# --- key-value map ---------------------------------------------------------------------------


def _kv_step(state: tuple[Any], op: Operation) -> tuple[Any] | None:
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
        return _cas_step(state, op)
    return None


def _kv_replay(state: tuple[Any], ops: Sequence[Operation]) -> list[tuple[Any]] | None:
    """`_kv_step` folded over `ops`: the state after each, or None where one is refused."""
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
            after = _kv_step(state, op)
            if after is None:
                return None
            state = after
            value = state[0]
        add(state)
    return states


KV = SequentialModel(
    name="kv",
    init=(None,),
    step=_kv_step,
    partition=by_key,
    describe_state=_value_state,
    functions=frozenset({"read", "get", "write", "put", "append", "cas"}),
    compile_op=_compiler(frozenset({"read", "get", "write", "put", "append", "cas"})),
    read_only=frozenset({"read", "get"}),
    needs=_needs,
    produces=_produces,
    reaches=_reaches,
    leads_to=_kv_leads_to,
    leading=_kv_leading,
    effect_needs=_effect_needs,
    may_lead=_kv_may_lead,
    witness=propose,
    quick_witness=by_offsets,
    replay=_kv_replay,
)
"""A map of independent keys, partitioned per key, so a state is one key's value.

get/read -> value, put/write(v), append(s) (string concatenation; null counts as ""), cas."""


# --- the metadata log ------------------------------------------------------------------------


def _log_step(state: int, op: Operation) -> int | None:
    if op.f == "read":
        if op.ret is None or op.output == state:
            return state
        return None
    if op.f == "commit":
        kind, epoch = commit_outcome(op.output)
        if kind == "unknown":
            # Took effect (it got the next epoch); "rejected" or "never" is linearizing it last.
            return state + 1
        if kind == "committed":
            return epoch if epoch == state + 1 else None
        return state if epoch is None or epoch == state else None
    return None


def _epoch_state(state: int) -> str:
    return f"epoch {state}"


def _log_fast(ops: Sequence[Operation], init: Any, key: Hashable) -> PartitionResult:
    return check_log(ops, init=init, key=key)


LOG = SequentialModel(
    name="log",
    init=0,
    step=_log_step,
    describe_state=_epoch_state,
    functions=frozenset({"commit", "read"}),
    read_only=frozenset({"read"}),
    fast_check=_log_fast,
)
"""The metadata log: commit(transformation) -> the next epoch or a rejection; read -> the epoch.

Every commit is conditional on the epoch before it, so the log is one register of epochs whose
only write is "+1": `checkers.linearizability.log_fast` decides it without a search."""


MODELS: dict[str, SequentialModel] = {m.name: m for m in (REGISTER, CAS_REGISTER, KV, LOG)}


def with_initial(model: SequentialModel, value: Any) -> SequentialModel:
    """The same model starting from another value (registers and kv: the value of every key)."""
    if model.name == "log":
        return evolve(model, init=int(value))
    return evolve(model, init=(value,))
