"""The kv witness (`kv_fast.propose`, checked by `witness.witnessed`) never changes a verdict.

The witness is a guess read off the values; the checker accepts it only after checking it
from scratch (every op once, real time, the model's outputs), and searches otherwise. These
tests compare verdicts with and without it on random histories (unique values, repeated ones,
empty puts, unknown outcomes, corrupted reads), show that the check rejects wrong orders, and
that histories with unique values need no search."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from attrs import evolve
from hypothesis import given, note, settings
from hypothesis import strategies as st

from checkers.linearizability import (
    KV,
    Op,
    Operation,
    check,
    compiled,
    deciders,
    pair,
    with_initial,
)
from checkers.linearizability.kv_fast import propose
from checkers.linearizability.kv_offsets import by_offsets
from checkers.linearizability.parts import partition
from checkers.linearizability.search import search
from checkers.linearizability.values import kv_step
from checkers.linearizability.witness import witnessed
from tests.checkers.linearizability.test_against_brute_force import _replays


@st.composite
def kv_histories(draw: Any, max_ops: int = 12, unique: bool = False) -> tuple[tuple[Op, ...], Any]:
    """(events, initial value) of a simulated atomic map with get, put and append on one or
    two keys: each op takes effect at some instant between its call and its completion (or
    not at all, when it fails; or either way, when its outcome is unknown). Written values are
    unique unless `unique` is False, in which case some repeat and puts may write ""; a get's
    output may then be corrupted."""
    init = draw(st.sampled_from(("", None)))
    processes = draw(st.integers(1, 4))
    state: dict[Any, Any] = {}
    pid = list(range(processes))
    next_pid = processes
    pending: dict[int, dict[str, Any]] = {}
    events: list[Op] = []
    invoked = written = 0
    while True:
        choices = [("invoke", w) for w in range(processes) if w not in pending and invoked < max_ops]
        choices += [("effect", w) for w, p in pending.items() if not p["done"]]
        choices += [("complete", w) for w in pending]
        if not choices:
            break
        action, w = draw(st.sampled_from(choices))
        if action == "invoke":
            f = draw(st.sampled_from(("get", "get", "put", "append", "append")))
            key = draw(st.sampled_from(("a", "b")))
            written += 1
            value = None if f == "get" else f"<{written}>"
            if value is not None and not unique and draw(st.integers(0, 3)) == 0:
                value = draw(st.sampled_from(("<1>", "<2>", "") if f == "put" else ("<1>", "<2>")))
            pending[w] = {"f": f, "key": key, "value": value, "done": False, "out": None}
            events.append(Op(process=pid[w], type="invoke", f=f, key=key, value=value))
            invoked += 1
        elif action == "effect":
            p = pending[w]
            p["done"] = True
            current = state.get(p["key"], init)
            if p["f"] == "get":
                p["out"] = current
            elif p["f"] == "put":
                state[p["key"]] = p["value"]
            else:
                state[p["key"]] = ("" if current is None else current) + p["value"]
        else:
            p = pending.pop(w)
            kind = draw(st.sampled_from(("ok", "ok", "ok", "info") if p["done"] else ("fail", "info")))
            if kind == "info" and p["f"] == "get":
                kind = "ok" if p["done"] else "fail"
            if kind == "info":
                events.append(Op(process=pid[w], type="info", f=p["f"], key=p["key"]))
                pid[w] = next_pid
                next_pid += 1
            elif kind == "fail":
                events.append(Op(process=pid[w], type="fail", f=p["f"], key=p["key"], value=p["value"]))
            else:
                out = p["out"] if p["f"] == "get" else p["value"]
                events.append(Op(process=pid[w], type="ok", f=p["f"], key=p["key"], value=out))
    gets = [i for i, e in enumerate(events) if e.type == "ok" and e.f == "get"]
    if gets and draw(st.booleans()):
        i = draw(st.sampled_from(gets))
        e = events[i]
        wrong = draw(st.sampled_from(("", None, "<1>", "<2><1>", (e.value or "") + "<3>", (e.value or "")[:-3])))
        events[i] = Op(process=e.process, type="ok", f="get", key=e.key, value=wrong)
    return tuple(events), init


def _without_witness(model: Any) -> Any:
    return evolve(model, tactics=evolve(model.tactics, witness=None, quick_witness=None, replay=None))


def _even_for_small_parts() -> Any:
    """The checker asks for a witness only for parts of `WITNESS_FROM` ops or more; these
    histories are smaller."""
    return mock.patch.object(deciders, "WITNESS_FROM", 0)


def _unique_values(ops: tuple[Operation, ...]) -> bool:
    written = [o.input for o in ops if o.f in ("put", "append")]
    return "" not in written and len(written) == len(set(written))


@settings(max_examples=120)
@given(kv_histories())
def test_the_witness_never_changes_a_verdict(case: tuple[tuple[Op, ...], Any]) -> None:
    history, init = case
    model = with_initial(KV, init)
    expected = check(_without_witness(model), history, minimize=False)
    with _even_for_small_parts():
        verdict = check(model, history, minimize=False)
    note(f"search alone: {expected.valid}, with the witness: {verdict.valid}")
    assert verdict.valid is expected.valid
    for part in verdict.evidence.partitions:
        _replays(model, part)


@settings(max_examples=60)
@given(kv_histories(), st.sampled_from((propose, by_offsets)))
def test_a_witness_is_accepted_only_for_a_linearizable_part(case: tuple[tuple[Op, ...], Any], guess: Any) -> None:
    history, init = case
    model = with_initial(KV, init)
    for key, ops in partition(model, pair(history)):
        order = guess(ops, model.init)
        if order is not None and witnessed(model, key, ops, order) is not None:
            assert search(_without_witness(model), ops, key=key).valid is True


@settings(max_examples=60)
@given(kv_histories(unique=True))
def test_unique_values_need_no_search(case: tuple[tuple[Op, ...], Any]) -> None:
    """With every written value unique (and not ""), a linearizable part is witnessed."""
    history, init = case
    model = with_initial(KV, init)
    for key, ops in partition(model, pair(history)):
        assert _unique_values(ops)
        if search(_without_witness(model), ops, key=key).valid is True:
            order = propose(ops, model.init)
            assert order is not None
            assert witnessed(model, key, ops, order) is not None


@settings(max_examples=60)
@given(kv_histories(unique=True))
def test_unique_values_with_appends_are_witnessed_by_offsets(case: tuple[tuple[Op, ...], Any]) -> None:
    """With every written value unique and marked (`"<n>"`: one `<`, first), no unknown
    outcome and some append, a linearizable part is witnessed by the cheaper guess alone."""
    history, init = case
    model = with_initial(KV, init)
    for key, ops in partition(model, pair(history)):
        marked = any(o.f == "append" for o in ops) and all(o.ret is not None for o in ops)
        if marked and search(_without_witness(model), ops, key=key).valid is True:
            order = by_offsets(ops, model.init)
            assert order is not None
            assert witnessed(model, key, ops, order) is not None


@pytest.mark.slow
@settings(max_examples=1000)
@given(kv_histories(max_ops=24))
def test_the_witness_never_changes_a_verdict_on_many_histories(case: tuple[tuple[Op, ...], Any]) -> None:
    history, init = case
    model = with_initial(KV, init)
    with _even_for_small_parts():
        verdict = check(model, history, minimize=False)
    assert verdict.valid is check(_without_witness(model), history, minimize=False).valid


@pytest.mark.slow
@settings(max_examples=1000)
@given(kv_histories(max_ops=24, unique=True))
def test_unique_values_need_no_search_on_many_histories(case: tuple[tuple[Op, ...], Any]) -> None:
    test_unique_values_need_no_search.hypothesis.inner_test(case)  # type: ignore[attr-defined]


# --- the check of a witness ------------------------------------------------------------------


def _op(i: int, f: str, value: Any, output: Any, call: int, ret: int | None) -> Operation:
    return Operation(id=i, process=i, f=f, key="k", input=value, output=output, call=call, ret=ret)


# append a, then (after it returned) a get of "a", and an append of b concurrent with both
OPS = (
    _op(0, "append", "a", "a", 0, 1),
    _op(1, "append", "b", "b", 2, 5),
    _op(2, "get", None, "a", 3, 4),
)
MODEL = with_initial(KV, "")


def test_a_linearization_is_accepted_with_its_states() -> None:
    shown = witnessed(MODEL, "k", OPS, [0, 2, 1])
    assert shown is not None and shown.valid is True
    assert shown.linearization == (0, 2, 1) and shown.states == (("a",), ("a",), ("ab",))


def test_an_order_against_real_time_is_rejected_though_the_model_accepts_it() -> None:
    # b's append before a's, which returned before b's was called: the model accepts it (the
    # get then reads "ba"), real time does not
    ops = (
        _op(0, "append", "a", "a", 0, 1),
        _op(1, "append", "b", "b", 2, 3),
        _op(2, "get", None, "ba", 4, 5),
    )
    state: Any = MODEL.init
    for o in (ops[1], ops[0], ops[2]):
        state = kv_step(state, o)
        assert state is not None
    assert witnessed(MODEL, "k", ops, [1, 0, 2]) is None


def test_an_order_the_model_rejects_is_rejected_though_real_time_allows_it() -> None:
    # the get of "a" after both appends: calls in order, so real time allows it
    assert witnessed(MODEL, "k", OPS, [0, 1, 2]) is None


def test_an_order_missing_or_repeating_an_op_is_rejected() -> None:
    assert witnessed(MODEL, "k", OPS, [0, 2]) is None
    assert witnessed(MODEL, "k", OPS, [0, 2, 2]) is None
    assert witnessed(MODEL, "k", OPS, [0, 2, 1, 1]) is None
    assert witnessed(MODEL, "k", OPS, [0, 2, 3]) is None


def test_a_wrong_guess_is_searched_and_the_verdict_kept() -> None:
    """Repeated values make the witness guess the wrong writer; the search decides."""
    # "v" is appended twice; of the two, the guess takes the one called last before the get
    # of "vv" returned, first: against real time (the other returned before it was called)
    history = (
        Op(process=2, type="invoke", f="append", key="k", value="v"),
        Op(process=0, type="invoke", f="get", key="k"),
        Op(process=1, type="invoke", f="get", key="k"),
        Op(process=2, type="ok", f="append", key="k", value="v"),
        Op(process=2, type="invoke", f="append", key="k", value="v"),
        Op(process=1, type="ok", f="get", key="k", value=""),
        Op(process=0, type="ok", f="get", key="k", value="vv"),
        Op(process=2, type="ok", f="append", key="k", value="v"),
    )
    ops = pair(history)
    order = propose(ops, MODEL.init)
    assert order is not None and witnessed(MODEL, "k", ops, order) is None
    model = evolve(MODEL, tactics=evolve(MODEL.tactics, quick_witness=None))  # (whose guess is right here)
    with _even_for_small_parts():
        verdict = check(model, history)
        assert verdict.valid is True and verdict.evidence.partitions[0].explored > 0
        _replays(model, verdict.evidence.partitions[0])
        bad = history[:6] + (Op(process=0, type="ok", f="get", key="k", value="vvv"),) + history[7:]
        assert check(model, bad).valid is False


def test_when_the_quick_guess_fails_the_other_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Suffixes without a common first character cannot be cut by `by_offsets`; `propose`
    still witnesses the part, and no search runs (the compiled one, asked between the two
    guesses, is left out here)."""
    monkeypatch.setattr(compiled, "cwgl", None)
    history = (
        Op(process=0, type="invoke", f="append", key="k", value="a"),
        Op(process=1, type="invoke", f="append", key="k", value="b"),
        Op(process=0, type="ok", f="append", key="k", value="a"),
        Op(process=1, type="ok", f="append", key="k", value="b"),
        Op(process=0, type="invoke", f="get", key="k"),
        Op(process=0, type="ok", f="get", key="k", value="ba"),
    )
    ops = pair(history)
    assert by_offsets(ops, MODEL.init) is None
    with _even_for_small_parts():
        verdict = check(MODEL, history)
    part = verdict.evidence.partitions[0]
    assert verdict.valid is True and part.explored == 0 and part.linearization == (1, 0, 2)


