"""Refuting without a search, and leaving out timed-out ops nothing observes: both keep verdicts.

`refute` names ops that cannot be linearized together (a stale read); the checker uses it to
end a long search early, to answer shrinking trials and to pick the window. `useful_info`
leaves out of a search the timed-out ops no op can observe."""

from __future__ import annotations

from typing import Any

from hypothesis import given, note, settings
from hypothesis import strategies as st

from checkers.linearizability import (
    CAS_REGISTER,
    KV,
    MODELS,
    REGISTER,
    check,
    deciders,
    pair,
    wgl,
    with_initial,
)
from checkers.linearizability import compiled as compiled_module
from checkers.linearizability.evidence import as_info
from checkers.linearizability.history import Op, info, invoke, ok
from checkers.linearizability.parts import partition
from checkers.linearizability.reductions import useful_info
from checkers.linearizability.refute import refute, refute_by_count
from checkers.linearizability.witness import in_call_order
from tests.checkers.linearizability.brute import brute_force_operations
from tests.checkers.linearizability.strategies import histories

_MODELS = st.sampled_from(("register", "cas-register", "kv"))


@settings(max_examples=200)
@given(_MODELS.flatmap(lambda name: st.tuples(st.just(name), histories(name, max_ops=8, processes=5))))
def test_a_refutation_is_a_violation_and_its_ops_fail_whatever_the_others_did(case: tuple) -> None:
    name, history = case
    model = MODELS[name]
    for _key, ops in partition(model, pair(history)):
        shown_by = refute(model, ops)
        if shown_by is None:
            continue
        note(f"refuted by {[o.id for o in shown_by]}")
        assert brute_force_operations(model, ops) is False
        ids = {o.id for o in shown_by}
        relaxed = [o if o.id in ids else as_info(o) for o in ops if o.id in ids or o.f not in model.tactics.read_only]
        assert brute_force_operations(model, relaxed) is False


def _relaxed(model: Any, ops: list[Any], relax: set[int]) -> list[Any]:
    """`ops` with the ids in `relax` turned to unknown outcome (reads of those dropped)."""
    return [as_info(o) if o.id in relax else o for o in ops if o.id not in relax or o.f not in model.tactics.read_only]


@settings(max_examples=300)
@given(
    _MODELS.flatmap(lambda name: st.tuples(st.just(name), histories(name, max_ops=9, processes=5))),
    st.sets(st.integers(0, 8), max_size=4),
)
def test_refuting_by_count_only_refutes_violations(case: tuple, relax: set[int]) -> None:
    # relaxing some ops to unknown outcome makes the timed-out writes that count shows too few
    name, history = case
    model = MODELS[name]
    for _key, ops in partition(model, pair(history)):
        trial = _relaxed(model, ops, relax)
        if refute_by_count(model, trial):
            assert brute_force_operations(model, trial) is False


@settings(max_examples=300)
@given(
    _MODELS.flatmap(lambda name: st.tuples(st.just(name), histories(name, max_ops=9, processes=5))),
    st.sets(st.integers(0, 8), max_size=5),
)
def test_a_trial_passed_in_call_order_is_linearizable(case: tuple, relax: set[int]) -> None:
    name, history = case
    model = MODELS[name]
    for _key, ops in partition(model, pair(history)):
        trial = _relaxed(model, ops, relax)
        if in_call_order(model, trial):
            assert brute_force_operations(model, trial) is True


def test_a_timed_out_write_placed_before_the_read_that_needs_it_passesin_call_order() -> None:
    history = (
        invoke(9, "write", 3),
        invoke(0, "write", 5), ok(0, "write", 5),
        invoke(1, "read"), ok(1, "read", 3),
        info(9, "write"),
    )
    assert in_call_order(REGISTER, pair(history))
    # called only after the read returned, it cannot be placed before it
    late = (
        invoke(0, "write", 5), ok(0, "write", 5),
        invoke(1, "read"), ok(1, "read", 3),
        invoke(9, "write", 3), info(9, "write"),
    )
    assert not in_call_order(REGISTER, pair(late))


def _read_twice_after_other_writes(timed_out_writes_of_3: int) -> tuple[Op, ...]:
    """Two reads of 3, each after a write of another value that returned before the read was
    called, and timed-out writes of 3 called before it all (etcd_099's shape)."""
    timed_out: list[Op] = []
    for p in range(timed_out_writes_of_3):
        timed_out += [invoke(10 + p, "write", 3), info(10 + p, "write")]
    return (
        *timed_out,
        invoke(0, "write", 4), ok(0, "write", 4),
        invoke(1, "read"), ok(1, "read", 3),
        invoke(2, "write", 1), ok(2, "write", 1),
        invoke(3, "read"), ok(3, "read", 3),
    )


