"""Hand-written histories every linearizability checker must get right."""

from __future__ import annotations

import pickle

import pytest

from checkers.linearizability import CAS_REGISTER, KV, LOG, REGISTER, Op, check, explain
from checkers.linearizability.history import HistoryError, fail, info, invoke, ok


def test_a_sequential_history_is_linearizable() -> None:
    h = (invoke(0, "write", 1), ok(0, "write", 1), invoke(0, "read"), ok(0, "read", 1))
    assert check(REGISTER, h).valid is True


def test_a_register_starts_as_null() -> None:
    assert check(REGISTER, (invoke(0, "read"), ok(0, "read", None))).valid is True
    assert check(REGISTER, (invoke(0, "read"), ok(0, "read", 0))).valid is False


def test_the_stale_read_is_not_linearizable() -> None:
    """write(1) completes, then write(2) completes, then a read returns 1: stale."""
    h = (
        invoke(0, "write", 1), ok(0, "write", 1),
        invoke(1, "write", 2), ok(1, "write", 2),
        invoke(2, "read"), ok(2, "read", 1),
    )
    v = check(REGISTER, h)
    assert v.valid is False
    assert v.evidence.failing_op is not None and v.evidence.failing_op.f == "read"
    assert v.evidence.previous_ok is not None and v.evidence.previous_ok.input == 2


def test_a_read_concurrent_with_a_write_may_see_either_value() -> None:
    for seen in (None, 1):
        h = (invoke(0, "write", 1), invoke(1, "read"), ok(1, "read", seen), ok(0, "write", 1))
        assert check(REGISTER, h).valid is True


def test_concurrent_writes_are_linearizable_in_either_order() -> None:
    for last in (1, 2):
        h = (
            invoke(0, "write", 1), invoke(1, "write", 2),
            ok(0, "write", 1), ok(1, "write", 2),
            invoke(2, "read"), ok(2, "read", last),
        )
        assert check(REGISTER, h).valid is True


def test_two_readers_cannot_disagree_on_the_order_of_concurrent_writes() -> None:
    h = (
        invoke(0, "write", 1), invoke(1, "write", 2), ok(0, "write", 1), ok(1, "write", 2),
        invoke(2, "read"), ok(2, "read", 1), invoke(3, "read"), ok(3, "read", 2),
        invoke(2, "read"), ok(2, "read", 1),
    )
    assert check(REGISTER, h).valid is False


def test_the_lost_update_through_cas_is_not_linearizable() -> None:
    """Two cas(0 -> x) both succeed from the same value: one update is lost."""
    h = (
        invoke(0, "write", 0), ok(0, "write", 0),
        invoke(1, "cas", (0, 1)), invoke(2, "cas", (0, 2)),
        ok(1, "cas", (0, 1)), ok(2, "cas", (0, 2)),
    )
    v = check(CAS_REGISTER, h)
    assert v.valid is False
    # the two cas alone cannot both succeed, whatever the write did
    assert [o.f for o in v.evidence.window] == ["cas", "cas"]


def test_a_failed_cas_did_not_happen() -> None:
    h = (
        invoke(0, "write", 0), ok(0, "write", 0),
        invoke(1, "cas", (5, 1)), fail(1, "cas", (5, 1)),
        invoke(1, "read"), ok(1, "read", 0),
    )
    assert check(CAS_REGISTER, h).valid is True


def test_an_info_write_may_take_effect_later() -> None:
    """A write that timed out is seen by a read invoked long after the timeout."""
    h = (
        invoke(0, "write", 1), info(0, "write"),
        invoke(1, "read"), ok(1, "read", None),
        invoke(1, "read"), ok(1, "read", 1),
    )
    assert check(REGISTER, h).valid is True


def test_an_info_write_may_never_take_effect() -> None:
    h = (invoke(0, "write", 1), info(0, "write"), invoke(1, "read"), ok(1, "read", None))
    assert check(REGISTER, h).valid is True


def test_an_info_write_cannot_take_effect_before_it_was_called() -> None:
    h = (invoke(1, "read"), ok(1, "read", 1), invoke(0, "write", 1), info(0, "write"))
    assert check(REGISTER, h).valid is False


def test_an_info_write_takes_effect_at_most_once() -> None:
    h = (
        invoke(0, "write", 1), info(0, "write"),
        invoke(1, "write", 2), ok(1, "write", 2),
        invoke(1, "read"), ok(1, "read", 1),
        invoke(1, "read"), ok(1, "read", 2),
    )
    assert check(REGISTER, h).valid is False


def test_kv_keys_are_independent_and_the_failing_key_is_named() -> None:
    h = (
        invoke(0, "put", "a", key="k1"), ok(0, "put", "a", key="k1"),
        invoke(1, "put", "b", key="k2"), ok(1, "put", "b", key="k2"),
        invoke(0, "get", key="k2"), ok(0, "get", "a", key="k2"),
        invoke(1, "append", "c", key="k1"), ok(1, "append", "c", key="k1"),
        invoke(0, "get", key="k1"), ok(0, "get", "ac", key="k1"),
    )
    v = check(KV, h)
    assert v.valid is False and v.evidence.key == "k2"
    assert [p.key for p in v.evidence.partitions] == ["k1", "k2"]


