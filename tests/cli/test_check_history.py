"""`tcmcheck check-history`: exit 0 linearizable, 1 not (with a failing sub-history), 2 bad
input (one line naming the line), 3 unknown; every input format; --json and --html."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from campaign.cli import main

STALE_READ = [
    {"process": 0, "type": "invoke", "f": "write", "key": "k", "value": 1, "time": 10},
    {"process": 0, "type": "ok", "f": "write", "key": "k", "value": 1, "time": 20},
    {"process": 1, "type": "invoke", "f": "write", "key": "k", "value": 2, "time": 30},
    {"process": 1, "type": "ok", "f": "write", "key": "k", "value": 2, "time": 40},
    {"process": 2, "type": "invoke", "f": "read", "key": "k", "value": None, "time": 50},
    {"process": 2, "type": "ok", "f": "read", "key": "k", "value": 1, "time": 60},
]


def jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(["check-history", *args])
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_linearizable_history_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ[:4])))
    assert code == 0 and out.startswith("Linearizable")


def test_a_stale_read_exits_1_and_prints_the_failing_sub_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ)))
    assert code == 1
    assert "NOT linearizable for key 'k' (model register)" in out
    sub = [json.loads(line) for line in out.split("Failing sub-history (JSONL):\n")[1].splitlines()]
    assert sub[-1] == {"process": 2, "type": "ok", "f": "read", "key": "k", "value": 1, "time": 60}
    assert len(sub) < len(STALE_READ) + 1


def test_json_output_carries_the_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ)), "--json")
    verdict = json.loads(out)
    assert code == 1 and verdict["valid"] is False and verdict["key"] == "k"
    assert verdict["failing_op"]["f"] == "read" and verdict["failing_op"]["output"] == 1
    assert (verdict["failing_op"]["call_line"], verdict["failing_op"]["return_line"]) == (5, 6)
    assert verdict["previous_ok"]["input"] == 2
    assert verdict["window"][-1]["value"] == 1


# STALE_READ with a read of 2 overlapping the write of 2: its ops no longer follow one another,
# so it is searched (a part with one order only is decided by stepping through it)
OVERLAPPING_STALE_READ = [
    *STALE_READ[:3],
    {"process": 3, "type": "invoke", "f": "read", "key": "k", "value": None, "time": 32},
    STALE_READ[3],
    {"process": 3, "type": "ok", "f": "read", "key": "k", "value": 2, "time": 42},
    *STALE_READ[4:],
]


def test_json_output_names_a_refutation_when_one_ended_the_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkers.linearizability import wgl

    path = write(tmp_path, "h.jsonl", jsonl(OVERLAPPING_STALE_READ))
    _, out, _ = run_cli(capsys, path, "--json")
    assert json.loads(out)["refutation"] is None  # the search ended on its own
    monkeypatch.setattr(wgl, "SLICE", 1)  # every search pauses at once: the refutation ends it
    code, out, _ = run_cli(capsys, path, "--json")
    refutation = json.loads(out)["refutation"]
    assert code == 1
    assert (refutation["failing_op"]["output"], refutation["failing_op"]["call_line"]) == (1, 7)
    assert refutation["spoiled_by"]["input"] == 2
    assert [o["input"] for o in refutation["repaired_too_early"]] == [1]


def test_a_timeout_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # completed writes: every order of them is tried (timed-out ones would be cheap now); one
    # value written twice (process 20 writes 0 again), or the register's guess would show at once
    # that the chains of 1 and 2 must each come first (tests/checkers/linearizability/test_bounds.py)
    values = [*range(20), 0]
    rows = [{"process": p, "type": "invoke", "f": "write", "value": v} for p, v in enumerate(values)]
    rows += [{"process": p, "type": "ok", "f": "write", "value": v} for p, v in enumerate(values)]
    for i, v in enumerate((1, 2, 1)):
        rows += [{"process": 100 + i, "type": "invoke", "f": "read"}, {"process": 100 + i, "type": "ok", "f": "read", "value": v}]
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(rows)), "--timeout", "0.3")
    assert code == 3 and out.startswith("Unknown: the time limit ran out")


def test_the_model_is_inferred_and_can_be_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"process": 0, "type": "invoke", "f": "cas", "value": [None, 1]}, {"process": 0, "type": "ok", "f": "cas", "value": [None, 1]}]
    path = write(tmp_path, "h.jsonl", jsonl(rows))
    code, out, _ = run_cli(capsys, path, "--json")
    assert code == 0 and json.loads(out)["model"] == "cas-register"
    code, _, err = run_cli(capsys, path, "--model", "register")
    assert code == 2 and "line 1: f 'cas' is not an operation of the register model" in err


def test_a_log_history_uses_the_log_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"process": 0, "type": "invoke", "f": "commit", "value": {"kind": "TRIGGER_SNAPSHOT"}},
        {"process": 0, "type": "ok", "f": "commit", "value": {"epoch": 1}},
        {"process": 1, "type": "invoke", "f": "commit", "value": {"kind": "TRIGGER_SNAPSHOT"}},
        {"process": 1, "type": "ok", "f": "commit", "value": {"epoch": 1}},
    ]
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(rows)), "--json")
    assert code == 1 and json.loads(out)["model"] == "log"
    code, out, _ = run_cli(capsys, write(tmp_path, "h2.jsonl", jsonl(rows[:2])))
    assert code == 0


def test_the_html_page_marks_the_failing_op(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "out.html"
    code, _, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ)), "--html", str(page))
    assert code == 1
    html = page.read_text()
    assert "NOT linearizable" in html and "class='op failing" not in html
    assert "failing" in html and "read() -&gt; 1" in html


def test_the_console_script_runs(tmp_path: Path) -> None:
    path = write(tmp_path, "h.jsonl", jsonl(STALE_READ))
    done = subprocess.run([sys.executable, "-m", "campaign", "check-history", path, "--json"], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["valid"] is False


# --- bad input: one line, exit 2, naming the line -------------------------------------------

MALFORMED = {
    "jsonl": [
        ('{"process": 0, "type": "invoke", "f": "read"}\n{"process": 0, "type": "ok", "f": "read", "value": 1\n', "line 2: invalid JSON"),
        ('{"process": 0, "type": "invoke", "f": "read"}\n{"process": 0, "f": "read"}\n', "line 2: missing field 'type'"),
        ('{"process": 0, "type": "invoke", "f": "read"}\n{"process": 0, "type": "done", "f": "read"}\n', "line 2: field 'type' must be"),
        ('{"process": 0, "type": "invoke", "f": "read"}\n\n{"process": 1, "type": "ok", "f": "read"}\n', "line 3: ok read of process 1 with no open invocation"),
        ('{"process": 0, "type": "invoke", "f": "write", "value": 1, "time": "now"}\n', "line 1: field 'time' must be an integer"),
        ('{"process": 0, "type": "invoke", "f": "read"}\n[1, 2]\n', "line 2: expected a JSON object"),
    ],
    "edn": [
        ('[{:process 0, :type :invoke, :f :read, :value nil}\n {:process 0, :type :ok, :f :read, :value 1}', "line 1: '[' opened here is never closed"),
        ('{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0, :type :ok, :f :read, :value "x}\n', "line 2: unterminated string"),
        ('{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0, :f :read, :value 1}\n', "line 2: op map has no :type"),
        ('{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0, :type :ok, :f :read :value}\n', "line 2: a map needs an even number of forms"),
        ('{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0, :type :ok, :f :read, :value 1]\n', "line 2: expected '}', found ']'"),
    ],
    "porcupine-kv": [
        ('{:process 0, :type :invoke, :f :get, :key "1", :value nil}\n{:process 0, :type :ok, :f :got, :key "1", :value ""}\n', "line 2: :f must be :get, :put or :append"),
        ('{:process 0, :type :invoke, :f :get, :key "1", :value nil}\n{:process 0, :type :ok, :f :get, :value ""}\n', "line 2: op map has no :key"),
        ('{:process 0, :type :invoke, :f :get, :key "1", :value nil}\n{:process 0, :type :ok, :f :get, :key "1", :value ""\n', "line 2: '{' opened here is never closed"),
    ],
    "porcupine-etcd": [
        ("INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\n", "line 2: missing value"),
        ("INFO  jepsen.util - 0\t:invoke\t:read\tnil\nWARN  something else\n", "line 2: expected 'INFO  jepsen.util"),
        ("INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - x\t:ok\t:read\t1\n", "line 2: process must be a non-negative integer"),
        ("INFO  jepsen.util - 0\t:invoke\t:cas\t[1 2\n", "line 1: '[' opened here is never closed"),
        ("INFO  jepsen.util - 0\t:invoke\t:cas\t3\n", "line 1: a cas value must be [expected new]"),
        ("INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:done\t:read\t1\n", "line 2: type must be :invoke, :ok, :fail or :info"),
        ("INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:invoke\t:read\tnil\n", "line 2: process 0 invoked read while its previous operation is open"),
    ],
}


@pytest.mark.parametrize(
    "fmt, text, message",
    [(fmt, text, message) for fmt, cases in MALFORMED.items() for text, message in cases],
)
def test_a_malformed_file_is_one_line_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, text: str, message: str
) -> None:
    path = write(tmp_path, "bad.txt", text)
    for args in ((path,), (path, "--format", fmt)):
        code, out, err = run_cli(capsys, *args)
        assert code == 2, out
        assert err.count("\n") == 1 and err.startswith("tcmcheck: error: ")
        assert message in err


def test_a_missing_file_and_a_bad_option_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, str(tmp_path / "nope.jsonl"))
    assert code == 2 and err.count("\n") == 1
    code, _, err = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ)), "--timeout", "0")
    assert code == 2 and "--timeout: expected a positive number" in err
    code, _, err = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ)), "--format", "xml")
    assert code == 2 and err.count("\n") == 1


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(jsonl(STALE_READ[:2]).encode() + b'{"process": 0, "f": "\xff"}\n')
    code, _, err = run_cli(capsys, str(path))
    assert code == 2 and "line 3: not UTF-8 text" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "path, code", [("jepsen/etcd_002.log", 0), ("jepsen/etcd_000.log", 1), ("kv/c10-ok.txt", 0), ("kv/c10-bad.txt", 1)]
)
def test_porcupine_histories_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, code: int
) -> None:
    from tests.conftest import shared_path

    source = shared_path("corpora", "porcupine", *path.split("/"))
    page = tmp_path / "page.html"
    got, out, err = run_cli(capsys, str(source), "--html", str(page), "--json")
    assert got == code, err
    verdict = json.loads(out)
    assert verdict["valid"] is (code == 0)
    assert verdict["format"] == ("porcupine-etcd" if path.startswith("jepsen") else "porcupine-kv")
    assert page.stat().st_size < 1_000_000
