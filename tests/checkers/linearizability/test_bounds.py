"""Time and memory bounds: "unknown" with a cause, never a hang, never a wrong verdict."""

from __future__ import annotations

import time

from checkers.linearizability import REGISTER, check
from checkers.linearizability.history import Op, info, invoke, ok
from checkers.linearizability.verdict import CACHE_LIMIT, TIMEOUT


def hard_history(writers: int = 20) -> tuple[Op, ...]:
    """Concurrent writes of distinct values, all timed out, then reads 1, 2, 1: not linearizable
    (each write takes effect at most once), but only after trying every subset of the writes."""
    h = [invoke(p, "write", p) for p in range(writers)] + [info(p, "write") for p in range(writers)]
    for i, v in enumerate((1, 2, 1)):
        h += [invoke(100 + i, "read"), ok(100 + i, "read", v)]
    return tuple(h)


def test_the_deadline_is_honoured_inside_one_long_search() -> None:
    start = time.monotonic()
    verdict = check(REGISTER, hard_history(), deadline=start + 0.5)
    elapsed = time.monotonic() - start
    assert verdict.valid == "unknown" and verdict.cause == TIMEOUT
    assert elapsed < 1.5


def test_a_full_memo_gives_unknown_rather_than_exhausting_memory() -> None:
    verdict = check(REGISTER, hard_history(), max_cache=5_000)
    assert verdict.valid == "unknown" and verdict.cause == CACHE_LIMIT


def test_a_small_hard_history_is_still_decided() -> None:
    assert check(REGISTER, hard_history(writers=8)).valid is False
