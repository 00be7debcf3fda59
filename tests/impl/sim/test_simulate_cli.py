"""`tcmcheck simulate SCENARIO.json --seed N [--trace FILE] [--history FILE]`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign.cli import main

REPO = Path(__file__).resolve().parents[3]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("example", ["simulate-basic.json", "simulate-faults.json"])
def test_the_examples_run_and_print_a_summary(example: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    trace, history = tmp_path / "trace.txt", tmp_path / "history.jsonl"
    code, out, _ = run(["simulate", str(REPO / "examples" / example), "--seed", "3",
                        "--trace", str(trace), "--history", str(history)], capsys)
    assert code == 0
    summary = json.loads(out)
    assert summary["seed"] == 3 and summary["quiescent"]
    assert {n["applied_epoch"] for n in summary["nodes"].values()} == {summary["final_epoch"]}
    assert summary["counters"]["commits"] == summary["final_epoch"]
    assert len(trace.read_text().splitlines()) == summary["trace_events"]
    ops = [json.loads(line) for line in history.read_text().splitlines()]
    assert {op["f"] for op in ops} == {"commit"}
    assert {op["type"] for op in ops} <= {"invoke", "ok", "fail", "info"}
    code, again, _ = run(["simulate", str(REPO / "examples" / example), "--seed", "3"], capsys)
    assert json.loads(again)["trace_hash"] == summary["trace_hash"]


@pytest.mark.parametrize("doc, message", [
    ("{", "invalid JSON"),
    ('{"topology": {"nodes": []}}', "non-empty list"),
    ('{"topology": {"nodes": [{"id": "a"}]}, "submissions": [{"node": "b", "transformation": {"kind": "X"}}]}',
     "unknown node 'b'"),
    ('{"topology": {"nodes": [{"id": "a"}]}, "faults": {"loss": 2}}', "probability"),
    ('{"topology": {"nodes": [{"id": "a"}]}, "bogus": 1}', "unknown field 'bogus'"),
    ('{"topology": {"nodes": [{"id": "a", "dc": "d", "rack": "r", "tokens": ["x"]}]}}', ""),
])
def test_bad_scenarios_are_one_line_and_exit_2(doc: str, message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.json"
    f.write_text(doc)
    code, out, err = run(["simulate", str(f)], capsys)
    assert code == 2
    assert err.startswith("tcmcheck: error:") and err.count("\n") == 1
    assert message in err


def test_the_commit_history_is_a_linearizable_log(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The history feeds `tcmcheck check-history --model log` as it is."""
    history = tmp_path / "history.jsonl"
    code, _, _ = run(["simulate", str(REPO / "examples" / "simulate-faults.json"), "--seed", "8",
                      "--history", str(history)], capsys)
    assert code == 0
    code, out, err = run(["check-history", str(history), "--model", "log"], capsys)
    assert code == 0, out + err


def test_the_cep21_example_writes_a_client_history_that_check_history_accepts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history, commits = tmp_path / "h.jsonl", tmp_path / "c.jsonl"
    code, out, _ = run(["simulate", str(REPO / "examples" / "simulate-cep21-bootstrap.json"),
                        "--seed", "2", "--history", str(history), "--commit-history", str(commits),
                        "--check"], capsys)
    assert code == 0, out
    ops = [json.loads(line) for line in history.read_text().splitlines()]
    assert {op["f"] for op in ops} == {"read", "write"} and len(ops) >= 200
    assert all("key" in op for op in ops)
    assert {json.loads(line)["f"] for line in commits.read_text().splitlines()} == {"commit"}
    assert json.loads(out)["judgement"]["clients"]["valid"] is True
    code, _, _ = run(["check-history", str(history), "--model", "kv"], capsys)
    assert code == 0


@pytest.mark.parametrize(("patch", "message"), [
    ({"mode": "paxos"}, "mode: expected"),
    ({"clients": [{"keyspace": "ks", "read_cl": ["SERIAL"]}]}, "clients[0].read_cl"),
    ({"operations": [{"op": "join", "node": "n1", "tokens": [5]}]}, "already in the topology"),
    ({"operations": [{"op": "explode", "node": "n1"}]}, "operations[0].op"),
    ({"operations": [{"op": "move", "node": "n1", "tokens": []}]}, "operations[0].tokens"),
    ({"operations": [{"op": "remove", "node": "n1", "target": "zz"}]}, "unknown node 'zz'"),
    ({"cancels": [{"node": "ghost", "at_ms": 1}]}, "unknown node 'ghost'"),
    ({"settings": {"barrier_consistency": "ONE", "barrier_min_consistency": "QUORUM"}},
     "stronger than"),
    ({"clock_skew_ms": {"n1": "x"}}, "clock_skew_ms.n1"),
])
def test_bad_data_path_fields_are_one_line_errors(patch: dict[str, object], message: str,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((REPO / "examples" / "simulate-cep21-bootstrap.json").read_text())
    doc.update(patch)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    code, out, err = run(["simulate", str(path), "--seed", "1"], capsys)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
