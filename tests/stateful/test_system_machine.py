"""The system machine (strategies/system_machine.py) under the active Hypothesis profile, and
two of its programs written out.

In the default run (`ci`) it runs a few examples of 30 steps, the whole swarm and one aimed at
topology movements under client load (no faults, so that writes succeed and data must move);
`TCMCHECK_HYPOTHESIS_PROFILE=fuzz` runs 2,000 with the shared example database
(docs/stateful.md). The programs below are what a printed counterexample looks like: rules, and
after each the machine's invariants — the judge's incremental checks — in the order Hypothesis
runs them.
"""

from __future__ import annotations

import inspect
import os

import pytest
from hypothesis import settings

from campaign.judge.checks import CHECKS
from observed.run import ApplyFailure
from strategies.system_machine import KEY_TOKENS, SystemMachine

TestSystemMachine = SystemMachine.TestCase
TestMovements = SystemMachine.focused(frozenset({"operations"}), frozenset({"join", "leave", "move"})).TestCase
if os.environ.get("TCMCHECK_HYPOTHESIS_PROFILE", "ci") == "ci":
    # why fewer: one example drives a cluster through 30 steps and checks it after each
    TestSystemMachine.settings = settings(max_examples=15, stateful_step_count=30)
    TestMovements.settings = settings(max_examples=10, stateful_step_count=30)


def invariants(machine: SystemMachine) -> None:
    """Every invariant of the machine, in the order Hypothesis runs them (by name)."""
    for name, method in sorted(inspect.getmembers(type(machine), callable)):
        if name.startswith("judge_"):
            method(machine)


def test_every_incremental_check_of_the_judge_is_an_invariant_of_the_machine() -> None:
    names = sorted(n for n, _ in inspect.getmembers(SystemMachine, callable) if n.startswith("judge_"))
    assert names == [f"judge_{i:02d}_{c.name.replace('-', '_')}" for i, c in enumerate(CHECKS) if c.incremental]
    assert {"judge_04_clients", "judge_05_trace", "judge_09_durability"} <= set(names)


def test_a_move_onto_a_written_key_keeps_the_write() -> None:
    """RF 1: n1 owns k0 and acknowledged a write of it; n1 moves, so k0's range goes to n2 (the
    strict movement streams it from n1 before MID). Every check holds after every step; with a
    move that does not stream, the trace's streaming rule fails at MID, and the durability check
    names the lost write on the same step."""
    m = SystemMachine()
    m.boot(nodes=3, dcs=1, tokens=[0, 0, 0, 0, 0], rf=1, cms="auto", snapshot_interval=100,
           families=frozenset({"operations"}), operations=frozenset({"move"}), levels=("QUORUM", "QUORUM"))
    invariants(m)
    m.client_write(node="n2", key="k0")
    invariants(m)
    m.let_time_pass(ms=1000)
    invariants(m)
    owner = sorted(m._newest().read_replicas("kv", KEY_TOKENS[0]))
    assert owner == ["n1"]
    m.move(pick=sorted(m.joined_idle()).index("n1"), token=KEY_TOKENS[0] - 12345)
    invariants(m)
    for _ in range(3):
        m.let_time_pass(ms=1000)
        invariants(m)
    assert [(o.node, o.op, o.outcome) for o in m.c.operation_outcomes] == [("n1", "move", "completed")]
    assert sorted(m._newest().read_replicas("kv", KEY_TOKENS[0])) == ["n2"]
    m.client_read(node="n3", key="k0")
    m.let_time_pass(ms=1000)
    invariants(m)
    assert [c.read for c in m.c.history.clients if c.f == "read"] == [1]


def test_an_invariant_names_every_check_failing_on_the_same_step() -> None:
    m = SystemMachine()
    m.boot(nodes=3, dcs=1, tokens=[0, 0, 0, 0, 0], rf=1, cms=1, snapshot_interval=100,
           families=frozenset({"operations"}), operations=frozenset({"move"}), levels=("QUORUM", "QUORUM"))
    m.let_time_pass(ms=100)
    m.c.conflicts.append("epoch 1: planted")
    m.c.apply_failures.append(ApplyFailure(node="n1", epoch=1, reason="planted"))
    m.c.clock.advance_to(m.c.clock.now + 1)  # a new observation
    with pytest.raises(AssertionError, match=r"^conflict: epoch 1: planted; also failing now: apply failure: n1"):
        m.judge_00_conflicts()
