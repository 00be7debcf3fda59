"""The WGL search agrees with brute force on every small history, linearizable or not."""

from __future__ import annotations

import pickle

from hypothesis import given, note, settings
from hypothesis import strategies as st

from checkers.linearizability import MODELS, check, pair
from checkers.linearizability.log_fast import check_log
from checkers.linearizability.sequential import stepper
from checkers.linearizability.wgl import partition, search
from checkers.linearizability.witness import in_sequence
from tests.checkers.linearizability.brute import brute_force_linearizable
from tests.checkers.linearizability.strategies import histories


def _agree(model_name: str, history: tuple) -> None:
    model = MODELS[model_name]
    expected = brute_force_linearizable(model, history)
    verdict = check(model, history)
    note(f"brute force: {expected}, wgl: {verdict.valid}")
    assert verdict.valid is expected
    if verdict.valid is False:
        # the window it shows really fails, on its own
        assert verdict.evidence.window
        assert brute_force_linearizable(model, verdict.evidence.window_history) is False
    assert pickle.loads(pickle.dumps(verdict)) == verdict
    for part in verdict.evidence.partitions:
        if part.valid is not None:
            _replays(model, part)


def _replays(model: object, part: object) -> None:
    """A part's (partial) linearization is one: real-time order kept, and the model steps
    through it to the recorded states."""
    by_id = {o.id: o for o in part.operations}  # type: ignore[attr-defined]
    order = [by_id[i] for i in part.linearization]  # type: ignore[attr-defined]
    state = model.init  # type: ignore[attr-defined]
    for n, (o, recorded) in enumerate(zip(order, part.states, strict=True)):  # type: ignore[attr-defined]
        after = model.step(state, o)  # type: ignore[attr-defined]
        if after is None and o.ret is None:
            after = state  # an op of unknown outcome listed last may never have taken effect
        state = after
        assert state == recorded
        assert all(later.ret is None or later.ret > o.call for later in order[n + 1 :])
    if part.valid is True:  # type: ignore[attr-defined]
        assert sorted(part.linearization) == sorted(by_id)  # type: ignore[attr-defined]


@settings(max_examples=150)
@given(histories("register"))
def test_register_verdicts_match_brute_force(history: tuple) -> None:
    _agree("register", history)


@settings(max_examples=150)
@given(histories("cas-register"))
def test_cas_register_verdicts_match_brute_force(history: tuple) -> None:
    _agree("cas-register", history)


@settings(max_examples=100)
@given(histories("kv"))
def test_kv_verdicts_match_brute_force(history: tuple) -> None:
    _agree("kv", history)


@settings(max_examples=100)
@given(histories("log"))
def test_log_verdicts_match_brute_force(history: tuple) -> None:
    _agree("log", history)


@settings(max_examples=100)
@given(histories("log", max_ops=8, processes=4))
def test_log_fast_path_agrees_with_the_search(history: tuple) -> None:
    """The near-linear log check decides exactly what the WGL search decides."""
    model = MODELS["log"]
    for key, ops in partition(model, pair(history)):
        fast = check_log(ops, init=model.init, key=key)
        slow = search(model, ops, key=key)
        assert fast.valid is slow.valid
        if fast.valid is True:
            # the fast path's linearization is a real one: replay it
            by_id = {o.id: o for o in ops}
            state = model.init
            for op_id in fast.linearization:
                state = model.step(state, by_id[op_id])
                assert state is not None


@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=4))
))
def test_compiled_steps_equal_the_model_step(case: tuple) -> None:
    name, history = case
    model = MODELS[name]
    for o in pair(history):
        for value in (None, 0, 1, 2, "", "x", "xy"):
            state = (value,)
            try:
                expected = model.step(state, o)
            except TypeError:  # appending to a number: not a state this op meets
                continue
            assert stepper(model, o)(state) == expected


@settings(max_examples=150)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda name: st.tuples(st.just(name), histories(name, max_ops=8, processes=5))
))
def test_crowded_histories_with_timeouts_match_brute_force(case: tuple) -> None:
    """Five processes, so more ops overlap and more end with unknown outcome: the search's
    reductions for those (dominance, twins, chains) and its pruning by value keep the verdict."""
    name, history = case
    _agree(name, history)


@settings(max_examples=100)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda m: st.tuples(st.just(m), histories(m, max_ops=10, processes=1))))
def test_one_clients_history_is_decided_by_stepping_through_it(case: tuple) -> None:
    """Ops that follow one another have one order only: a linearizable part is shown so
    without a search (`witness.in_sequence`), and the verdict is brute force's."""
    model_name, history = case
    _agree(model_name, history)
    verdict = check(MODELS[model_name], history, minimize=False)
    if verdict.valid is True:
        assert all(p.explored == 0 for p in verdict.evidence.partitions if all(o.ret is not None for o in p.operations))


@settings(max_examples=150)
@given(st.sampled_from(("register", "cas-register", "kv")).flatmap(
    lambda m: st.tuples(st.just(m), histories(m, max_ops=10, processes=1))))
def test_a_one_client_part_the_model_refuses_has_the_searchs_evidence(case: tuple) -> None:
    """Stepping through a part with one order only also shows it not linearizable, with what the
    search would report: the same partial linearization, states, failing op and return."""
    model_name, history = case
    model = MODELS[model_name]
    for key, ops in partition(model, pair(history)):
        stepped = in_sequence(model, key, ops)
        if stepped is None or stepped.valid is True:
            continue
        searched = search(model, ops, key=key)
        assert (stepped.valid, stepped.linearization, stepped.states, stepped.failing, stepped.stuck_at) == (
            searched.valid, searched.linearization, searched.states, searched.failing, searched.stuck_at)
