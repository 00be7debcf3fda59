"""Knossos' models (mutex, multi-register, set, unordered and FIFO queues): the search agrees with
brute force on small histories, linearizable and not, and their semantics are Knossos'.

knossos/src/knossos/model.clj (Mutex, MultiRegister, Set, UnorderedQueue, FIFOQueue) and
knossos.history/complete: an ok op steps with its completion's value, a failed op never
happened, an info op may have happened at any time after its call, or never.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import Phase, find, given, note, settings
from hypothesis import strategies as st

from checkers.linearizability import MODELS, check, pair
from checkers.linearizability.history import Op, Operation, fail, info, invoke, ok
from checkers.linearizability.knossos_models import KNOSSOS_MODELS
from tests.checkers.linearizability.brute import brute_force_linearizable
from tests.checkers.linearizability.strategies import histories
from tests.checkers.linearizability.test_against_brute_force import _agree

AGREEMENT = settings(max_examples=300, derandomize=True)
"""At least 300 random small histories per model; the same ones every run (a failure replays)."""


@AGREEMENT
@given(histories("mutex"))
def test_mutex_verdicts_match_brute_force(history: tuple[Op, ...]) -> None:
    _agree("mutex", history)


@AGREEMENT
@given(histories("multi-register"))
def test_multi_register_verdicts_match_brute_force(history: tuple[Op, ...]) -> None:
    _agree("multi-register", history)


@AGREEMENT
@given(histories("set"))
def test_set_verdicts_match_brute_force(history: tuple[Op, ...]) -> None:
    _agree("set", history)


@AGREEMENT
@given(histories("unordered-queue"))
def test_unordered_queue_verdicts_match_brute_force(history: tuple[Op, ...]) -> None:
    _agree("unordered-queue", history)


@AGREEMENT
@given(histories("fifo-queue"))
def test_fifo_queue_verdicts_match_brute_force(history: tuple[Op, ...]) -> None:
    _agree("fifo-queue", history)


def test_the_generated_histories_are_linearizable_and_not() -> None:
    """The agreement above is worth something only if both verdicts occur: one history of
    each, for every model, from the same generator (found, not hand-picked)."""

    for model in KNOSSOS_MODELS:
        for wanted in (True, False):
            found = find(histories(model.name), lambda h, m=model, w=wanted: brute_force_linearizable(m, h) is w,
                         settings=settings(max_examples=2000, database=None, phases=[Phase.generate]))
            assert check(model, found).valid is wanted


# --- the semantics, op by op -----------------------------------------------------------------


def _verdict(model: str, *events: Op) -> bool | str:
    return check(MODELS[model], events).valid


def test_a_mutex_held_twice_is_not_linearizable_and_a_failed_acquire_never_happened() -> None:
    held_twice = (invoke(0, "acquire"), ok(0, "acquire"), invoke(1, "acquire"), ok(1, "acquire"))
    assert _verdict("mutex", *held_twice) is False
    refused = held_twice[:3] + (fail(1, "acquire"),)
    assert _verdict("mutex", *refused) is True
    released = (invoke(0, "acquire"), ok(0, "acquire"), invoke(0, "release"), ok(0, "release"),
                invoke(1, "acquire"), ok(1, "acquire"))
    assert _verdict("mutex", *released) is True
    # a release that timed out may have freed the lock
    crashed = (invoke(0, "acquire"), ok(0, "acquire"), invoke(0, "release"), info(0, "release"),
               invoke(1, "acquire"), ok(1, "acquire"))
    assert _verdict("mutex", *crashed) is True
    assert _verdict("mutex", invoke(0, "release"), ok(0, "release")) is False


def _txn(*micro: tuple[str, str, Any]) -> tuple[tuple[str, str, Any], ...]:
    return tuple(micro)


def test_a_multi_register_txn_reads_what_the_txns_before_it_wrote() -> None:
    write = _txn(("write", "x", 1), ("write", "y", 2))
    read = _txn(("read", "x", None), ("read", "y", None))
    good = (invoke(0, "txn", write), ok(0, "txn", write), invoke(1, "txn", read),
            ok(1, "txn", _txn(("read", "x", 1), ("read", "y", 2))))
    assert _verdict("multi-register", *good) is True
    torn = good[:3] + (ok(1, "txn", _txn(("read", "x", 1), ("read", "y", None))),)
    assert _verdict("multi-register", *torn) is True  # a nil read is always legal (Knossos)
    stale = good[:3] + (ok(1, "txn", _txn(("read", "x", 1), ("read", "y", 0))),)
    assert _verdict("multi-register", *stale) is False
    # within one txn, a read sees the txn's own earlier write
    own = _txn(("write", "x", 3), ("read", "x", 3))
    assert _verdict("multi-register", invoke(0, "txn", own), ok(0, "txn", own)) is True


def test_a_set_read_sees_exactly_the_adds_before_it() -> None:
    adds = (invoke(0, "add", 1), ok(0, "add", 1), invoke(0, "add", 2), invoke(1, "read"))
    assert _verdict("set", *adds, ok(1, "read", (1,)), ok(0, "add", 2)) is True  # 2 not yet added
    assert _verdict("set", *adds, ok(1, "read", frozenset({1, 2})), ok(0, "add", 2)) is True
    assert _verdict("set", *adds, ok(1, "read", ()), ok(0, "add", 2)) is False  # 1 was added before
    assert _verdict("set", *adds, ok(1, "read", (1, 3)), ok(0, "add", 2)) is False


def test_a_queue_hands_out_only_what_was_enqueued_and_a_fifo_queue_in_order() -> None:
    both = (invoke(0, "enqueue", 1), ok(0, "enqueue", 1), invoke(0, "enqueue", 2), ok(0, "enqueue", 2),
            invoke(1, "dequeue"))
    assert _verdict("unordered-queue", *both, ok(1, "dequeue", 2)) is True
    assert _verdict("fifo-queue", *both, ok(1, "dequeue", 2)) is False
    assert _verdict("fifo-queue", *both, ok(1, "dequeue", 1)) is True
    assert _verdict("unordered-queue", *both, ok(1, "dequeue", 3)) is False
    twice = (*both, ok(1, "dequeue", 1), invoke(1, "dequeue"), ok(1, "dequeue", 1))
    assert _verdict("unordered-queue", *twice) is False  # one 1 was enqueued


def test_a_timed_out_dequeue_may_have_taken_the_head_of_a_fifo_queue() -> None:
    """Where Knossos steps a crashed dequeue with its invocation's value (nil: it never takes
    effect) and calls this history not linearizable, the dequeue may have consumed 1."""
    history = (invoke(0, "enqueue", 1), ok(0, "enqueue", 1), invoke(0, "enqueue", 2), ok(0, "enqueue", 2),
               invoke(1, "dequeue"), info(1, "dequeue"), invoke(2, "dequeue"), ok(2, "dequeue", 2))
    assert _verdict("fifo-queue", *history) is True
    assert _verdict("fifo-queue", *history[:4], *history[6:]) is False  # no crashed dequeue: 1 first


# --- the queues' info dequeues, against every effect they could have had ------------------------


def _every_effect(model: str, ops: Sequence[Operation]) -> bool:
    """Brute force with the queue's own nondeterminism: a dequeue of unknown outcome may have
    removed any pending value (unordered) or the head (FIFO), or never taken effect."""

    def nexts(state: tuple[Any, ...], o: Operation) -> list[tuple[Any, ...]]:
        if o.f == "enqueue":
            return [(*state, o.input)]
        if o.ret is not None:
            if model == "fifo-queue":
                return [state[1:]] if state and state[0] == o.output else []
            return [state[:i] + state[i + 1:] for i, v in enumerate(state) if v == o.output][:1]
        if model == "fifo-queue":
            return [state[1:]] if state else []
        return [state[:i] + state[i + 1:] for i in range(len(state))]

    def extend(state: tuple[Any, ...], remaining: list[Operation]) -> bool:
        if all(r.ret is None for r in remaining):
            return True
        for o in remaining:
            if any(r.ret is not None and r.ret < o.call for r in remaining if r is not o):
                continue
            rest = [r for r in remaining if r is not o]
            if o.ret is None and extend(state, rest):  # (never took effect)
                return True
            if any(extend(after, rest) for after in nexts(state, o)):
                return True
        return False

    return extend((), list(ops))


@settings(max_examples=300, derandomize=True)
@given(st.sampled_from(("unordered-queue", "fifo-queue")).flatmap(
    lambda m: st.tuples(st.just(m), histories(m, max_ops=7, processes=4))))
def test_a_dequeue_of_unknown_outcome_is_stepped_as_every_effect_it_could_have_had(case: tuple[str, Any]) -> None:
    """The models step a crashed dequeue one way (unordered: no effect; FIFO: the head); that
    gives the verdict of trying every value it could have taken, and never."""
    model, history = case
    expected = _every_effect(model, pair(history))
    note(f"every effect: {expected}")
    assert check(MODELS[model], history).valid is expected