# --- the model's replay ----------------------------------------------------------------------

_KV_OPS = st.builds(
    _op,
    st.just(0),
    st.sampled_from(("get", "read", "put", "write", "append", "cas")),
    st.sampled_from(("a", "b", "", None, ("a", "b"), ("", "a"), (None, "b"))),
    st.sampled_from(("a", "b", "ab", "", None)),
    st.just(0),
    st.sampled_from((1, None)),
)


@given(st.sampled_from(("", None, "a")), st.lists(_KV_OPS, max_size=8))
def test_replay_is_the_model_step_folded(init: Any, ops: list[Operation]) -> None:
    assert KV.tactics.replay is not None
    state: Any = (init,)
    states: list[Any] = []
    try:
        for o in ops:
            state = kv_step(state, o)
            if state is None:
                break
            states.append(state)
    except (TypeError, ValueError) as refused:  # (a bad cas input, an append to a non-string)
        with pytest.raises(type(refused)):
            KV.tactics.replay((init,), ops)
        return
    assert KV.tactics.replay((init,), ops) == (None if state is None else states)



def test_a_stale_read_the_witness_stops_at_is_refuted_without_a_search() -> None:
    from checkers.linearizability import explain

    history = (  # (a get of "a" overlapping its append: ops that follow one another are decided by stepping)
        Op(process=0, type="invoke", f="append", key="k", value="a"),
        Op(process=2, type="invoke", f="get", key="k"),
        Op(process=0, type="ok", f="append", key="k", value="a"),
        Op(process=2, type="ok", f="get", key="k", value="a"),
        Op(process=0, type="invoke", f="append", key="k", value="b"),
        Op(process=0, type="ok", f="append", key="k", value="b"),
        Op(process=1, type="invoke", f="get", key="k"),
        Op(process=1, type="ok", f="get", key="k", value="a"),  # b had returned: stale
    )
    with _even_for_small_parts():
        verdict = check(MODEL, history)
    part = verdict.evidence.partitions[0]
    assert verdict.valid is False and part.refutation and part.explored == 0
    assert verdict.evidence.longest_prefix == ()
    assert "Shown without a search" in explain(verdict, MODEL)
    assert len(verdict.evidence.window) == 2 and verdict.evidence.window_minimal


# --- the order of the units ------------------------------------------------------------------


def _fits(order: list[int], c: list[int], d: list[int]) -> bool:
    """Each unit may come after every one before it: their latest calls are no later than its
    earliest return."""
    return all(c[order[i]] <= d[order[k]] for k in range(len(order)) for i in range(k))


@settings(max_examples=300)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=6))
def test_units_are_ordered_whenever_some_order_fits(units: list[tuple[int, int]]) -> None:
    from itertools import permutations

    from checkers.linearizability.units import units_in_order

    c = [call for call, _ in units]
    d = [ret for _, ret in units]
    order = units_in_order(c, d)
    some = any(_fits(list(p), c, d) for p in permutations(range(len(units))))
    note(f"order {order}, some order fits: {some}")
    if order is None:
        assert not some
    else:
        assert sorted(order) == list(range(len(units))) and _fits(order, c, d)
