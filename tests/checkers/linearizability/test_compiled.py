"""The compiled search (compiled.py, cwgl.c): built, exact, and never what decides a verdict."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from checkers.linearizability import MODELS, check, pair
from checkers.linearizability import compiled as compiled_module
from checkers.linearizability.compiled import PURE_PYTHON, compiled, pure_python, straight_through
from checkers.linearizability.history import Operation
from checkers.linearizability.model import SequentialModel
from checkers.linearizability.parts import partition
from checkers.linearizability.search import search
from checkers.linearizability.sequential import stepper
from tests.checkers.linearizability.brute import brute_force_operations
from tests.checkers.linearizability.strategies import histories

needs_compiled = pytest.mark.skipif(not compiled(), reason="the compiled search is not built")


REQUIRE = "TCMCHECK_REQUIRE_COMPILED"
"""Set (to 1) where the compiled search must be there: CI's default leg and its sanitizer leg
(.ci/run). The extension is optional at install, so the default test run passes without it."""


@pytest.mark.skipif(os.environ.get(REQUIRE, "") in ("", "0"),
                    reason=f"{REQUIRE} is not set: the compiled search is optional (.ci/run sets it)")
def test_the_compiled_search_is_built() -> None:
    """Without it every verdict is the same, but checking histories of many ops with few in
    flight at once is several times slower (docs/check-history.md)."""
    assert not pure_python(), f"{PURE_PYTHON} is set: the compiled search is switched off"
    assert compiled(), (
        "checkers/linearizability/cwgl.c was not compiled: install with a C compiler and the "
        "Python headers (`pip install -e .` again, or `python -m pip install --force-reinstall -e .`)"
    )


def _raw(model: SequentialModel, ops: tuple[Operation, ...], *, native: bool, init: Any = None,
         budget: int = 10**7, max_overlap: float = math.inf) -> tuple[list[int] | None, int, Any]:
    """The compiled search's own answer, unchecked: (order, steps, refutation)."""
    wgl = compiled_module.cwgl
    assert wgl is not None
    rets: list[Any] = [o.ret for o in ops]
    by_ret = sorted([i for i, r in enumerate(rets) if r is not None], key=rets.__getitem__)
    start = model.init if init is None else init
    if native:
        assert model.tactics.step_kinds is not None
        return wgl.first_linearization(ops, by_ret, start, budget, max_overlap, dict(model.tactics.step_kinds), None, None)
    return wgl.first_linearization(ops, by_ret, start, budget, max_overlap, None,
                                                  [stepper(model, o) for o in ops], [o.f in model.tactics.read_only for o in ops])


def _is_linearization(model: SequentialModel, ops: tuple[Operation, ...], order: list[int]) -> bool:
    """Every ok op once, info ops at most once; no op before one that returned before its
    call; the model accepts each in turn (the info ops left out: never took effect)."""
    if len(set(order)) != len(order) or any(ops[p].ret is not None for p in set(range(len(ops))) - set(order)):
        return False
    placed = [ops[p] for p in order]
    for k, o in enumerate(placed):
        if any(later.ret is not None and later.ret < o.call for later in placed[k + 1:]):
            return False
    state = model.init
    for o in placed:
        state = model.step(state, o)
        if state is None:
            return False
    return True


@needs_compiled
@settings(max_examples=300)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=9, processes=4))), st.booleans())
def test_it_finds_a_linearization_exactly_when_there_is_one(case: tuple[str, tuple], native: bool) -> None:
    """Against brute force, part by part, with the model's rules done in C (`step_kinds`) and
    with the model's compiled steps called: an order when and only when one exists, and a
    real one (checked here from scratch, not by the `witnessed` that guards it in use)."""
    name, history = case
    model = MODELS[name]
    for _, ops in partition(model, pair(history)):
        expected = brute_force_operations(model, ops)
        order, _, refuted = _raw(model, ops, native=native)
        note(f"brute force: {expected}, compiled: {order}, refuted: {refuted}")
        assert (order is not None) is expected
        assert (refuted is None) is expected  # (never at its memo's cap here)
        if order is not None:
            assert _is_linearization(model, ops, order)
        else:
            _assert_deepest(model, ops, refuted)


@needs_compiled
@settings(max_examples=200)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=9, processes=4))),
    st.sampled_from(("float", "huge", "namespace")), st.booleans())