def test_two_stale_reads_and_one_timed_out_write_that_could_repair_either_are_refuted_by_count() -> None:
    ops = pair(_read_twice_after_other_writes(1))
    assert refute(REGISTER, ops) is None  # the timed-out write can repair each read alone
    assert refute_by_count(REGISTER, ops)  # but not both: it takes effect at most once
    assert check(REGISTER, _read_twice_after_other_writes(1)).valid is False


def test_two_timed_out_writes_repair_both_reads_and_nothing_is_refuted() -> None:
    ops = pair(_read_twice_after_other_writes(2))
    assert not refute_by_count(REGISTER, ops)
    assert check(REGISTER, _read_twice_after_other_writes(2)).valid is True


def test_a_read_of_another_value_spoils_like_a_write() -> None:
    # the read of 5 shows the state was 5 between the two reads of 3: two repairs needed
    history = (
        invoke(9, "write", 3), info(9, "write"),
        invoke(0, "write", 5), ok(0, "write", 5),
        invoke(1, "read"), ok(1, "read", 3),
        invoke(2, "read"), ok(2, "read", 5),
        invoke(3, "read"), ok(3, "read", 3),
    )
    assert refute_by_count(REGISTER, pair(history))
    assert check(REGISTER, history).valid is False


@settings(max_examples=200)
@given(_MODELS.flatmap(lambda name: st.tuples(st.just(name), histories(name, max_ops=8, processes=5))))
def test_leaving_out_unobserved_timed_out_ops_keeps_the_verdict(case: tuple) -> None:
    name, history = case
    model = MODELS[name]
    for _key, ops in partition(model, pair(history)):
        useful = useful_info(model, ops)
        if useful is None:
            continue
        kept = [o for o, u in zip(ops, useful, strict=True) if u]
        note(f"left out {[o.id for o, u in zip(ops, useful, strict=True) if not u]}")
        assert all(o.ret is None for o, u in zip(ops, useful, strict=True) if not u)
        assert brute_force_operations(model, kept) is brute_force_operations(model, ops)


def _stale_read() -> tuple[Op, ...]:
    return (
        invoke(0, "write", 1), ok(0, "write", 1),
        invoke(1, "write", 2), ok(1, "write", 2),
        invoke(2, "read"), ok(2, "read", 1),
    )


def test_the_stale_read_is_refuted_by_the_read_the_write_after_it_and_the_write_too_early() -> None:
    ops = pair(_stale_read())
    shown_by = refute(REGISTER, ops)
    assert shown_by is not None
    assert [o.id for o in shown_by] == [2, 1, 0]  # the read, the spoiling write, the early write


def test_a_write_that_may_still_repair_the_state_prevents_the_refutation() -> None:
    # the write of 1 timed out: it may take effect after the write of 2, so the read is fine
    history = (
        invoke(0, "write", 1), info(0, "write"),
        invoke(1, "write", 2), ok(1, "write", 2),
        invoke(2, "read"), ok(2, "read", 1),
    )
    assert refute(REGISTER, pair(history)) is None
    assert check(REGISTER, history).valid is True


def test_a_kv_append_that_the_read_misses_is_refuted() -> None:
    history = (
        invoke(0, "put", "a", key="k"), ok(0, "put", "a", key="k"),
        invoke(1, "append", "b", key="k"), ok(1, "append", "b", key="k"),
        invoke(2, "get", key="k"), ok(2, "get", "a", key="k"),
    )
    shown_by = refute(with_initial(KV, ""), pair(history))
    assert shown_by is not None and shown_by[0].id == 2 and shown_by[1].id == 1


def test_a_search_cut_short_by_a_refutation_names_it_in_the_evidence(monkeypatch: object) -> None:
    # Every search pauses after one iteration, so the refutation runs before any ends.
    monkeypatch.setattr(wgl, "SLICE", 1)  # type: ignore[attr-defined]
    # (the stale read, with a read of 2 overlapping the write of 2: ops that follow one another
    # have one order only and are decided without a search)
    w1, ok1, w2, ok2, r, ok_r = (Op(process=e.process, type=e.type, f=e.f, key="k", value=e.value) for e in _stale_read())
    history = (
        invoke(5, "write", 7, key="other"), ok(5, "write", 7, key="other"),
        w1, ok1, w2, invoke(3, "read", key="k"), ok2, ok(3, "read", 2, key="k"), r, ok_r,
    )
    verdict = check(CAS_REGISTER, history)
    assert verdict.valid is False
    evidence = verdict.evidence
    assert evidence.key == "k"
    part = next(p for p in evidence.partitions if p.key == "k")
    assert part.refutation == (4, 2, 1)
    assert evidence.failing_op is not None and evidence.failing_op.id == 4
    assert evidence.previous_ok is not None and evidence.previous_ok.id == 3  # (the read of 2 returned last)
    assert evidence.window_minimal and {o.id for o in evidence.window} == {1, 2, 4}
    assert check(CAS_REGISTER, evidence.window_history, minimize=False).valid is False
    # without the pause the full search finds the same verdict
    monkeypatch.setattr(wgl, "SLICE", 2048)  # type: ignore[attr-defined]
    assert check(CAS_REGISTER, history, minimize=False).valid is False


