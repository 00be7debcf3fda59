"""What a Jepsen user expects of `check-history`: `--output edn` prints Knossos' result map
(`{:valid? false, :op ..., :previous-ok ...}`, `{:valid? :unknown, :cause :timeout}`, and
`jepsen.independent`'s `:results`/`:failures` for keyed histories), a JSON array of events is
read as well as JSON lines, and the failing sub-history is printed in the input's format.

The issue: "Jepsen users expect `check-history` to print an EDN result with `:valid?` (and the
anomaly) when asked, and to accept a JSON array of events as well as JSON lines (today a JSON
file gives `invalid JSON at column 2`). The failing sub-history is printed as JSON lines even
when the input was EDN."
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.errors import BadInput
from campaign.formats.history import detect_format, parse_history
from campaign.formats.history_edn import Keyword, read_all
from tests.cli.test_check_history import STALE_READ, jsonl, run_cli, write
from tests.cli.test_check_history_formats import JEPSEN_EDN

K = Keyword


def edn_of(text: str) -> Any:
    [(_, value)] = read_all(text)
    return value


def json_array(rows: list[dict[str, Any]]) -> str:
    """Pretty-printed, as `json.dump(events, f, indent=2)` writes it."""
    return json.dumps(rows, indent=2) + "\n"


# ---------------------------------------------------------------- a JSON array of events


@pytest.mark.parametrize("text", [
    '[{"process": 0, "type": "invoke", "f": "read"}]',
    '[\n  {\n    "process": 0,\n    "type": "invoke"\n  }\n]',
    "[]\n",
])
def test_a_json_array_is_detected(text: str) -> None:
    assert detect_format(text) == "json"


def test_a_json_array_gets_the_verdict_of_the_same_events_as_json_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parsed = parse_history(json_array(STALE_READ))
    assert parsed.format == "json" and parsed.ops == parse_history(jsonl(STALE_READ)).ops
    assert parsed.lines == (2, 10, 18, 26, 34, 42)  # where each object starts
    code, out, _ = run_cli(capsys, write(tmp_path, "h.json", json_array(STALE_READ)), "--json")
    assert code == 1 and json.loads(out)["failing_op"]["call_line"] == 34
    code, out, _ = run_cli(capsys, write(tmp_path, "ok.json", json_array(STALE_READ[:4])))
    assert code == 0 and out.startswith("Linearizable")


@pytest.mark.parametrize("text, message", [
    ('[{"process": 0, "type": "invoke", "f": "read"},\n {"process": 0,', "invalid JSON at line 2"),
    ('[{"process": 0, "type": "invoke", "f": "read"},\n 7]', "line 2: expected a JSON object, got int"),
    ('[{"process": 0, "type": "invoke", "f": "read"},\n {"process": 0, "type": "done", "f": "read"}]',
     "line 2: field 'type' must be invoke, ok, fail or info"),
    ('[{"process": 0, "type": "invoke", "f": "read", "value": NaN}]', "NaN is not a JSON number"),
])
def test_a_bad_json_array_is_one_line_exit_2(text: str, message: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "h.json", text)
    code, out, err = run_cli(capsys, path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and path in err and message in err, err


# ---------------------------------------------------------------- the sub-history in the input's format


def test_an_edn_history_gets_its_failing_sub_history_in_edn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, write(tmp_path, "history.edn", JEPSEN_EDN))
    assert code == 1
    sub = out.split("Failing sub-history (EDN):\n")[1].splitlines()
    ops = [edn_of(line) for line in sub]
    # the events as the file wrote them: keywords stay keywords, [k v] tuples stay tuples
    assert ops[-1] == {K("type"): K("ok"), K("f"): K("read"), K("value"): (K("x"), 2), K("process"): 1,
                       K("time"): 500, K("index"): 6}
    # and it is a history check-history reads again, with the same verdict
    code, _, _ = run_cli(capsys, write(tmp_path, "sub.edn", "\n".join(sub) + "\n"))
    assert code == 1


def test_a_json_array_gets_its_failing_sub_history_as_a_json_array(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, write(tmp_path, "h.json", json_array(STALE_READ)))
    assert code == 1
    sub = json.loads(out.split("Failing sub-history (JSON):\n")[1])
    assert sub[-1] == STALE_READ[-1] and len(sub) <= len(STALE_READ)
    code, _, _ = run_cli(capsys, write(tmp_path, "sub.json", json.dumps(sub)))
    assert code == 1


def test_a_porcupine_etcd_log_gets_its_failing_sub_history_as_log_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = ("INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
           "INFO  jepsen.util - 0\t:ok\t:write\t1\n"
           "INFO  jepsen.util - 1\t:invoke\t:read\tnil\n"
           "INFO  jepsen.util - 1\t:ok\t:read\t2\n")
    code, out, _ = run_cli(capsys, write(tmp_path, "etcd.log", log))
    assert code == 1
    assert out.split("Failing sub-history (Porcupine etcd log):\n")[1] == (
        "INFO  jepsen.util - 1\t:invoke\t:read\tnil\nINFO  jepsen.util - 1\t:ok\t:read\t2\n")


# ---------------------------------------------------------------- --output edn: Knossos' result


def test_output_edn_of_a_stale_read_is_knossos_result_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{k: v for k, v in r.items() if k != "key"} for r in STALE_READ]  # one register
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(rows)), "--output", "edn")
    assert code == 1
    result = edn_of(out)
    assert result[K("valid?")] is False
    # :op is the completion no linearization reaches, :previous-ok the one before its call
    assert result[K("op")] == {K("process"): 2, K("type"): K("ok"), K("f"): K("read"), K("value"): 1,
                               K("time"): 60}
    assert result[K("previous-ok")][K("value")] == 2
    assert result[K("previous-ok")][K("type")] == K("ok")
    assert result[K("sub-history")][-1] == result[K("op")]
    assert result[K("sub-history-minimal?")] is True


def test_output_edn_of_a_keyed_jepsen_history_is_the_independent_shape(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, write(tmp_path, "history.edn", JEPSEN_EDN), "--output", "edn")
    assert code == 1
    result = edn_of(out)
    assert result[K("valid?")] is False and result[K("failures")] == (K("x"),)
    x = result[K("results")][K("x")]
    assert x[K("valid?")] is False
    assert x[K("op")][K("value")] == (K("x"), 2)  # as the input wrote it
    assert x[K("previous-ok")][K("value")] == (K("x"), 1)
    # the search stops at the first key that fails: the others are not decided
    others = {k: v for k, v in result[K("results")].items() if k != K("x")}
    assert all(v in ({K("valid?"): True}, {K("valid?"): K("unknown"), K("cause"): K("not-searched")})
               for v in others.values())


def test_output_edn_of_a_linearizable_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ[:4])), "--output", "edn")
    assert code == 0
    assert edn_of(out) == {K("valid?"): True, K("results"): {"k": {K("valid?"): True}}, K("failures"): ()}


def test_output_edn_of_a_timeout_is_unknown_with_its_cause(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    values = [*range(20), 0]  # a value written twice keeps it hard (test_check_history.py)
    rows = [{"process": p, "type": "invoke", "f": "write", "value": v} for p, v in enumerate(values)]
    rows += [{"process": p, "type": "ok", "f": "write", "value": v} for p, v in enumerate(values)]
    for i, v in enumerate((1, 2, 1)):
        rows += [{"process": 100 + i, "type": "invoke", "f": "read"},
                 {"process": 100 + i, "type": "ok", "f": "read", "value": v}]
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(rows)), "--timeout", "0.3", "--output", "edn")
    assert code == 3
    assert edn_of(out) == {K("valid?"): K("unknown"), K("cause"): K("timeout")}


def test_json_and_another_output_together_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ)), "--json", "--output", "edn")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--json: not with --output edn" in err
    code, out, _ = run_cli(capsys, write(tmp_path, "h.jsonl", jsonl(STALE_READ)), "--output", "json")
    assert code == 1 and json.loads(out)["valid"] is False


def test_a_json_array_not_of_events_is_bad_input() -> None:
    with pytest.raises(BadInput, match="expected a JSON object"):
        parse_history('[{"process": 0, "type": "invoke", "f": "read"}, "x"]')