def test_times_read_as_objects_give_what_ints_give(case: tuple[str, tuple], times: str, given_by_ret: bool) -> None:
    """cwgl reads an `Operation`'s call and return as C integers; times it cannot read so
    (floats, ints past 64 bits, ops of another type, read by getattr) are compared as Python
    objects, and the search answers the same, by return order given or found in C."""
    import types

    name, history = case
    model = MODELS[name]
    wgl = compiled_module.cwgl
    assert wgl is not None
    kinds = dict(model.tactics.step_kinds)
    for _, ops in partition(model, pair(history)):
        if times == "namespace":
            other = tuple(types.SimpleNamespace(**{f: getattr(o, f) for f in ("f", "input", "output", "call", "ret")})
                          for o in ops)
        else:
            def moved(t: Any) -> Any:
                return None if t is None else float(t) if times == "float" else t + 2**70
            other = tuple(Operation(id=o.id, process=o.process, f=o.f, key=o.key, input=o.input, output=o.output,
                                    call=moved(o.call), ret=moved(o.ret)) for o in ops)
        rets: list[Any] = [o.ret for o in ops]
        by_ret = sorted([i for i, r in enumerate(rets) if r is not None], key=rets.__getitem__) if given_by_ret else None
        expected = wgl.first_linearization(ops, by_ret, model.init, 10**6, math.inf, kinds, None, None)
        try:
            got = wgl.first_linearization(other, by_ret, model.init, 10**6, math.inf, kinds, None, None)
        except TypeError:  # (returns found in C only when they are 64-bit ints: else the caller sorts them)
            assert by_ret is None and times in ("float", "huge")
            continue
        assert got == expected


def _assert_deepest(model: SequentialModel, ops: tuple[Operation, ...], refuted: tuple[list[int], int, int]) -> None:
    """What the compiled search shows a part not linearizable by, as the Python search's
    `Deepest` keeps it: a partial linearization closed under real time (every op that returned
    before one of its ops was called is in it), which the op that cannot follow does not
    extend; and the furthest return a configuration failed at is no earlier than that op's."""
    prefix, fail, far = refuted
    placed = [ops[p] for p in prefix]
    assert len(set(prefix)) == len(prefix)
    for k, o in enumerate(placed):
        assert not any(later.ret is not None and later.ret < o.call for later in placed[k + 1:])
    latest = max((o.call for o in placed), default=-1)
    assert all(p in prefix for p, o in enumerate(ops) if o.ret is not None and o.ret < latest)
    state = model.init
    for o in placed:
        state = model.step(state, o)
        assert state is not None
    failing = ops[fail]
    assert fail not in prefix and failing.ret is not None
    assert far >= 0 and ops[far].ret is not None and ops[far].ret >= failing.ret


def _assert_refutation(model: SequentialModel, ops: tuple[Operation, ...], result: Any) -> None:
    """A part's refutation has the Python search's evidence: the failing op an ok op not in the
    prefix, `stuck_at` no earlier than its return, and the prefix's states the model's."""
    by_id = {o.id: o for o in ops}
    failing = by_id[result.failing]
    assert failing.ret is not None and result.failing not in result.linearization
    assert result.stuck_at is not None and result.stuck_at >= failing.ret
    state = model.init
    for op_id, after in zip(result.linearization, result.states, strict=True):
        state = model.step(state, by_id[op_id])
        assert state == after


VALUES = st.sampled_from((None, 0, 1, "", "x", "xy", "y"))


@needs_compiled
@settings(max_examples=300)
@given(model_name=st.sampled_from(("register", "cas-register", "kv")),
       f=st.sampled_from(("read", "get", "write", "put", "cas", "append", "frob")),
       value=VALUES, other=VALUES, ok=st.booleans(), state=VALUES)