def test_a_timed_out_write_nobody_reads_is_left_out_but_still_listed() -> None:
    history = (
        invoke(0, "write", 9), info(0, "write"),
        invoke(1, "write", 1), ok(1, "write", 1),
        invoke(2, "read"), ok(2, "read", 1),
    )
    ops = pair(history)
    assert useful_info(REGISTER, ops) == [False, True, True]
    verdict = check(REGISTER, history)
    assert verdict.valid is True
    part = verdict.evidence.partitions[0]
    assert sorted(part.linearization) == [0, 1, 2]  # every op, the left-out one last
    assert part.linearization[-1] == 0


@settings(max_examples=300)
@given(histories("kv", max_ops=8, processes=5))
def test_a_deep_refutation_is_a_violation_up_to_its_failing_op(history: tuple[Op, ...]) -> None:
    """`refute(deep=True)` (a repair by a put that appends cannot complete) names an op no
    linearization reaches: the history up to that op's return already fails."""
    for _key, ops in partition(KV, pair(history)):
        shown_by = refute(KV, ops, deep=True)
        if shown_by is None:
            continue
        j = shown_by[0]
        note(f"refuted at {j.id}")
        assert brute_force_operations(KV, ops) is False
        upto = [o if o.ret is not None and o.ret <= j.ret else as_info(o) for o in ops if o.call <= j.ret]
        assert brute_force_operations(KV, [o for o in upto if o.ret is not None or o.f not in KV.tactics.read_only]) is False


def _stale_rebuilt_read() -> tuple[Op, ...]:
    """get -> "bc" after a put of "ba" returned: only the put of "b" may come between, and no
    append of "c" follows it (the one there is, "a", gives "ba")."""
    return (
        invoke(0, "put", "bc", key="k"), ok(0, "put", "bc", key="k"),
        invoke(1, "put", "ba", key="k"), ok(1, "put", "ba", key="k"),
        invoke(2, "put", "b", key="k"), invoke(3, "append", "a", key="k"),
        invoke(4, "get", key="k"), ok(4, "get", "bc", key="k"),
        ok(2, "put", "b", key="k"), ok(3, "append", "a", key="k"),
    )


def test_a_stale_read_that_a_put_and_appends_cannot_rebuild_is_refuted_deep() -> None:
    ops = pair(_stale_rebuilt_read())
    assert refute(KV, ops) is None  # the put of "b" may come after the put of "ba"...
    shown_by = refute(KV, ops, deep=True)  # ...but no append of "c" after it
    assert shown_by is not None and shown_by[0].id == 4 and shown_by[1].id == 1
    appended = (invoke(5, "append", "c", key="k"), *_stale_rebuilt_read())  # (never returns: may take effect)
    assert refute(KV, pair(appended), deep=True) is None
    assert check(KV, appended).valid is True


def test_a_long_search_asks_the_deep_refutation(monkeypatch: object) -> None:
    # every search pauses after one iteration, with a memo bigger than its part by then
    monkeypatch.setattr(wgl, "SLICE", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(deciders, "WITNESS_FROM", 10**6)
    # (the Python search's way, as without the compiled one, which would decide the part first)
    monkeypatch.setattr(compiled_module, "cwgl", None)
    asked: list[bool] = []
    real = wgl.refute

    def spy(model: Any, ops: Any, deep: bool = False) -> Any:
        asked.append(deep)
        return real(model, ops, deep)

    monkeypatch.setattr(wgl, "refute", spy)  # type: ignore[attr-defined]
    verdict = check(KV, _stale_rebuilt_read())
    assert verdict.valid is False and True in asked
    assert verdict.evidence.failing_op is not None and verdict.evidence.failing_op.id == 4
    assert check(KV, verdict.evidence.window_history, minimize=False).valid is False
