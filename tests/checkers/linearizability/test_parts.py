"""A history's verdict from its parts' verdicts (`merge_verdicts`): what Spark tasks return,
put together, is what the local check says."""

from __future__ import annotations

from hypothesis import given, settings

from checkers.linearizability import KV, check, pair
from checkers.linearizability.parts import merge_verdicts, partition
from checkers.linearizability.wgl import check_operations
from tests.checkers.linearizability.strategies import histories


@settings(max_examples=100)
@given(histories("kv", max_ops=10))
def test_the_parts_verdicts_merge_into_the_histories(history: tuple) -> None:
    whole = check(KV, history)
    parts = partition(KV, pair(history))
    merged = merge_verdicts(KV.name, [check_operations(KV, ops) for _, ops in parts])
    assert (merged.valid, merged.cause) == (whole.valid, whole.cause)
    assert [p.key for p in merged.evidence.partitions] == [k for k, _ in parts]
    if whole.valid is False:
        # every failing part is searched to its end here: the first failing key is reported
        first = next(k for k, ops in parts if check_operations(KV, ops, minimize=False).valid is False)
        assert merged.evidence.key == first and merged.evidence.window


def test_no_parts_merge_into_a_linearizable_verdict() -> None:
    verdict = merge_verdicts("kv", [])
    assert verdict.valid is True and verdict.evidence.partitions == ()


def test_a_violation_a_cheap_decider_finds_is_not_waited_for_behind_a_dear_one() -> None:
    """The cheap deciders are asked of every part before the dear ones of any: a larger part
    whose ops follow one another, with a stale read (`in_sequence` refutes it), stops the
    check before the smaller part of sixteen writes in flight at once, which only the
    registers' guess decides at once (the compiled search gets a few steps an op there, and
    backtracks), gets that guess."""
    from unittest import mock

    from checkers.linearizability import CAS_REGISTER, deciders
    from checkers.linearizability.history import Operation

    n = 16
    wide = [Operation(id=i, process=i, f="write", key="a", input=i, output=None, call=i, ret=n + i) for i in range(n)]
    wide.append(Operation(id=n, process=n, f="read", key="a", input=None, output=0, call=2 * n, ret=2 * n + 1))
    line = []
    for k in range(20):  # write k, read k (the last read stale), one after another
        at = 100 + 4 * k
        line.append(Operation(id=100 + 2 * k, process=100, f="write", key="b", input=100 + k, output=None,
                              call=at, ret=at + 1))
        line.append(Operation(id=101 + 2 * k, process=100, f="read", key="b", input=None,
                              output=100 + k if k < 19 else 100, call=at + 2, ret=at + 3))
    asked = []
    full_guess = deciders.full_guess

    def counted(model, key, ops):  # type: ignore[no-untyped-def]
        asked.append(key)
        return full_guess(model, key, ops)

    with mock.patch.object(deciders, "full_guess", counted):
        verdict = check_operations(CAS_REGISTER, sorted(wide + line, key=lambda o: o.call), minimize=False)
    assert verdict.valid is False
    assert asked == []