def test_its_steps_are_the_models(model_name: str, f: str, value: Any, other: Any, ok: bool, state: Any) -> None:
    """The register and kv rules done in C accept an op in a state exactly when the model's
    compiled step does: an ok op alone, from that state; an info op followed by a read of
    what the model says it leaves (taken where it changes the state, else left out)."""
    model = MODELS[model_name]
    if f == "append":
        value = value if isinstance(value, str) else "z"
        state = state if state is None or isinstance(state, str) else "s"
    op_input = (value, other) if f == "cas" else (None if f in ("read", "get") else value)
    output = value if f in ("read", "get") and ok else None
    op = Operation(id=0, process=0, f=f, key=None, input=op_input, output=output, call=0, ret=1 if ok else None)
    after = stepper(model, op)((state,))
    if ok:
        order, _, _ = _raw(model, (op,), native=True, init=(state,))
        assert (order == [0]) is (after is not None)
        return
    effect = after is not None and after != (state,)
    read = Operation(id=1, process=1, f="read", key=None, input=None,
                     output=after[0] if effect else state, call=2, ret=3)
    order, _, _ = _raw(model, (op, read), native=True, init=(state,))
    assert order == ([0, 1] if effect else [1])


def _concurrent_writes(n: int) -> tuple[Operation, ...]:
    """n writes of one register all in flight at once, then a read of the first."""
    ops = [Operation(id=i, process=i, f="write", key="k", input=i, output=None, call=i, ret=n + i) for i in range(n)]
    ops.append(Operation(id=n, process=n, f="read", key="k", input=None, output=0, call=2 * n, ret=2 * n + 1))
    return tuple(ops)


@needs_compiled
def test_it_is_not_asked_where_many_ops_are_in_flight_and_gives_up_at_its_budget() -> None:
    model = MODELS["register"]
    ops = _concurrent_writes(8)  # 3.5 others in flight at a write's call, on average
    assert _raw(model, ops, native=True, max_overlap=2.0) == (None, 0, None)
    assert straight_through(model, "k", ops) is None
    order, steps, refuted = _raw(model, ops, native=True, budget=5)
    assert order is None and steps == 5 and refuted is None
    shown = straight_through(model, "k", ops, budget=10**6, max_overlap=math.inf)
    assert shown is not None and shown.valid is True
    assert shown.linearization[-2:] == (0, 8)  # the write read last, then the read


@needs_compiled
def test_an_error_in_a_step_is_raised_not_swallowed() -> None:
    def boom(op: Operation) -> Any:
        def step(state: Any) -> Any:
            raise ValueError("a step failed")
        return step

    from attrs import evolve

    model = evolve(MODELS["register"], tactics=evolve(MODELS["register"].tactics, compile_op=boom, step_kinds=None))
    with pytest.raises(ValueError, match="a step failed"):
        straight_through(model, "k", _concurrent_writes(3))


@settings(max_examples=100)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=40, processes=3))))
def test_the_verdict_does_not_depend_on_it(case: tuple[str, tuple]) -> None:
    """The same verdict with the compiled search as without it (asked of parts of at least
    `WITNESS_FROM` ops: these histories have some)."""
    name, history = case
    model = MODELS[name]
    with_it = check(model, history, minimize=False)
    saved = compiled_module.cwgl
    compiled_module.cwgl = None
    try:
        without = check(model, history, minimize=False)
    finally:
        compiled_module.cwgl = saved
    assert with_it.valid == without.valid


def _imported_with(env: dict[str, str]) -> str:
    """What `python -X importtime` says a check-history run imports, with `env` added."""
    code = "import campaign.commands.check_history"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, check=True)
    return done.stderr


def test_the_pure_python_switch_keeps_the_compiled_search_out_not_even_imported() -> None:
    """`TCMCHECK_PURE_PYTHON=1`: the C module is not imported at all (a suspected fault in it
    cannot come into play), and every part is decided in Python."""
    assert "checkers.linearizability.cwgl" not in _imported_with({PURE_PYTHON: "1"})
    if compiled():  # (built here: the switch is what keeps it out)
        assert "checkers.linearizability.cwgl" in _imported_with({PURE_PYTHON: "0"})


@needs_compiled
@settings(max_examples=300)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=9, processes=4))), st.integers(1, 7))
def test_run_in_slices_it_finds_a_linearization_exactly_when_there_is_one(case: tuple[str, tuple], steps: int) -> None:
    """`Alongside` (the compiled search beside the Python one, a few steps at a time, its
    states interned): a checked linearization when and only when brute force finds one; else
    the part shown not linearizable, with the Python search's kind of evidence (the longest
    partial linearization and its states, the op that cannot follow it, where the shrinking
    starts)."""
    name, history = case
    model = MODELS[name]
    for key, ops in partition(model, pair(history)):
        beside = compiled_module.alongside(model, key, ops)
        assert beside is not None
        result = None
        while result is None and not beside.out:
            result = beside.advance(steps)
        assert result is not None  # (never at its memo's cap here)
        assert result.valid is brute_force_operations(model, ops)
        if result.valid:
            assert sorted(result.linearization) == sorted(o.id for o in ops)
            continue
        _assert_refutation(model, ops, result)


