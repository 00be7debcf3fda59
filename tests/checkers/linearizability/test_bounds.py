"""Time and memory bounds: "unknown" with a cause, never a hang, never a wrong verdict."""

from __future__ import annotations

import time

from checkers.linearizability import REGISTER, check
from checkers.linearizability.history import Op, invoke, ok
from checkers.linearizability.verdict import CACHE_LIMIT, TIMEOUT


def hard_history(writers: int = 20) -> tuple[Op, ...]:
    """Concurrent writes of distinct values, then reads 1, 2, 1: not linearizable (each write
    takes effect once), but only after trying every order of the writes (every subset of
    them with every last value). The writes complete: with unknown outcomes they would be
    tried only where a read needs them, which makes the same history easy. One more write of
    0 (a value written twice): with unique values the register's guess reads the chains of
    1 and 2 off the values and shows at once that each must come before the other."""
    values = [*range(writers), 0]
    h = [invoke(p, "write", v) for p, v in enumerate(values)] + [ok(p, "write", v) for p, v in enumerate(values)]
    for i, v in enumerate((1, 2, 1)):
        h += [invoke(100 + i, "read"), ok(100 + i, "read", v)]
    return tuple(h)


def test_the_deadline_is_honoured_inside_one_long_search() -> None:
    start = time.monotonic()
    verdict = check(REGISTER, hard_history(), deadline=start + 0.5)
    elapsed = time.monotonic() - start
    assert verdict.valid == "unknown" and verdict.cause == TIMEOUT
    # behaviour, not speed: the search stopped at its deadline instead of running on (the
    # margin is wide because the machines are shared; the speed lives in benchmarks/)
    assert elapsed < 0.5 + 5


def test_a_full_memo_gives_unknown_rather_than_exhausting_memory() -> None:
    verdict = check(REGISTER, hard_history(), max_cache=5_000)
    assert verdict.valid == "unknown" and verdict.cause == CACHE_LIMIT


def test_a_small_hard_history_is_still_decided() -> None:
    assert check(REGISTER, hard_history(writers=8)).valid is False


def _bench() -> object:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_linearizability.py"
    spec = importlib.util.spec_from_file_location("bench_linearizability", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ten_thousand_operations_over_ten_keys_are_decided() -> None:
    """Its time is benchmarks/bench_linearizability.py's to report (target: under 10 s)."""
    from checkers.linearizability import KV

    history = _bench().kv_history(10_000, keys=10, processes=5)  # type: ignore[attr-defined]
    assert check(KV, history).valid is True


def test_two_hundred_ops_from_twenty_processes_answer_within_the_timeout() -> None:
    history = _bench().register_history(200, processes=20)  # type: ignore[attr-defined]
    reads = [i for i, e in enumerate(history) if e.type == "ok" and e.f == "read"]
    i = reads[len(reads) // 2]
    bad = history[:i] + (Op(process=history[i].process, type="ok", f="read", value=-1),) + history[i + 1 :]
    for h in (history, bad):
        start = time.monotonic()
        verdict = check(REGISTER, h, deadline=start + 2.0)
        assert time.monotonic() - start < 2.0 + 5  # answered or gave up at its deadline: no hang
        assert verdict.valid in (h is history, "unknown")


def test_an_unfinished_search_still_shows_how_far_it_got() -> None:
    from checkers.linearizability import explain

    verdict = check(REGISTER, hard_history(), max_cache=5_000)
    [part] = verdict.evidence.partitions
    assert part.valid == "unknown" and len(part.linearization) > 0
    assert "deepest partial linearization" in explain(verdict)


def _families() -> object:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "history_families.py"
    spec = importlib.util.spec_from_file_location("history_families", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _decided_cases() -> list[tuple[str, tuple[Op, ...]]]:
    """Histories that need some search (histories unlike Porcupine's, linearizable and not,
    and the hard register history), small enough to decide in well under a second."""
    families = _families()
    cases = [(f"hard register {n}", hard_history(n)) for n in (6, 8, 10, 12)]
    for family in ("kv-reuse", "cas-register", "replicated-register"):
        for linearizable in (True, False):
            history = families.generate(family, 300, 10, linearizable, 7)  # type: ignore[attr-defined]
            cases.append((f"{family} {'ok' if linearizable else 'bad'}", history))
    return cases


def test_the_verdict_does_not_depend_on_the_time_limit_when_both_runs_decide() -> None:
    """Same history, same verdict: a time limit may turn it into "unknown", never into the
    other decided verdict (the order of the work depends on the history, not the clock)."""
    from checkers.linearizability import CAS_REGISTER, KV

    decided = undecided = 0
    for name, history in _decided_cases():
        model = KV if name.startswith("kv") else REGISTER if name.startswith("hard") else CAS_REGISTER
        reference = check(model, history, minimize=False)
        assert reference.valid != "unknown", name
        for seconds in (0.0, 1e-4, 1e-3, 3e-3, 1e-2, 0.1):
            verdict = check(model, history, deadline=time.monotonic() + seconds, minimize=False)
            if verdict.valid == "unknown":
                undecided += 1
                assert verdict.cause == TIMEOUT
            else:
                decided += 1
                assert (verdict.valid, verdict.cause) == (reference.valid, reference.cause), (name, seconds)
    assert decided and undecided  # (both kinds of run were compared)


def test_the_verdict_does_not_depend_on_the_memo_limit_when_both_runs_decide() -> None:
    decided = undecided = 0
    for writers in (6, 8, 10):
        history = hard_history(writers)
        reference = check(REGISTER, history, minimize=False)
        for cap in (1, 10, 100, 1_000, 10_000):
            verdict = check(REGISTER, history, max_cache=cap, minimize=False)
            if verdict.valid == "unknown":
                undecided += 1
                assert verdict.cause == CACHE_LIMIT
            else:
                decided += 1
                assert verdict.valid is reference.valid
    assert decided and undecided


def test_a_full_memo_says_how_to_raise_the_limit() -> None:
    from checkers.linearizability import explain

    verdict = check(REGISTER, hard_history(), max_cache=5_000)
    assert "--max-states" in explain(verdict)
