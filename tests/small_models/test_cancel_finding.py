"""The known finding `cancel-after-mid` (campaign/known_findings.py), pinned down.

CANCEL_SEQUENCE reverts every applied step in one epoch, as the issue specifies and Cassandra's
BootstrapAndJoin.cancel does. After START that is safe; after MID the reads move back and the
writes narrow at once, so a MID-epoch read and a cancel-epoch write can miss each other. When
cancel changes, this test fails on purpose: update the finding with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkers.quorum.from_spec import history_from_states, step_barriers
from checkers.quorum.z3prover import prove_history
from spec.consistency import ConsistencyLevel
from spec.operations import Cancel, Join, run_operations
from spec.replication import SimpleStrategy
from spec.sequences import Step
from tests.spec.helpers import node, ring, run


def verdict_of_cancel_after(until: Step) -> bool | str:
    topo = ring(node("A", 100), replication=SimpleStrategy(replication_factor=1))
    states = run(topo, Join(node=node("X", 50), until=until), Cancel(node="X")).states
    verdict = prove_history(history_from_states(states), read_cl=ConsistencyLevel.QUORUM,
                            write_cl=ConsistencyLevel.QUORUM, window=1)
    return verdict.valid


@pytest.mark.parametrize("until", [Step.PREPARE, Step.START])
def test_cancel_before_mid_keeps_consecutive_quorums_intersecting(until: Step) -> None:
    assert verdict_of_cancel_after(until) is True


def test_cancel_after_mid_lets_a_read_and_a_write_miss_each_other() -> None:
    """RF 1: reads {X} at the MID epoch, writes {A} at the cancel epoch."""
    assert verdict_of_cancel_after(Step.MID) is False


# --- the fix `two-epoch-cancel`, alone and with `fence-reads-by-last-modified` (issue 33) ---

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _prove(*args: str) -> int:
    from campaign.cli import main

    return main(["prove", str(EXAMPLES / "cep21-rf3-ring.json"), "--ops",
                 str(EXAMPLES / "join-x-cancel-after-mid.json"), "--json", *args])


@pytest.mark.parametrize(("args", "code"), [
    ((), 1),                                              # the finding: read at 4 (MID), write at 5 (cancel)
    (("--barrier",), 1),                                  # catch-up (as read fencing gives) does not help: both at 4
    (("--fix", "two-epoch-cancel"), 0),                   # consecutive epochs intersect
    (("--fix", "two-epoch-cancel", "--window", "2"), 1),  # a coordinator two epochs behind, nothing fenced
    (("--fix", "two-epoch-cancel", "--barrier"), 0),      # the second cancel's barrier, plus catch-up
    (("--fix", "two-epoch-cancel", "--barrier", "--window", "3"), 0),
])
def test_the_prover_on_the_cancel_with_and_without_its_fixes(args: tuple[str, ...], code: int,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _prove(*args) == code
    out = json.loads(capsys.readouterr().out)
    if code == 1 and "--window" in args:
        # the pair that needs the coordinator two epochs behind: MID's read, the second cancel's write
        assert {"read_epoch": 4, "write_epoch": 6, "read_quorum": ["A", "X"], "write_quorum": ["B", "C"],
                "keyspace": "ks", "range": [400, 100]} in out["counterexamples"]


def test_the_second_cancel_of_a_split_cancel_waits_for_a_barrier() -> None:
    """checkers.quorum.from_spec.step_barriers with the fix: a barrier at the second
    CANCEL_SEQUENCE's epoch, none at the first."""
    topo = ring(node("A", 100), node("B", 200), node("C", 300), node("D", 400),
                replication=SimpleStrategy(replication_factor=3))
    fixes = frozenset({"two-epoch-cancel"})
    r = run_operations(topo, (Join(node=node("X", 150), until=Step.MID), Cancel(node="X")), fixes)
    cancels = [s.epoch for s, t in zip(r.states, r.transformations, strict=True)
               if t is not None and t.kind == "CANCEL_SEQUENCE"]
    assert len(cancels) == 2
    epochs = {b.epoch for b in step_barriers(r.states, r.transformations, two_epoch_cancel=True)}
    assert cancels[1] in epochs and cancels[0] not in epochs
    assert cancels[1] not in {b.epoch for b in step_barriers(r.states, r.transformations)}


@pytest.mark.parametrize(("name", "fixes", "valid"), [
    # X and A both at the MID epoch (the stored simulation, seed 1): fencing cannot refuse them
    ("join-mid-epoch", (), False),
    ("join-mid-epoch", ("two-epoch-cancel",), True),
    ("join-mid-epoch", ("fence-reads-by-last-modified",), False),
    ("join-mid-epoch", ("two-epoch-cancel", "fence-reads-by-last-modified"), True),
    # the coordinator two epochs behind, A at the first cancel's epoch: the barrier cannot stop it
    ("two-epochs-behind", (), False),
    ("two-epochs-behind", ("two-epoch-cancel",), False),
    ("two-epochs-behind", ("fence-reads-by-last-modified",), True),
    ("two-epochs-behind", ("two-epoch-cancel", "fence-reads-by-last-modified"), True),
])
def test_only_both_fixes_remove_the_finding_in_the_simulator(name: str, fixes: tuple[str, ...], valid: bool) -> None:
    """examples/cancel-after-mid-fixes/: two failure files; each fix alone leaves one of them."""
    from campaign.kinds import checked
    from campaign.run.record import RunSpec

    doc = json.loads((EXAMPLES / "cancel-after-mid-fixes" / f"{name}.json").read_text())
    out = checked(RunSpec(kind="sim", seed=doc["seed"], case=doc["case"], fixes=frozenset(fixes)))
    assert out.valid is valid, out.cause
    if not valid:
        assert out.cause is not None and out.cause.klass.startswith("clients: not-linearizable")