_BURN = [("write", 11, None, 0, 5), ("write", 12, None, 0, 5), ("write", 13, None, 0, 5), ("read", None, 11, 6, 7)]
"""Three writes at once and a read of the first: the search backtracks over them for more steps
than the part has ops, so what comes after is searched with pruning by value on."""


@needs_compiled
@pytest.mark.parametrize(("name", "rows"), [
    # the read of 2 is tried where the state is 3 and the write of 2, called last before the
    # read returns, is still left: not a dead end
    ("cas-register", [*_BURN, ("write", 1, None, 8, 9), ("read", None, 2, 10, 30), ("write", 3, None, 12, 25),
                      ("write", 2, None, 20, 40)]),
    # the get of "ab" is tried where the value is "z" (no prefix of it), the put of "ab" taken
    # already: the put of "a", called last before the get returns, a prefix, and the append of
    # "b" can still make "ab"; and where it is "a", with the append left
    ("kv", [("put", "p", None, 0, 5), ("put", "q", None, 0, 5), ("put", "r", None, 0, 5), ("get", None, "p", 6, 7),
            ("put", "ab", None, 8, 9), ("put", "z", None, 10, 11), ("get", None, "ab", 12, 30),
            ("append", "b", None, 16, 41), ("put", "a", None, 18, 40)]),
])
def test_pruning_by_value_leaves_every_way_a_value_can_come_back(name: str, rows: list[tuple[Any, ...]]) -> None:
    """A configuration is failed by value (cwgl.c, `st_dead`) only when no op left, called
    before the read returns, can bring its value back: here one can, the last one called
    (or its prefix can, and an append finish it), and the part is linearizable."""
    model = MODELS[name]
    ops = tuple(Operation(id=k, process=k, f=f, key=None, input=x, output=y, call=c, ret=r)
                for k, (f, x, y, c, r) in enumerate(rows))
    beside = compiled_module.alongside(model, None, ops)
    assert beside is not None
    result = beside.advance(10**6)
    assert beside.search.pruned > 0  # (what the example is for)
    assert result is not None and result.valid is True
    assert search(model, ops).valid is True


@needs_compiled
@settings(max_examples=300)
@given(st.sampled_from(("cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=18, processes=5, keys=("a",)))))
def test_pruning_by_value_keeps_every_verdict(case: tuple[str, tuple]) -> None:
    """Parts long enough, and with enough in flight, that the compiled search backtracks past
    as many steps as they have ops, where it prunes configurations by value (cwgl.c,
    `st_dead`: a read or cas that can never see its value again): its verdict is the Python
    search's (itself held to brute force: test_against_brute_force.py), and a refutation keeps
    its evidence's shape. (kv on one key: puts and appends of one-character values, whose
    states are prefixes of one another, where the pruning walks a value's prefixes.)"""
    name, history = case
    model = MODELS[name]
    for key, ops in partition(model, pair(history)):
        beside = compiled_module.alongside(model, key, ops)
        assert beside is not None
        result = beside.advance(10**7)
        assert result is not None  # (never at its memo's cap here)
        expected = search(model, ops, key=key)
        note(f"{len(ops)} ops, {beside.search.taken} compiled steps")
        assert result.valid is expected.valid
        if result.valid is False:
            _assert_refutation(model, ops, result)


@needs_compiled
@pytest.mark.parametrize("values", [
    (1, True, 1.0, 2),  # one value to ==, so one number
    (float("nan"), 0, 1, 2),  # not equal to itself: the states stay objects
    ((1, 2), (1, 2.0), (1, 3), None),  # (values come frozen from `pair`: hashable)
    ("ab", "a", "ab", "abc"),
])
def test_interned_or_not_the_register_answers_as_python_compares(values: tuple[Any, ...]) -> None:
    """A write of values[0], reads of values[1] and values[2] after it, and a cas from values[3]
    to it: interned where every value is hashable and equal to itself, compared by == either
    way, so the answer is the model's (brute force)."""
    a, b, c, d = values
    ops = (Operation(id=0, process=0, f="write", key=None, input=a, output=None, call=0, ret=1),
           Operation(id=1, process=1, f="read", key=None, input=None, output=b, call=2, ret=3),
           Operation(id=2, process=2, f="cas", key=None, input=(d, a), output=None, call=2, ret=5),
           Operation(id=3, process=3, f="read", key=None, input=None, output=c, call=6, ret=7))
    model = MODELS["cas-register"]
    beside = compiled_module.alongside(model, None, ops)
    assert beside is not None
    result = beside.advance(10**6)
    assert result is not None and result.valid is brute_force_operations(model, ops)


@needs_compiled
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=30, processes=4))))
def test_the_search_beside_the_python_one_decides_nothing_else(case: tuple[str, tuple]) -> None:
    """With slices of one Python iteration and a few compiled steps, the compiled search runs
    beside every part's Python search from its first slice on (wgl._Rounds) and often decides
    it first: the verdicts are those without it."""
    from checkers.linearizability import wgl

    name, history = case
    model = MODELS[name]
    saved = wgl.SLICE, compiled_module.ALONGSIDE_SLICE
    wgl.SLICE, compiled_module.ALONGSIDE_SLICE = 1, 3
    try:
        sliced = check(model, history, minimize=False)
    finally:
        wgl.SLICE, compiled_module.ALONGSIDE_SLICE = saved
    saved_module = compiled_module.cwgl
    compiled_module.cwgl = None
    try:
        without = check(model, history, minimize=False)
    finally:
        compiled_module.cwgl = saved_module
    assert sliced.valid == without.valid


