"""Writes at ALL with reads at ONE are a regular register, not a linearizable one: the judge
accepts a read at ONE that misses a write still in flight, and still fails one that misses a
write completed before the read began (the mutants' ALL/ONE variant, seed 398)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from campaign.judge.cause import REGULAR
from campaign.judge.checks.clients import regular
from campaign.kinds import checked
from campaign.run.record import RunSpec
from checkers.linearizability.model import KV
from checkers.linearizability.wgl import check
from observed.calls import history_of
from tests.calls import client_calls

DATA = Path(__file__).resolve().parents[1] / "impl" / "sim" / "data"


def test_a_read_at_one_beside_an_in_flight_write_is_no_failure() -> None:
    """A read at ONE gets a value from a replica a write at ALL has reached; a later read at ONE
    from a replica it has not reached yet gets the older value (seed 393; 398 before gossip
    carried heartbeats: n8 read k2 = 47 from d1, then d2 read 91 from n9). Before the
    correction the kv linearizability check failed such runs."""
    out = checked(RunSpec(kind="sim", seed=393, case=json.loads((DATA / "all-one-inflight-write.json").read_text())))
    assert out.valid, out.cause
    assert out.details["clients"]["cause"] == REGULAR


def _op(process: int, type_: str, f: str, value: Any, time: int) -> tuple[int, str, str, Any, int]:
    return (process, type_, f, value, time)


def _judged(ops: list[tuple[int, str, str, Any, int]]) -> tuple[bool | str, str]:
    calls = client_calls(*ops)
    verdict = check(KV, history_of(calls))
    assert verdict.valid is False
    ctx = SimpleNamespace(scenario=SimpleNamespace(clock_skew=()), observed=SimpleNamespace(clients=calls))
    out = regular(ctx, verdict)  # type: ignore[arg-type]
    return out.valid, out.cause


def test_regular_accepts_new_then_old_while_the_write_is_in_flight() -> None:
    ops = [_op(1, "invoke", "write", 1, 0), _op(2, "invoke", "read", None, 10), _op(2, "ok", "read", 1, 20),
           _op(3, "invoke", "read", None, 30), _op(3, "ok", "read", None, 40), _op(1, "ok", "write", 1, 100)]
    assert _judged(ops) == (True, REGULAR)


def test_regular_still_fails_a_read_that_misses_a_completed_write() -> None:
    ops = [_op(1, "invoke", "write", 1, 0), _op(1, "ok", "write", 1, 10),
           _op(2, "invoke", "read", None, 20), _op(2, "ok", "read", None, 30)]
    assert _judged(ops) == (False, "not-linearizable")
    ops = [_op(1, "invoke", "write", 1, 0), _op(1, "ok", "write", 1, 10),
           _op(4, "invoke", "write", 2, 20), _op(4, "ok", "write", 2, 30),
           _op(2, "invoke", "read", None, 40), _op(2, "ok", "read", 1, 50)]
    assert _judged(ops) == (False, "not-linearizable")