def test_log_commits_get_consecutive_epochs_in_real_time_order() -> None:
    good = (
        invoke(0, "commit", "T1"), ok(0, "commit", 1),
        invoke(1, "commit", "T2"), invoke(0, "commit", "T3"), ok(0, "commit", 3), ok(1, "commit", 2),
        invoke(2, "read"), ok(2, "read", 3),
    )
    assert check(LOG, good).valid is True
    reversed_in_time = (invoke(0, "commit", "T1"), ok(0, "commit", 2), invoke(1, "commit", "T2"), ok(1, "commit", 1))
    assert check(LOG, reversed_in_time).valid is False
    twice = (invoke(0, "commit", "T1"), ok(0, "commit", 1), invoke(1, "commit", "T2"), ok(1, "commit", 1))
    assert check(LOG, twice).valid is False


def test_a_log_epoch_gap_is_filled_only_by_a_commit_of_unknown_outcome() -> None:
    gap = (invoke(0, "commit", "T1"), ok(0, "commit", 2))
    assert check(LOG, gap).valid is False
    filled = (invoke(1, "commit", "T0"), info(1, "commit"), invoke(0, "commit", "T1"), ok(0, "commit", 2))
    assert check(LOG, filled).valid is True


def test_a_rejection_is_decided_at_an_epoch_current_during_the_call() -> None:
    h = (
        invoke(0, "commit", "T1"), ok(0, "commit", 1),
        invoke(1, "commit", "T2"), ok(1, "commit", {"rejected": "locked", "epoch": 0}),
    )
    v = check(LOG, h)
    assert v.valid is False
    assert v.evidence.failing_op is not None and v.evidence.failing_op.process == 1


def test_verdicts_and_their_evidence_pickle() -> None:
    h = (invoke(0, "write", 1), ok(0, "write", 1), invoke(1, "read"), ok(1, "read", 2))
    v = check(REGISTER, h)
    assert pickle.loads(pickle.dumps(v)) == v


def test_explain_names_the_failing_operation_on_one_screen() -> None:
    h = (invoke(0, "write", 1), ok(0, "write", 1), invoke(1, "read"), ok(1, "read", 2))
    text = explain(check(REGISTER, h), REGISTER)
    assert "NOT linearizable" in text and "read() -> 2" in text
    assert len(text.splitlines()) <= 40
    assert explain(check(REGISTER, h[:2])).startswith("Linearizable")


@pytest.mark.parametrize(
    "history, message",
    [
        ((ok(0, "read", 1),), "no open invocation"),
        ((invoke(0, "read"), invoke(0, "read")), "previous operation is open"),
        ((invoke(0, "write", 1), info(0, "write"), invoke(0, "read")), "ended in info"),
        ((invoke(0, "read"), ok(0, "write", 1)), "completes an invocation of read"),
    ],
)
def test_malformed_histories_name_the_event(history: tuple[Op, ...], message: str) -> None:
    with pytest.raises(HistoryError, match=message) as e:
        check(REGISTER, history)
    assert e.value.index == len(history) - 1


def test_intervals_are_closed_when_a_call_and_a_return_share_an_instant() -> None:
    """Built by hand: b returns at the very instant a is called, so they overlap."""
    from checkers.linearizability import check_operations
    from checkers.linearizability.history import Operation

    a = Operation(id=0, process=0, f="commit", key=None, input="T1", output=1, call=5, ret=9)
    b = Operation(id=1, process=1, f="commit", key=None, input="T2", output=2, call=0, ret=5)
    assert check_operations(LOG, (a, b)).valid is True
    from checkers.linearizability.wgl import search

    assert search(LOG, (a, b)).valid is True


def test_json_values_built_by_hand_are_frozen_so_states_hash() -> None:
    h = (invoke(0, "write", [1, {"a": 2}]), ok(0, "write", [1, {"a": 2}]), invoke(1, "read"), ok(1, "read", [1, {"a": 2}]))
    assert check(REGISTER, h).valid is True


def test_timed_out_ops_may_take_effect_one_after_another() -> None:
    """Only the timed-out write(1) then the timed-out cas(1 -> 2) explain the read of 2: the
    search must chain two ops of unknown outcome between two ok ones."""
    h = (
        invoke(0, "write", 1), info(0, "write"),
        invoke(1, "cas", [1, 2]), info(1, "cas"),
        invoke(2, "write", 0), ok(2, "write", 0),
        invoke(2, "read"), ok(2, "read", 2),
    )
    assert check(CAS_REGISTER, h).valid is True
    # each timed-out op takes effect at most once: 2 cannot be read twice around a 0
    again = h + (invoke(2, "write", 0), ok(2, "write", 0), invoke(2, "read"), ok(2, "read", 2))
    assert check(CAS_REGISTER, again).valid is False


def test_alike_timed_out_writes_each_take_effect_at_most_once() -> None:
    """Two timed-out write(1)s explain two reads of 1 after writes of 0, not three."""
    h = [invoke(0, "write", 1), invoke(1, "write", 1), info(0, "write"), info(1, "write")]
    for _ in range(2):
        h += [invoke(2, "write", 0), ok(2, "write", 0), invoke(2, "read"), ok(2, "read", 1)]
    assert check(REGISTER, tuple(h)).valid is True
    h += [invoke(2, "write", 0), ok(2, "write", 0), invoke(2, "read"), ok(2, "read", 1)]
    assert check(REGISTER, tuple(h)).valid is False
