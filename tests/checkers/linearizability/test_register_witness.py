"""The register witness (`register_fast.chains`, checked by `witness.witnessed`) never changes a
verdict, and with unique written values a linearizable register needs no search."""

from __future__ import annotations

from typing import Any
from unittest import mock

from attrs import evolve
from hypothesis import given, note, settings
from hypothesis import strategies as st

from checkers.linearizability import CAS_REGISTER, REGISTER, Op, check, deciders, pair
from checkers.linearizability.parts import partition
from checkers.linearizability.register_fast import chains, chains_or_conflict
from checkers.linearizability.search import search
from checkers.linearizability.units import Conflict
from checkers.linearizability.witness import conflicting, witnessed
from tests.checkers.linearizability.test_against_brute_force import _replays


@st.composite
def register_histories(draw: Any, max_ops: int = 14, unique: bool = True) -> tuple[Op, ...]:
    """A simulated atomic cas register: each op takes effect at some instant between its call
    and its completion (or not at all: a cas that finds another value fails; an op of unknown
    outcome either way). Written values are unique (the op's number) unless `unique` is
    False; now and then a read's output is corrupted afterwards."""
    processes = draw(st.integers(1, 4))
    value: Any = None
    pid = list(range(processes))
    next_pid = processes
    pending: dict[int, dict[str, Any]] = {}
    events: list[Op] = []
    invoked = 0
    while True:
        choices = [("invoke", w) for w in range(processes) if w not in pending and invoked < max_ops]
        choices += [("effect", w) for w, p in pending.items() if not p["done"]]
        choices += [("complete", w) for w in pending]
        if not choices:
            break
        action, w = draw(st.sampled_from(choices))
        if action == "invoke":
            invoked += 1
            f = draw(st.sampled_from(("read", "read", "write", "cas")))
            new = invoked if unique else draw(st.integers(1, 3))
            arg: Any = None if f == "read" else new if f == "write" else [value if draw(st.booleans()) else None, new]
            pending[w] = {"f": f, "arg": arg, "done": False, "swapped": False, "out": None}
            events.append(Op(process=pid[w], type="invoke", f=f, value=arg))
        elif action == "effect":
            p = pending[w]
            p["done"] = True
            if p["f"] == "read":
                p["out"] = value
            elif p["f"] == "write":
                value = p["arg"]
            elif value == p["arg"][0]:
                value, p["swapped"] = p["arg"][1], True
        else:
            p = pending.pop(w)
            took = p["done"] and (p["f"] != "cas" or p["swapped"])
            kind = draw(st.sampled_from(("ok", "ok", "ok", "info") if took else ("fail", "info")))
            if p["f"] == "read" and kind == "info":
                kind = "ok" if took else "fail"
            if kind == "info":
                events.append(Op(process=pid[w], type="info", f=p["f"]))
                pid[w] = next_pid
                next_pid += 1
            elif kind == "fail":
                events.append(Op(process=pid[w], type="fail", f=p["f"], value=p["arg"]))
            else:
                out = p["out"] if p["f"] == "read" else p["arg"]
                events.append(Op(process=pid[w], type="ok", f=p["f"], value=out))
    reads = [i for i, e in enumerate(events) if e.type == "ok" and e.f == "read"]
    if reads and draw(st.booleans()):
        i = draw(st.sampled_from(reads))
        e = events[i]
        events[i] = Op(process=e.process, type="ok", f="read", value=draw(st.sampled_from((None, 1, 2, 99))))
    return tuple(events)


def _without_witness(model: Any) -> Any:
    return evolve(model, tactics=evolve(model.tactics, witness=None, replay=None))


def _even_for_small_parts() -> Any:
    """The checker asks for a witness only for parts of `WITNESS_FROM` ops or more."""
    return mock.patch.object(deciders, "WITNESS_FROM", 0)