@needs_compiled
@pytest.mark.parametrize("native", [True, False])
def test_an_alike_op_is_held_back_only_while_its_twin_may_come_next(native: bool) -> None:
    """Two writes of 1 (alike: the one that returns first is tried first, `set_twins`); the
    earlier-returning one is called only after a read of 1 returned, so the other must be
    linearized before it: skipping it for its twin there would miss the only order."""
    ops = (Operation(id=0, process=0, f="write", key=None, input=1, output=None, call=0, ret=20),
           Operation(id=1, process=1, f="read", key=None, input=None, output=1, call=1, ret=3),
           Operation(id=2, process=2, f="write", key=None, input=1, output=None, call=4, ret=10))
    model = MODELS["register"]
    order, _, _ = _raw(model, ops, native=native)
    assert order == [0, 1, 2]  # (no twins given: the plain search; with them, below)
    rets = [o.ret for o in ops]
    by_ret = sorted(range(3), key=rets.__getitem__)
    twins = compiled_module.ok_twins(ops, by_ret, model.tactics.read_only)
    assert twins == [2, -1, -1]
    wgl = compiled_module.cwgl
    assert wgl is not None
    kinds = dict(model.tactics.step_kinds) if native and model.tactics.step_kinds is not None else None
    steps = None if kinds is not None else [stepper(model, o) for o in ops]
    forced = None if kinds is not None else [o.f in model.tactics.read_only for o in ops]
    order, _, _ = wgl.first_linearization(ops, by_ret, model.init, 100, math.inf, kinds, steps, forced, twins)
    assert order == [0, 1, 2]
    beside = compiled_module.alongside(model, None, ops)
    assert beside is not None and beside.advance(100) is not None


@needs_compiled
@settings(max_examples=400)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 6), st.booleans()), max_size=8),
       st.lists(st.integers(-1, 9), max_size=10), st.sampled_from(("int", "float", "huge", "namespace")),
       st.randoms(use_true_random=False))
def test_its_line_of_an_order_is_the_python_one(spans: list[tuple[int, int, bool]], order: list[int],
                                                times: str, rng: Any) -> None:
    """`cwgl.lined_up`, which checks an order's positions and real time apart from the search
    (for `witnessed` and the compiled search's orders), gives what `lined_up_in_python` gives:
    positions repeated or out of range, any order of ops some of unknown outcome, and times that
    are not 64-bit ints or ops of another type (compared as objects)."""
    import types

    from checkers.linearizability.witness import lined_up_in_python

    def at(t: int) -> Any:
        return float(t) if times == "float" else t + 2**70 if times == "huge" else t

    ops: tuple[Any, ...] = tuple(
        Operation(id=100 + k, process=k, f="write", key=None, input=k, output=None, call=at(c),
                  ret=None if info else at(c + d))
        for k, (c, d, info) in enumerate(spans))
    if times == "namespace":
        ops = tuple(types.SimpleNamespace(id=o.id, call=o.call, ret=o.ret) for o in ops)
    wgl = compiled_module.cwgl
    assert wgl is not None
    assert wgl.lined_up(ops, order) == lined_up_in_python(ops, order)
    every = list(range(len(ops)))  # (and every op once, in any order: most of them a real-time question)
    rng.shuffle(every)
    assert wgl.lined_up(ops, every) == lined_up_in_python(ops, every)


