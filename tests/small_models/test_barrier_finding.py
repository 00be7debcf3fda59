"""The finding `replaced-node-barrier-gap` (campaign/known_findings.py), pinned down.

Cassandra's ProgressBarrier leaves the node being replaced out of the replicas it waits for
(BootstrapAndReplace builds `new ProgressBarrier(..., true)`; the replaced node is assumed dead).
If it is only partitioned, it still coordinates at its old epoch, and the prover's barrier mode
finds QUORUM reads and writes that miss each other. The fix `barrier-waits-for-replaced` waits
for it too (while it is reachable) and the theorem holds again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.cli import main
from checkers.quorum.barrier import prove_barrier
from checkers.quorum.from_spec import history_from_run, step_barriers
from spec.operations import Replace, run_operations
from spec.replication import SimpleStrategy
from tests.spec.helpers import node, ring

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RF3 = SimpleStrategy(replication_factor=3)


def replace_b_by_x() -> tuple:  # type: ignore[type-arg]
    topo = ring(node("A", 100), node("B", 200), node("C", 300), node("D", 400), replication=RF3)
    run = run_operations(topo, [Replace(node="B", by=node("X"))])
    assert run.rejection is None
    return run.states, run.transformations


def test_the_barrier_leaves_the_replaced_node_out() -> None:
    states, ts = replace_b_by_x()
    barriers = step_barriers(states, ts)
    assert [b.epoch for b in barriers] == [3, 4, 5]  # START, MID and FINISH_REPLACE
    assert all("B" not in r.participants for b in barriers for r in b.ranges)
    fixed = step_barriers(states, ts, waits_for_replaced=True)
    assert any("B" in r.participants for b in fixed for r in b.ranges)


def test_a_partitioned_replaced_node_lets_a_stale_read_miss_a_write() -> None:
    states, ts = replace_b_by_x()
    verdict = prove_barrier(history_from_run(states, ts))
    assert verdict.valid is False
    stale = [c for c in verdict.counterexamples if "B" in c.read_quorum and c.read_epoch < c.write_epoch]
    assert stale and all(not set(c.read_quorum) & set(c.write_quorum) for c in stale)
    assert prove_barrier(history_from_run(states, ts, waits_for_replaced=True)).valid is True


@pytest.mark.parametrize(("fix", "code"), [((), 1), (("--fix", "barrier-waits-for-replaced"), 0)])
def test_prove_barrier_exit_codes(fix: tuple[str, ...], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["prove", str(EXAMPLES / "cep21-rf3-ring.json"), "--ops", str(EXAMPLES / "replace-b-by-x.json"),
            "--barrier", *fix]
    assert main(args) == code
    assert ('"counterexample"' in capsys.readouterr().out) == (code == 1)
