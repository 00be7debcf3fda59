"""`tcmcheck prove` (campaign/commands/prove.py): DESIGN's command-line contract.

Golden README: "every pair of consecutive states intersects, but states two steps apart do not —
a read quorum of two old owners at the StartJoin epoch and a write quorum of two new owners at
the FinishJoin epoch can be disjoint (the CEP's "Coordinator 1 reads A,B; Coordinator 2 writes
C,X")... `tcmcheck prove` must prove window 1 and find such a counterexample at window 2."
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.cli import main
from tests.conftest import shared_path

RF3_RING = {
    "nodes": [{"id": n, "dc": "dc1", "rack": "r1", "tokens": [t]}
              for n, t in (("A", 100), ("B", 200), ("C", 300), ("D", 400))],
    "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}],
}
JOIN_X = [{"op": "join", "node": {"id": "X", "dc": "dc1", "rack": "r1", "tokens": [150]}}]
TWO_DCS = {
    "nodes": [{"id": n, "dc": dc, "rack": "r1", "tokens": [t]}
              for n, dc, t in (("A", "dc1", 100), ("B", "dc1", 200), ("C", "dc1", 300),
                               ("D", "dc2", 150), ("E", "dc2", 250), ("F", "dc2", 350))],
    "keyspaces": [{"name": "nts", "replication": {"class": "NetworkTopologyStrategy", "dc1": 3, "dc2": 3}}],
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    """Run `tcmcheck prove ARGS` in-process: (exit status, parsed stdout or None, stderr)."""
    try:
        status = main(["prove", *args])
    except SystemExit as e:
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out.strip() else None), err


@pytest.fixture
def ring(tmp_path: Path) -> tuple[str, str]:
    topo, ops = tmp_path / "rf3-ring.json", tmp_path / "join-x.json"
    topo.write_text(json.dumps(RF3_RING))
    ops.write_text(json.dumps(JOIN_X))
    return str(topo), str(ops)


def test_consecutive_epochs_of_the_ceps_join_are_proved(capsys: pytest.CaptureFixture[str], ring: tuple[str, str]) -> None:
    status, out, _ = run(capsys, ring[0], "--ops", ring[1])
    assert status == 0
    assert out == {"result": "proved", "checked": out["checked"], "counterexamples": []}
    assert out["checked"] > 0


def test_window_two_shows_the_ceps_disjoint_read_and_write(capsys: pytest.CaptureFixture[str], ring: tuple[str, str]) -> None:
    status, out, _ = run(capsys, ring[0], "--ops", ring[1], "--window", "2")
    assert status == 1 and out["result"] == "counterexample"
    assert {"keyspace": "ks", "range": [100, 150], "read_epoch": 3, "write_epoch": 5,
            "read_quorum": ["B", "D"], "write_quorum": ["C", "X"]} in out["counterexamples"]
    for c in out["counterexamples"]:
        assert set(c) == {"keyspace", "range", "read_epoch", "write_epoch", "read_quorum", "write_quorum"}
        assert c["read_quorum"] == sorted(c["read_quorum"]) and not set(c["read_quorum"]) & set(c["write_quorum"])


@pytest.mark.parametrize(("read_cl", "write_cl", "status"), [("ONE", "ALL", 0), ("ALL", "ONE", 0), ("ONE", "ONE", 1)])
def test_one_and_all_levels(capsys: pytest.CaptureFixture[str], ring: tuple[str, str], read_cl: str,
                            write_cl: str, status: int) -> None:
    got, out, err = run(capsys, ring[0], "--ops", ring[1], "--read-cl", read_cl, "--write-cl", write_cl)
    assert got == status
    if status == 1:
        assert "unsafe by design" in err


def test_the_golden_files_give_the_same_answers(capsys: pytest.CaptureFixture[str]) -> None:
    topo = str(shared_path("golden", "cep21-rf3-ring.json"))
    ops = str(shared_path("golden", "cep21-join-x.json"))
    assert run(capsys, topo, "--ops", ops)[0] == 0
    status, out, _ = run(capsys, topo, "--ops", ops, "--window", "2")
    assert status == 1
    assert any(c["read_quorum"] == ["B", "D"] and c["write_quorum"] == ["C", "X"] for c in out["counterexamples"])
    for read_cl, write_cl, expected in (("ONE", "ALL", 0), ("ALL", "ONE", 0), ("ONE", "ONE", 1)):
        assert run(capsys, topo, "--ops", ops, "--read-cl", read_cl, "--write-cl", write_cl)[0] == expected


def test_the_barrier_mode_proves_each_quorum_and_refutes_one(capsys: pytest.CaptureFixture[str], ring: tuple[str, str]) -> None:
    assert run(capsys, ring[0], "--ops", ring[1], "--barrier")[0] == 0
    status, out, _ = run(capsys, ring[0], "--ops", ring[1], "--barrier", "--barrier-cl", "ONE")
    assert status == 1
    assert any(c["read_epoch"] == 3 and c["write_epoch"] == 5 for c in out["counterexamples"])


def test_local_quorum_in_two_dcs_is_reported_unsafe_by_design(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    topo = tmp_path / "two-dcs.json"
    topo.write_text(json.dumps(TWO_DCS))
    assert run(capsys, str(topo), "--read-cl", "LOCAL_QUORUM", "--write-cl", "LOCAL_QUORUM")[0] == 0
    status, out, err = run(capsys, str(topo), "--read-cl", "LOCAL_QUORUM", "--write-cl", "LOCAL_QUORUM",
                           "--read-dc", "dc1", "--write-dc", "dc2")
    assert status == 1 and "unsafe by design" in err
    c = out["counterexamples"][0]
    assert c["read_epoch"] == c["write_epoch"] == 0
    assert set(c["read_quorum"]) <= {"A", "B", "C"} and set(c["write_quorum"]) <= {"D", "E", "F"}
    status, _, err = run(capsys, str(topo), "--read-cl", "QUORUM", "--write-cl", "LOCAL_QUORUM", "--local-dc", "dc2")
    assert status == 1 and "unsafe by design" in err


@pytest.mark.parametrize(("args", "message"), [
    (("--read-cl", "SERIALISH"), "unknown consistency level"),
    (("--local-dc", "dc9"), "unknown datacenter"),
    (("--window", "-1"), "--window"),
    (("--ops", "/nonexistent/ops.json"), "not found"),
])
def test_bad_input_is_one_line_and_exit_two(capsys: pytest.CaptureFixture[str], ring: tuple[str, str],
                                            args: tuple[str, ...], message: str) -> None:
    status, out, err = run(capsys, ring[0], *args)
    assert status == 2 and out is None
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_missing_topology_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "/nonexistent/topology.json")
    assert status == 2 and err.startswith("tcmcheck: error:")


def test_a_terminal_gets_a_summary_naming_the_disjoint_quorums(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, ring: tuple[str, str]
) -> None:
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    status = main(["prove", ring[0], "--ops", ring[1], "--window", "2"])
    out = capsys.readouterr().out
    assert status == 1
    assert "counterexample" in out and "{B, D}" in out and "{C, X}" in out
    assert main(["prove", ring[0], "--ops", ring[1], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "proved"


def test_output_does_not_depend_on_hash_randomisation(ring: tuple[str, str]) -> None:
    """Determinism (STYLE.md): sorted ids, sorted counterexamples, the same z3 script each time."""
    import os
    import subprocess
    import sys

    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-m", "campaign", "prove", ring[0], "--ops", ring[1], "--window", "3"],
                              capture_output=True, text=True, env=env, check=False)
        assert done.returncode == 1, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_a_replication_factor_above_the_ring_is_proved_with_a_vacuity_warning(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # RF 7 on 4 nodes: QUORUM needs 4 of a 4-replica group (available), ALL needs 7 (never).
    topo = tmp_path / "rf7.json"
    topo.write_text(json.dumps({**RF3_RING, "keyspaces": [
        {"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 7}}]}))
    status, out, err = run(capsys, str(topo), "--read-cl", "QUORUM", "--write-cl", "QUORUM")
    assert status == 0 and "warnings" not in out and "warning" not in err
    status, out, err = run(capsys, str(topo), "--read-cl", "ALL", "--write-cl", "ONE")
    assert status == 0 and out["result"] == "proved"
    assert len(out["warnings"]) == 1 and "vacuous on 4 of 8" in out["warnings"][0]
    assert "a read at ALL" in out["warnings"][0] and "needs 7 replicas and the range has 4" in out["warnings"][0]
    assert err.startswith("tcmcheck: warning: vacuous") and err.count("\n") == 1


def test_an_ordinary_proof_carries_no_warning(capsys: pytest.CaptureFixture[str], ring: tuple[str, str]) -> None:
    status, out, err = run(capsys, ring[0], "--ops", ring[1], "--read-cl", "ALL", "--write-cl", "ONE")
    assert status == 0 and "warnings" not in out and err == ""