def _writes_then_a_lost_value(n: int) -> tuple[Operation, ...]:
    """n writes of one register all in flight at once, then a read of a value none wrote: not
    linearizable, and a search with no pruning by value (`NO_TACTICS`) tries every subset of
    the writes, each with every write of it last, n * 2**(n-1) failed configurations."""
    return (*_concurrent_writes(n)[:-1],
            Operation(id=n, process=n, f="read", key="k", input=None, output=-1, call=2 * n, ret=2 * n + 1))


def _plain_register() -> SequentialModel:
    import attrs

    from checkers.linearizability.sequential import NO_TACTICS

    return attrs.evolve(MODELS["register"], tactics=NO_TACTICS)


@needs_compiled
def test_beside_the_python_search_its_memo_keeps_to_half_the_checks_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """`max_cache` (`--max-states`) bounds the whole check: the compiled search beside the
    Python one holds at most half of it (`compiled.memo_caps`), so the Python search always has
    the other half; and within its half it decides a part whose memo is past a fixed cap's."""
    from checkers.linearizability import check_operations

    model, ops = _plain_register(), _writes_then_a_lost_value(14)  # 14 * 2**13 = 114,688 to try
    peak: list[int] = []
    advance = compiled_module.Alongside.advance

    def watched(self: compiled_module.Alongside, steps: int | None = None) -> Any:
        decided = advance(self, steps)
        peak.append(self.memo)
        return decided

    monkeypatch.setattr(compiled_module.Alongside, "advance", watched)
    bounded = check_operations(model, ops, max_cache=20_000, minimize=False)
    assert bounded.valid == "unknown" and bounded.cause == "cache-limit"
    assert peak and max(peak) <= 10_000
    peak.clear()
    decided = check_operations(model, ops, max_cache=400_000, minimize=False)
    assert decided.valid is False
    assert max(peak) == 14 * 2**13  # (decided beside the Python search, every configuration tried)
    # on a part with an info op (here one the Python search leaves out: no op observes it,
    # called after every ok op returned) the compiled search keeps its own cap of 128 MiB, as
    # before: the Python search may need far fewer configurations there
    late = Operation(id=99, process=99, f="write", key="k", input=7, output=None, call=100, ret=None)
    peak.clear()
    bounded = check_operations(model, (*ops, late), max_cache=20_000, minimize=False)
    assert bounded.valid == "unknown" and bounded.cause == "cache-limit"
    assert max(peak) > 10_000


@needs_compiled
def test_its_memo_stops_at_the_callers_caps() -> None:
    """`Searcher`'s memo caps, in words held and in entries: at either, it has no answer (the
    Python search decides the part); below both, it refutes."""
    model, ops = _plain_register(), _writes_then_a_lost_value(10)  # 10 * 2**9 = 5,120
    wgl = compiled_module.cwgl
    assert wgl is not None
    ordered, by_ret, kinds, steps, forced, twins = compiled_module._arguments(model, ops)

    def run(*caps: int) -> tuple[Any, int, Any]:
        searcher = wgl.Searcher(ordered, by_ret, model.init, kinds, steps, forced, twins, *caps)
        return searcher.advance(10**7), searcher.memo, searcher.refuted

    order, memo, refuted = run()
    assert order is None and memo == 5_120 and refuted is not None  # (refuted: a prefix, the op, how far)
    order, memo, refuted = run(-1, 1_000)
    assert order is None and memo == 1_000 and refuted is None
    order, memo, refuted = run(600, -1)  # (6 words an entry here: one word of ops, and the slot's)
    assert order is None and memo == 100 and refuted is None
    order, memo, refuted = run(10**6, 5_120)
    assert order is None and memo == 5_120 and refuted is not None
    with pytest.raises(ValueError, match="memo_words"):
        run(-2, 5)
