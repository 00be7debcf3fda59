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

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from attrs import evolve, field, frozen

from checkers.linearizability.history import Operation
from checkers.linearizability.kv_fast import propose
from checkers.linearizability.kv_offsets import by_offsets
from checkers.linearizability.log_fast import check_log, commit_outcome
from checkers.linearizability.register_fast import chains_or_conflict
from checkers.linearizability.units import Conflict
from checkers.linearizability.values import (
    cas_replay,
    cas_step,
    compiler,
    effect_needs,
    kv_builds,
    kv_leading,
    kv_leads_to,
    kv_may_lead,
    kv_replay,
    kv_step,
    needs,
    produces,
    reaches,
    register_replay,
    register_step,
    step_kinds,
    value_state,
)
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
      `reductions.useful_info`): on histories with many timed-out writes of unread values, most.
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
    - `builds(start, target, ops)`: optional, with `may_lead`: False only if no order of
      some of `ops` (ops whose result depends on the state) turns `start` into `target` (kv:
      the rest of the target is no concatenation of their suffixes). With it, a long search
      asks `refute` whether a stale read's repair could be completed at all.
    - `witness(ops, init)`: optional, a cheap guess at a linearization of one part (the
      positions in `ops` of all its ops, once each, in order), or None. The checker validates it (real time, and every
      output by `step`) and searches when there is none or it fails: a wrong guess costs time,
      never a verdict (kv's: `kv_fast.propose`, registers': `register_fast.chains`; both
      exact when written values are unique). It may instead return a `units.Conflict`, ops
      its reading of the values shows cannot be linearized together: searched alone, and
      taken only if they fail (registers': `register_fast.chains_or_conflict`).
    - `quick_witness(ops, init)`: optional, a cheaper guess tried (and checked) before
      `witness` (kv's: `kv_fast.by_offsets`).
    - `step_kinds`: optional, with `compile_op = values.compiler(functions)`: `{f: code}`
      (`values.step_kinds(functions)`), so the compiled search (compiled.py) steps those ops
      by the same rules itself instead of calling each op's compiled step (a test checks
      they agree).
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
    builds: Callable[[Any, Any, Sequence[Operation]], bool] | None = None
    witness: Callable[[Sequence[Operation], Any], list[int] | Conflict | None] | None = None
    quick_witness: Callable[[Sequence[Operation], Any], list[int] | None] | None = None
    replay: Callable[[Any, Sequence[Operation]], list[Any] | None] | None = None
    step_kinds: Mapping[str, int] | None = None

    def stepper(self, op: Operation) -> Callable[[Any], Any]:
        """`lambda state: step(state, op)`, or the model's faster equivalent (`compile_op`)."""
        if self.compile_op is not None:
            return self.compile_op(op)
        step = self.step
        return lambda state: step(state, op)


# --- registers -------------------------------------------------------------------------------



REGISTER = SequentialModel(
    name="register",
    init=(None,),
    step=register_step,
    partition=by_key,
    describe_state=value_state,
    functions=frozenset({"read", "write"}),
    compile_op=compiler(frozenset({"read", "write"})),
    step_kinds=step_kinds(frozenset({"read", "write"})),
    read_only=frozenset({"read"}),
    needs=needs,
    produces=produces,
    reaches=reaches,
    effect_needs=effect_needs,
    witness=chains_or_conflict,
    replay=register_replay,
)
"""A read/write register per key, initially null: read -> value, write(v)."""

CAS_REGISTER = SequentialModel(
    name="cas-register",
    init=(None,),
    step=cas_step,
    partition=by_key,
    describe_state=value_state,
    functions=frozenset({"read", "write", "cas"}),
    compile_op=compiler(frozenset({"read", "write", "cas"})),
    step_kinds=step_kinds(frozenset({"read", "write", "cas"})),
    read_only=frozenset({"read"}),
    needs=needs,
    produces=produces,
    reaches=reaches,
    effect_needs=effect_needs,
    witness=chains_or_conflict,
    replay=cas_replay,
)
"""A compare-and-set register per key: read, write(v), cas([expected, new]) (ok = swapped)."""


# --- key-value map ---------------------------------------------------------------------------


KV = SequentialModel(
    name="kv",
    init=(None,),
    step=kv_step,
    partition=by_key,
    describe_state=value_state,
    functions=frozenset({"read", "get", "write", "put", "append", "cas"}),
    compile_op=compiler(frozenset({"read", "get", "write", "put", "append", "cas"})),
    step_kinds=step_kinds(frozenset({"read", "get", "write", "put", "append", "cas"})),
    read_only=frozenset({"read", "get"}),
    needs=needs,
    produces=produces,
    reaches=reaches,
    leads_to=kv_leads_to,
    leading=kv_leading,
    effect_needs=effect_needs,
    may_lead=kv_may_lead,
    builds=kv_builds,
    witness=propose,
    quick_witness=by_offsets,
    replay=kv_replay,
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

