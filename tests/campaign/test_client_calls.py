"""Client calls paired from a run's history (`campaign.run.calls.completed_calls`), which the
client rules (stale reads, the regular register, stream losses) and the evidence all read."""

from __future__ import annotations

from campaign.run.calls import completed_calls
from impl.history import Op


def _op(process: int, type_: str, f: str, value: str, time: int, key: str = "k0") -> Op:
    return Op(process=process, type=type_, f=f, value=value, time=time, node="n1", key=key)


def test_calls_pair_by_process_in_the_order_they_complete() -> None:
    history = [
        _op(1, "invoke", "write", "1", 10),
        _op(2, "invoke", "read", "null", 11),
        _op(3, "invoke", "write", "3", 12),
        _op(2, "ok", "read", "1", 20),  # completes first though invoked second
        _op(1, "info", "write", "1", 30),  # timed out: still a completed call
        _op(2, "invoke", "write", "2", 31),  # the same process again
        _op(2, "fail", "write", "2", 40),
        # process 3 never completes: no call
    ]
    calls = completed_calls(history)
    assert [(start.time, done.time) for start, done in calls] == [(11, 20), (10, 30), (31, 40)]
    assert [(start.process, start.value, done.type) for start, done in calls] == [
        (2, "null", "ok"), (1, "1", "info"), (2, "2", "fail")]


def test_a_completion_with_no_invoke_is_left_out() -> None:
    history = [_op(5, "ok", "read", "7", 3), _op(6, "invoke", "read", "null", 4), _op(6, "ok", "read", "7", 9)]
    assert [(s.process, d.time) for s, d in completed_calls(history)] == [(6, 9)]
