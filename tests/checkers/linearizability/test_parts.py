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