@settings(max_examples=150)
@given(register_histories(unique=False) | register_histories(unique=True))
def test_the_register_witness_never_changes_a_verdict(history: tuple[Op, ...]) -> None:
    expected = check(_without_witness(CAS_REGISTER), history, minimize=False)
    with _even_for_small_parts():
        verdict = check(CAS_REGISTER, history, minimize=False)
    note(f"search alone: {expected.valid}, with the witness: {verdict.valid}")
    assert verdict.valid is expected.valid
    for part in verdict.evidence.partitions:
        _replays(CAS_REGISTER, part)


@settings(max_examples=150)
@given(register_histories(unique=True))
def test_unique_values_need_no_search(history: tuple[Op, ...]) -> None:
    """With every written value unique, a linearizable register is witnessed."""
    for key, ops in partition(CAS_REGISTER, pair(history)):
        if search(_without_witness(CAS_REGISTER), ops, key=key).valid is True:
            order = chains(ops, CAS_REGISTER.init)
            assert order is not None
            assert witnessed(CAS_REGISTER, key, ops, order) is not None


@settings(max_examples=100)
@given(register_histories(unique=False))
def test_a_register_witness_is_accepted_only_for_a_linearizable_part(history: tuple[Op, ...]) -> None:
    for key, ops in partition(CAS_REGISTER, pair(history)):
        order = chains(ops, CAS_REGISTER.init)
        if order is not None and witnessed(CAS_REGISTER, key, ops, order) is not None:
            assert search(_without_witness(CAS_REGISTER), ops, key=key).valid is True


@settings(max_examples=150)
@given(register_histories(unique=False), st.sampled_from((REGISTER, CAS_REGISTER)))
def test_a_register_replay_steps_as_step_does(history: tuple[Op, ...], model: Any) -> None:
    ops = pair(history)
    state, states = model.init, []
    for o in ops:
        state = model.step(state, o)
        if state is None:
            break
        states.append(state)
    assert model.tactics.replay(model.init, ops) == (None if state is None else states)


def test_a_value_written_twice_is_left_to_the_search() -> None:
    history = (
        Op(process=0, type="invoke", f="write", value=1), Op(process=0, type="ok", f="write", value=1),
        Op(process=0, type="invoke", f="write", value=1), Op(process=0, type="ok", f="write", value=1),
    )
    assert chains(pair(history), CAS_REGISTER.init) is None
    assert check(CAS_REGISTER, history).valid is True


def test_an_unknown_write_nobody_reads_is_listed_last() -> None:
    history = (
        Op(process=0, type="invoke", f="write", value=9),
        Op(process=1, type="invoke", f="write", value=1), Op(process=1, type="ok", f="write", value=1),
        Op(process=0, type="info", f="write"),
        Op(process=1, type="invoke", f="read"), Op(process=1, type="ok", f="read", value=1),
    )
    ops = pair(history)
    order = chains(ops, CAS_REGISTER.init)
    assert order is not None and [ops[i].id for i in order][-1] == 0
    assert witnessed(CAS_REGISTER, None, ops, order) is not None


@settings(max_examples=300)
@given(register_histories(unique=True))
def test_a_register_conflict_is_claimed_only_where_the_part_fails(history: tuple[Op, ...]) -> None:
    """What `chains_or_conflict` claims (its two cut chains cannot be linearized, so neither
    can the part) holds: the search of the whole part, without any guess, fails too; and a
    conflict the search of its ops confirms refutes the part in `check`."""
    for key, ops in partition(CAS_REGISTER, pair(history)):
        found = chains_or_conflict(ops, CAS_REGISTER.init)
        if not isinstance(found, Conflict):
            continue
        sub = tuple(ops[p] for p in found.positions)
        if search(_without_witness(CAS_REGISTER), sub, key=key).valid is False:
            assert search(_without_witness(CAS_REGISTER), ops, key=key).valid is False
            refuted = conflicting(CAS_REGISTER, key, ops, found)
            assert refuted is not None and refuted.valid is False and refuted.refutation


