"""What a sequential model is: `SequentialModel` (its semantics, all a new model must give) and
`Tactics` (how to decide it fast: never needed for a right verdict).

Porcupine's `Model` is a record of plain functions (`Init`, `Step`, `Equal`, `Partition`,
`Describe*`); ours is the same, frozen. A state is any hashable value: the search memoizes
(linearized set, state) pairs in a hash table, so the states' own `==` and `hash` are the
model's equality (Porcupine's `Equal`, with its optional `Hash`): a model whose states have
several spellings gives one canonical spelling (a multiset as a sorted tuple of counts), and a
state is never mutated. `step(state, op)` returns the next state, or None when the operation's
output is impossible in `state` (Knossos' `inconsistent`); hence no model uses None as a state.

An `info` operation (`op.ret is None`, `op.output is None`) has an unknown outcome: `step` must
accept it in every state where it could have taken effect, with the effect it would have had
(or one whose later constraints are no stronger: see the queues in `knossos_models.py`). The
search also lets it never take effect.

Everything in `Tactics` only makes a check faster; each field claims something of `step` (a read
changes nothing; this op can only be linearized in that state), and tests check every claim
against `step` for the models that make it. A model with `NO_TACTICS` gets every verdict right:
the plain search (and the compiled one) decide it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal

from attrs import field, frozen

from checkers.linearizability.history import Operation
from checkers.linearizability.units import Conflict
from checkers.linearizability.verdict import PartitionResult

State = Hashable
Step = Callable[[Any, Operation], Any]


def no_partition(op: Operation) -> Hashable:
    """One part for the whole history (a model that is not P-compositional)."""
    return None


def by_key(op: Operation) -> Hashable:
    """One part per key: keys are independent objects (Jepsen's `independent`)."""
    return op.key


def generic_describe_op(op: Operation) -> str:
    """An op in words: `key: f(input) -> output` (`?` for an unknown outcome)."""
    key = "" if op.key is None else f"{op.key}: "
    out = "?" if op.ret is None else repr(op.output)
    return f"{key}{op.f}({'' if op.input is None else repr(op.input)}) -> {out}"


@frozen(kw_only=True)
class Malformed:
    """Why an op is not one its model can step (bad input, named by the CLI with its line):
    `at` is the event that shows it, the invocation ("call": its input) or the completion
    ("return": its output)."""

    at: Literal["call", "return"]
    reason: str


def well_formed(op: Operation) -> Malformed | None:
    return None


@frozen(kw_only=True)
class Tactics:
    """How to decide a model fast; `NO_TACTICS` (every field empty) is always right.

    - `read_only`: `f` names that leave every state unchanged (reads). Their `info` ops are
      dropped (unknown output and no effect constrain nothing), and the search linearizes such
      an op as soon as it fits the state, trying no later place for it: declare only true reads.
    - `fast_check(ops, init, key)`: an exact decision procedure for one part that needs no
      search (the log's); the search still runs after a violation, to find evidence.
    - `compile_op(op)`: a function of the state alone that equals `lambda s: step(s, op)`: the
      search calls it in its inner loop (a test checks they agree).
    - `step_kinds`: with `compile_op = values.compiler(functions)`: `{f: code}`
      (`values.step_kinds(functions)`), so the compiled search (compiled.py) steps those ops
      by the same rules itself instead of calling each op's compiled step (a test checks
      they agree).
    - `needs`, `produces`, `reaches`: for pruning by value. `needs(op)` is the one state in
      which an ok op can be linearized (a read: its output; a swapping cas: its expected
      value), None if several. `produces(op)` is the one state `op` turns any other state into
      (a write, a cas), None if that depends on the state (an append) or the op changes
      nothing; for the former, `reaches(op, state)` is False only if `op` can never turn
      another state into `state`. With them, the search abandons a configuration as soon as an
      op that must still be linearized needs a state no op left can produce: on unique-value
      histories most dead ends end there.
    - `effect_needs(op)`: with `needs` and `produces`: the one state in which `op` has its
      effect (a cas: its expected value), None if it has it in every state (a write). With it,
      an info op whose effect no op can use is left out of the search (see
      `reductions.useful_info`): on histories with many timed-out writes of unread values, most.
    - `may_lead(op, target)`: for an op whose result depends on the state (kv's append, which
      must accept every state): False only if no state it leaves can lead to `target`
      (`leads_to`). With it, `refute` finds stale reads without a search, and info ops whose
      effect no op can use leave the search.
    - `leads_to(state, target)`: sharper pruning for models whose ops build on the state (kv's
      append): False only if the ops whose result depends on the state can never turn `state`
      into `target` (appending to "ab" never gives "ac"). Then a needed state is also out of
      reach when the state cannot lead to it and no op left produces one that can.
    - `leading(states)`: with `leads_to`: a lookup `target -> [those of states that may lead to
      target]`, the same answers as asking `leads_to` of each state but without asking each one
      (kv: the target's prefixes of the lengths present). The checks that look for the ops able
      to repair a needed state use it, so they stay near-linear.
    - `builds(start, target, ops)`: with `may_lead`: False only if no order of some of `ops`
      (ops whose result depends on the state) turns `start` into `target` (kv: the rest of the
      target is no concatenation of their suffixes). With it, a long search asks `refute`
      whether a stale read's repair could be completed at all.
    - `witness(ops, init)`: a cheap guess at a linearization of one part (the positions in
      `ops` of all its ops, once each, in order), or None. The checker validates it (real time,
      and every output by `step`) and searches when there is none or it fails: a wrong guess
      costs time, never a verdict (kv's: `kv_fast.propose`, registers':
      `register_fast.chains`; both exact when written values are unique). It may instead
      return a `units.Conflict`, ops its reading of the values shows cannot be linearized
      together: searched alone, and taken only if they fail (registers':
      `register_fast.chains_or_conflict`).
    - `quick_witness(ops, init)`: a cheaper guess tried (and checked) before `witness` (kv's:
      `kv_fast.by_offsets`).
    - `replay(state, ops)`: the states after each op of `ops` in turn from `state`, or None if
      `step` refuses one: folding `step`, without a call per op (a test checks they agree).
      Used to check a witness.
    """

    read_only: frozenset[str] = field(default=frozenset())
    fast_check: Callable[[Sequence[Operation], Any, Hashable], PartitionResult] | None = None
    compile_op: Callable[[Operation], Callable[[Any], Any]] | None = None
    step_kinds: Mapping[str, int] | None = None
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


NO_TACTICS = Tactics()
"""No tactics: the search (plain, and compiled when built) decides every part."""


@frozen(kw_only=True)
class SequentialModel:
    """Porcupine's `Model` as a frozen record: a model's semantics, and nothing else.

    - `name`: what `--model` calls it.
    - `init`: the initial state of every part.
    - `step(state, op)`: next state, or None if `op` cannot happen in `state`. Pure. Equality
      of states is theirs (`==`, `hash`): see the module doc.
    - `partition(op)`: the independent sub-history an op belongs to (P-compositionality: the
      history is linearizable iff every part is); `no_partition` when the model has none.
    - `describe_op`, `describe_state`: words for an op and a state (explanations, the page).
    - `functions`: the `f` names the model understands (anything else is bad input).
    - `malformed(op)`: why an op of a known `f` is still not one `step` can take (a cas whose
      input is not `[expected, new]`), or None. Checked once before the search, so `step`
      never meets such an op.
    - `tactics`: how to decide it fast (`Tactics`); the default, `NO_TACTICS`, is always right.
    """

    name: str
    init: State
    step: Step
    partition: Callable[[Operation], Hashable] = no_partition
    describe_op: Callable[[Operation], str] = generic_describe_op
    describe_state: Callable[[Any], str] = repr
    functions: frozenset[str] = field(default=frozenset())
    malformed: Callable[[Operation], Malformed | None] = well_formed
    tactics: Tactics = NO_TACTICS


def stepper(model: SequentialModel, op: Operation) -> Callable[[Any], Any]:
    """`lambda state: step(state, op)`, or the model's faster equivalent (`compile_op`)."""
    compile_op = model.tactics.compile_op
    if compile_op is not None:
        return compile_op(op)
    step = model.step
    return lambda state: step(state, op)
