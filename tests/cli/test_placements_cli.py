"""`tcmcheck placements`: the contract's JSON, rejections (exit 1) and bad input (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from campaign.cli import main

RING = {"nodes": [{"id": "A", "dc": "dc1", "rack": "r1", "tokens": [100]},
                  {"id": "B", "dc": "dc1", "rack": "r1", "tokens": [200]},
                  {"id": "C", "dc": "dc1", "rack": "r1", "tokens": [300]}],
        "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 2}}]}
JOIN_X = [{"op": "join", "node": {"id": "X", "dc": "dc1", "rack": "r1", "tokens": [150]}}]


def write(tmp_path: Path, name: str, content: Any) -> str:
    p = tmp_path / name
    p.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(p)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_one_entry_per_epoch_with_reads_and_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "placements", write(tmp_path, "t.json", RING), "--ops", write(tmp_path, "o.json", JOIN_X))
    assert code == 0
    epochs = json.loads(out)["epochs"]
    assert [(e["epoch"], e["kind"]) for e in epochs] == [
        (0, "INITIAL"), (1, "REGISTER"), (2, "PREPARE_JOIN"), (3, "START_JOIN"), (4, "MID_JOIN"), (5, "FINISH_JOIN")]
    assert epochs[0]["placements"]["ks"]["reads"][0] == {"range": [300, 100], "replicas": ["A", "B"]}


def test_until_resume_and_cancel_express_interleaved_operations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ops = [{**JOIN_X[0], "until": "START"}, {"op": "cancel", "node": "X"}, {"op": "join", "node": JOIN_X[0]["node"], "until": "MID"},
           {"op": "resume", "node": "X"}]
    code, out, _ = run_cli(capsys, "placements", write(tmp_path, "t.json", RING), "--ops", write(tmp_path, "o.json", ops))
    assert code == 0
    kinds = [e["kind"] for e in json.loads(out)["epochs"]]
    assert kinds == ["INITIAL", "REGISTER", "PREPARE_JOIN", "START_JOIN", "CANCEL_SEQUENCE",
                     "PREPARE_JOIN", "START_JOIN", "MID_JOIN", "FINISH_JOIN"]


def test_a_rejected_step_prints_committed_epochs_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ops = [{**JOIN_X[0], "until": "PREPARE"}, {"op": "join", "node": {"id": "Y", "dc": "dc1", "rack": "r1", "tokens": [120]}}]
    code, out, err = run_cli(capsys, "placements", write(tmp_path, "t.json", RING), "--ops", write(tmp_path, "o.json", ops))
    assert code == 1
    assert [e["kind"] for e in json.loads(out)["epochs"]][-1] == "REGISTER"
    assert "PREPARE_JOIN" in err and "locked by X" in err


BAD_INPUTS = {
    "missing file": (None, None, "not found"),
    "invalid JSON": ('{"nodes": [', None, "invalid JSON"),
    "unknown node in ops": (RING, [{"op": "leave", "node": "Z"}], "unknown node 'Z'"),
    "duplicate tokens": ({**RING, "nodes": [*RING["nodes"], {"id": "D", "dc": "dc1", "rack": "r1", "tokens": [100]}]},
                         None, "duplicate token 100"),
    "unknown replication class": ({**RING, "keyspaces": [{"name": "ks", "replication": {"class": "EverywhereStrategy"}}]},
                                  None, "unknown replication class"),
    "token out of range": ({**RING, "nodes": [{"id": "A", "dc": "dc1", "rack": "r1", "tokens": [-(2**63) - 1]}]},
                           None, "outside the Murmur3 range"),
    "unknown op": (RING, [{"op": "explode", "node": "A"}], "unknown op"),
    "bad until": (RING, [{**JOIN_X[0], "until": "HALFWAY"}], "'until'"),
    "no nodes": ({"nodes": [], "keyspaces": []}, None, "at least one node"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_gets_one_line_naming_the_problem_and_exit_2(case: str, tmp_path: Path) -> None:
    topology, ops, message = BAD_INPUTS[case]
    topo_path = str(tmp_path / "missing.json") if topology is None else write(tmp_path, "t.json", topology)
    args = [sys.executable, "-m", "campaign", "placements", topo_path]
    if ops is not None:
        args += ["--ops", write(tmp_path, "o.json", ops)]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_option_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "placements", "--frobnicate")
    assert code == 2
    assert err.strip().splitlines() == ["tcmcheck: error: No such option '--frobnicate'."]
