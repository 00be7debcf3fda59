"""Every sim failure carries its evidence (campaign/judge/evidence.py): the issue's "Replay prints
`clients: not-linearizable` and nothing else: not the key, the read, the write it missed, the
nodes and epochs involved, or the topology step in flight ... A stuck replace ... ended with no
operation in the summary." Acceptance: `tcmcheck replay` of a simulated client failure prints
the missed write, the stale read and the epochs in a few lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attrs import evolve

from campaign.cli import main
from campaign.formats.scenario import parse_scenario
from campaign.judge.evidence import Evidence
from campaign.judge.judgement import judge
from campaign.kinds import checked, load_failure
from campaign.kinds.sim import payload
from campaign.run.record import Outcome
from impl.cluster import run_scenario

ROOT = Path(__file__).resolve().parents[2]
STALE = ROOT / "examples" / "findings" / "stale-coordinator-read.json"
DATA = ROOT / "tests" / "impl" / "sim" / "data"


def evidence(outcome: Outcome) -> Evidence | None:
    return payload(outcome).evidence


@pytest.fixture(scope="module")
def stale() -> Evidence:
    found = evidence(checked(load_failure(STALE)))
    assert found is not None
    return found


def test_a_stale_read_names_the_key_the_missed_write_and_the_epochs(stale: Evidence) -> None:
    """The pinned finding: n12, cut off at epoch 5, reads k0 from n03 and n08 after n01 wrote 1
    at epoch 10 to j1, n03, n09 (acknowledged by j1 and n09) once j1's join finished."""
    assert stale.key == "kv/k0"
    assert stale.missed_write is not None and stale.stale_read is not None
    write, read = stale.operations[stale.missed_write], stale.operations[stale.stale_read]
    assert (write.f, write.value, write.coordinator, write.level, write.plan_epoch) == ("write", 1, "n01", "QUORUM", 10)
    assert write.replicas == ("j1", "n03", "n09") and [a[0] for a in write.answers] == ["j1", "n09"]
    assert (read.f, read.value, read.coordinator, read.plan_epoch) == ("read", None, "n12", 5)
    assert read.replicas == ("n03", "n08") and {a[0]: a[2] for a in read.answers} == {"n03": 10, "n08": 8}
    assert read.invoked_ns > (write.completed_ns or 0)
    # the topology steps between the reader's epoch and the end of the read: j1's join
    assert [(s.epoch, s.kind, s.node) for s in stale.steps][-3:] == [
        (8, "START_JOIN", "j1"), (9, "MID_JOIN", "j1"), (10, "FINISH_JOIN", "j1")]
    assert all(s.epoch > read.plan_epoch for s in stale.steps)  # type: ignore[operator]


def test_the_evidence_survives_its_json(stale: Evidence) -> None:
    assert Evidence.from_json(json.loads(json.dumps(stale.to_json()))) == stale


def test_replay_prints_the_evidence_in_a_few_lines_beside_unchanged_json(
        capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["replay", str(STALE)])
    out, err = capsys.readouterr()
    assert status == 1
    verdict = json.loads(out)  # stdout stays one JSON document, with the evidence added
    assert verdict["evidence"]["key"] == "kv/k0"
    assert verdict["cause"].startswith("clients: not-linearizable")
    lines = err.splitlines()
    assert 3 <= len(lines) <= 8
    assert lines[0].startswith("evidence: key kv/k0 ")
    assert any(line.startswith("  missed write: write 1 by n01 at QUORUM, coordinator at epoch 10") for line in lines)
    assert any(line.startswith("  stale read: read -> None by n12 at QUORUM, coordinator at epoch 5") for line in lines)
    assert any("epoch 10 FINISH_JOIN j1" in line for line in lines)


def test_a_failure_file_carries_the_evidence(tmp_path: Path) -> None:
    spec = load_failure(STALE)
    doc = json.loads(spec.to_text(checked(spec)))
    assert doc["evidence"]["key"] == "kv/k0" and doc["evidence"]["stale_read"] is not None
    # the file with its evidence still replays (the evidence is written, never read back)
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    assert evidence(checked(load_failure(path))) == evidence(checked(spec))


def test_a_stuck_operation_says_which_operation_where_and_what_it_waited_on() -> None:
    scenario = parse_scenario(json.loads((DATA / "leave-under-lasting-loss.json").read_text()))
    result = run_scenario(scenario, 3)
    patience = scenario.settings.submit_timeout_ns * (scenario.settings.max_submit_attempts + 1)
    later = evolve(result, end_time=result.end_time + patience)  # as in test_judge_slow_operation
    found = judge(scenario, later).evidence()
    assert found is not None and found.anomaly == "liveness"
    [stuck] = found.stuck
    assert (stuck.node, stuck.op, stuck.last_step, stuck.committed) == ("n6", "leave", "START_LEAVE", False)
    assert any(s.kind == "PREPARE_LEAVE" and s.node == "n6" for s in found.steps)
    assert found.lines()[0] == ("evidence: leave driven by n6 stuck waiting for START_LEAVE to commit "
                                "(the live nodes could meet its barrier)")
    # a valid run has none
    assert judge(scenario, result).evidence() is None