def test_a_stale_replica_read_is_refuted_by_two_chains_without_searching_the_part() -> None:
    """A stale read from a follower (`history_families`' replicated register, 300 ops): each
    of two chains of values must come before the other; the check says so from their ops."""
    from tests.checkers.linearizability.test_bounds import _families

    history = _families().generate("replicated-register", 300, 10, False, 7)  # type: ignore[attr-defined]
    [(key, ops)] = partition(CAS_REGISTER, pair(history))
    found = chains_or_conflict(ops, CAS_REGISTER.init)
    assert isinstance(found, Conflict) and len(found.positions) < len(ops) // 4
    verdict = check(CAS_REGISTER, history, minimize=False)
    assert verdict.valid is False
    assert verdict.evidence.partitions[0].refutation
    assert search(_without_witness(CAS_REGISTER), ops, key=key).valid is False
    shrunk = check(CAS_REGISTER, history)
    assert shrunk.evidence.window_minimal
    assert search(_without_witness(CAS_REGISTER), shrunk.evidence.window, key=key).valid is False


@settings(max_examples=400)
@given(register_histories(unique=False, max_ops=24) | register_histories(unique=True, max_ops=24),
       st.sampled_from((None, 0, 1, 99)))
def test_the_chains_in_c_are_the_chains_in_python(history: tuple[Op, ...], first: Any) -> None:
    """`cwgl.register_chains` (where it is built) answers as `chains_in_python`: the same order,
    the same conflict, or none, on unique and repeated values, ops of unknown outcome, reads of
    values nobody wrote, and any initial value."""
    import pytest

    from checkers.linearizability import native
    from checkers.linearizability.register_fast import chains_in_python

    if native.cwgl is None:
        pytest.skip("the compiled module is not built")
    for _, ops in partition(CAS_REGISTER, pair(history)):
        expected = chains_in_python(ops, (first,))
        got = chains_or_conflict(ops, (first,))
        note(f"python: {expected}, c: {got}")
        if isinstance(expected, Conflict):
            assert isinstance(got, Conflict) and got.positions == expected.positions
        else:
            assert got == expected
        assert native.cwgl.register_chains(ops, first) is not NotImplemented


@settings(max_examples=500)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=2, max_size=12))
def test_the_units_are_arranged_in_c_as_in_python(spans: list[tuple[int, int]]) -> None:
    """`cwgl.arrange` (the register chains' order, in C) answers as units.py's `arrange`: the
    same order of units, or the same two units each of which must come before the other."""
    import pytest

    from checkers.linearizability import native
    from checkers.linearizability.units import arrange

    if native.cwgl is None:
        pytest.skip("the compiled module is not built")
    c = [latest for latest, _ in spans]
    d = [earliest for _, earliest in spans]  # (any: ties, orders and conflicts)
    assert native.cwgl.arrange(c, d) == arrange(c, d)


def test_an_unknown_cas_seen_takes_the_unknown_write_it_swapped_from() -> None:
    """A read of 6 shows that the unknown cas 5 -> 6 took effect, and so did the unknown write
    of 5 it swapped from: one chain, in C as in Python."""
    history = (
        Op(process=0, type="invoke", f="write", value=5),
        Op(process=0, type="info", f="write"),
        Op(process=1, type="invoke", f="cas", value=[5, 6]),
        Op(process=1, type="info", f="cas"),
        Op(process=2, type="invoke", f="read"),
        Op(process=2, type="ok", f="read", value=6),
    )
    from checkers.linearizability.register_fast import chains_in_python

    (_, ops), = partition(CAS_REGISTER, pair(history))
    assert chains_in_python(ops, CAS_REGISTER.init) == [0, 1, 2]
    assert chains_or_conflict(ops, CAS_REGISTER.init) == [0, 1, 2]
