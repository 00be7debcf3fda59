"""Every example of issue 12 (hostile input), as a regression test with its exit and message.

Each was a traceback, an error found only after the work was done, or a wrong verdict; each is
now one line on stderr and exit 2 before any long work. (The fuzz and report examples are
tests/campaign's.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.commands import simulate as simulate_command
from tests.cli.hostile import (
    HISTORY_ETCD,
    HISTORY_KV,
    JOIN_X,
    REFINE_FAILURE,
    RING,
    SCENARIO,
    assert_bad_input,
    files_under,
    invoke,
)

DEEP = "[" * 100_000 + "]" * 100_000
BIG = "9" * 5000


def put(tmp_path: Path, name: str, content: Any) -> str:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(p)


def edited(doc: Any, change: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    change(copy)
    return copy


# --- tracebacks --------------------------------------------------------------------------


def test_a_5000_digit_integer_is_refused_in_a_topology_a_jsonl_and_an_edn_history(tmp_path: Path) -> None:
    topo = put(tmp_path, "t.json", json.dumps(RING).replace("[100]", f"[{BIG}]"))
    assert_bad_input(invoke(["placements", topo]), "t.json", "integer with 5000 digits")
    jsonl = put(tmp_path, "h.jsonl", '{"process": 0, "type": "invoke", "f": "write", "value": ' + BIG + "}\n")
    assert_bad_input(invoke(["check-history", jsonl]), "h.jsonl: line 1", "integer with 5000 digits")
    edn = put(tmp_path, "h.edn", "{:process 0 :type :invoke :f :write :value " + BIG + "}\n")
    assert_bad_input(invoke(["check-history", edn]), "h.edn: line 1", "integer with 5000 digits")
    scenario = put(tmp_path, "s.json", json.dumps(SCENARIO).replace("[-100]", f"[{BIG}]"))
    assert_bad_input(invoke(["simulate", scenario]), "s.json", "integer with 5000 digits")


@pytest.mark.parametrize("command, name, text", [
    ("placements", "t.json", DEEP),
    ("prove", "t.json", DEEP),
    ("check-history", "h.edn", DEEP),
    ("check-history", "h.jsonl", '{"process": 0, "type": "invoke", "f": "write", "value": ' + DEEP + "}\n"),
    ("check-history", "d.edn", "#_" * 100_000 + "1\n"),
    ("simulate", "s.json", DEEP),
])
def test_nesting_100000_deep_is_refused_without_a_recursion_error(
        command: str, name: str, text: str, tmp_path: Path) -> None:
    assert_bad_input(invoke([command, put(tmp_path, name, text)]), name, "nested more than 100 levels deep")


def test_a_superscript_replication_factor_is_not_an_integer(tmp_path: Path) -> None:
    doc = edited(RING, lambda d: d["keyspaces"][0]["replication"].update(replication_factor="²"))
    assert_bad_input(invoke(["placements", put(tmp_path, "t.json", doc)]),
                     "t.json: keyspaces[0] (ks): replication_factor", "'²' is not an integer")
    doc = edited(RING, lambda d: d["keyspaces"][0]["replication"].update(replication_factor="3"))
    assert invoke(["placements", put(tmp_path, "t3.json", doc)])[0] == 0  # CQL's string form is fine


def test_a_superscript_process_id_in_a_porcupine_etcd_log(tmp_path: Path) -> None:
    log = put(tmp_path, "etcd.log", HISTORY_ETCD.replace("- 1 :invoke", "- ² :invoke"))
    assert_bad_input(invoke(["check-history", log]), "etcd.log: line 3", "process must be a non-negative integer")


def test_a_scenario_that_is_not_utf8(tmp_path: Path) -> None:
    data = json.dumps(SCENARIO).encode().replace(b"schema changes", b"schema \xff changes")
    assert_bad_input(invoke(["simulate", put(tmp_path, "s.json", data)]), "s.json: line 1: not UTF-8 text")


@pytest.mark.parametrize("at, message", [
    ("NaN", "NaN is not a JSON number"),
    ("Infinity", "Infinity is not a JSON number"),
    ("1e400", "number 1e400 is out of range"),
    ("1e308", "submissions[0].at_ms: expected a number in [0, 1000000000000], got 1e+308"),
    ("-5", "submissions[0].at_ms: expected a number in [0, 1000000000000], got -5"),
    ("true", "submissions[0].at_ms: expected a number, got True"),
])
def test_non_finite_and_out_of_range_times_in_a_scenario(at: str, message: str, tmp_path: Path) -> None:
    text = json.dumps(SCENARIO).replace('"at_ms": 10', f'"at_ms": {at}')
    assert_bad_input(invoke(["simulate", put(tmp_path, "s.json", text)]), "s.json", message)


# --- errors found only after the work ------------------------------------------------------


@pytest.fixture
def simulations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The clusters `simulate` builds, counted (its work, not its seconds, shows none ran)."""
    built: list[object] = []

    class Counted(simulate_command.Cluster):  # type: ignore[misc,name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(simulate_command, "Cluster", Counted)
    return built


def test_simulate_checks_its_trace_and_history_paths_before_running(tmp_path: Path, simulations: list[object]) -> None:
    scenario = put(tmp_path, "s.json", SCENARIO)
    assert_bad_input(invoke(["simulate", scenario, "--trace", "/nonexistent/t.txt"]),
                     "--trace: directory /nonexistent does not exist")
    assert_bad_input(invoke(["simulate", scenario, "--history", str(tmp_path)]), "--history", "is a directory")
    assert_bad_input(invoke(["simulate", scenario, "--trace", "/proc/x"]), "--trace: cannot write /proc/x")
    assert simulations == []  # no simulation ran
    assert files_under(tmp_path) == {"s.json"}


def test_an_output_never_overwrites_an_input_or_another_output(tmp_path: Path) -> None:
    scenario = put(tmp_path, "s.json", SCENARIO)
    before = Path(scenario).read_bytes()
    assert_bad_input(invoke(["simulate", scenario, "--trace", scenario]), "--trace", "is also an input")
    assert_bad_input(invoke(["simulate", scenario, "--trace", str(tmp_path / "o"), "--history", str(tmp_path / "o")]),
                     "--history", "is also given to --trace")
    failure = put(tmp_path, "f.json", REFINE_FAILURE)
    assert_bad_input(invoke(["shrink", failure, "--out", failure]), "--out", "is also an input")
    log = put(tmp_path, "etcd.log", HISTORY_ETCD)
    assert_bad_input(invoke(["check-history", log, "--html", log]), "--html", "is also an input")
    assert_bad_input(invoke(["simulate", scenario, "--trace", ""]), "--trace: empty path")
    assert_bad_input(invoke(["placements", ""]), "topology file: empty path")
    assert Path(scenario).read_bytes() == before and files_under(tmp_path) == {"s.json", "f.json", "etcd.log"}


def test_shrink_checks_its_output_before_shrinking(tmp_path: Path) -> None:
    failure = put(tmp_path, "f.json", REFINE_FAILURE)
    assert_bad_input(invoke(["shrink", failure, "--out", "/nonexistent/x.json"]),
                     "--out: directory /nonexistent does not exist (for /nonexistent/x.json)")
    assert files_under(tmp_path) == {"f.json"}


def test_check_history_checks_its_html_output_before_checking(tmp_path: Path) -> None:
    log = put(tmp_path, "etcd.log", HISTORY_ETCD)
    assert_bad_input(invoke(["check-history", log, "--html", "/nonexistent/h.html"]), "--html", "/nonexistent")


def test_a_scenario_asking_for_100_million_requests_is_refused_at_once(tmp_path: Path, simulations: list[object]) -> None:
    doc = edited(SCENARIO, lambda d: d["workloads"][0].update(count=100_000_000))
    assert_bad_input(invoke(["simulate", put(tmp_path, "s.json", doc)]),
                     "s.json: submissions and workloads ask for 100000002 requests (at most 100000 per scenario)")
    assert simulations == []


# --- wrong answers -------------------------------------------------------------------------


def test_an_nts_keyspace_naming_a_dc_with_no_nodes_is_bad_input_not_proved(tmp_path: Path) -> None:
    doc = edited(RING, lambda d: d["keyspaces"].append(
        {"name": "nts", "replication": {"class": "NetworkTopologyStrategy", "dc1": 2, "dc9": 3}}))
    topo = put(tmp_path, "t.json", doc)
    message = ("t.json: keyspaces[1] (nts): NetworkTopologyStrategy names datacenter 'dc9', "
               "where no node is (datacenters: dc1)")
    for command in ("placements", "prove"):
        result = invoke([command, topo])
        assert_bad_input(result, message)
        assert result[1] == ""  # no placements with empty replica groups, no "proved"
    scenario = edited(SCENARIO, lambda d: d["topology"]["keyspaces"][0].update(
        replication={"class": "NetworkTopologyStrategy", "dc2": 1}))
    assert_bad_input(invoke(["simulate", put(tmp_path, "s.json", scenario)]), "datacenter 'dc2'")


def test_a_keyspace_created_by_ops_in_a_dc_with_no_nodes_is_never_proved(tmp_path: Path) -> None:
    """The spec accepts this CREATE KEYSPACE (Cassandra would not); the commands refuse the
    vacuous quorums it leads to instead of printing empty groups or "proved"."""
    ops = [{"op": "transformation", "transformation": {"kind": "SCHEMA_CHANGE", "change": {
        "op": "CREATE_KEYSPACE", "keyspace": "k2", "replication": {"class": "NetworkTopologyStrategy", "dc9": 3}}}}]
    topo, ops_file = put(tmp_path, "t.json", RING), put(tmp_path, "o.json", ops)
    for command in ("placements", "prove"):
        result = invoke([command, topo, "--ops", ops_file])
        assert_bad_input(result, "o.json: keyspace 'k2' has no replica for range (300, 100] at epoch 1 after SCHEMA_CHANGE")
        assert result[1] == ""


def test_nan_in_a_history_is_bad_input_not_a_non_linearizable_verdict(tmp_path: Path) -> None:
    rows = ['{"process": 0, "type": "invoke", "f": "write", "value": NaN}',
            '{"process": 0, "type": "ok", "f": "write", "value": NaN}',
            '{"process": 1, "type": "invoke", "f": "read", "value": null}',
            '{"process": 1, "type": "ok", "f": "read", "value": NaN}']
    result = invoke(["check-history", put(tmp_path, "h.jsonl", "\n".join(rows) + "\n")])
    assert_bad_input(result, "h.jsonl: line 1: NaN is not a JSON number")
    assert result[1] == ""


def test_a_failure_file_edited_to_hold_nan_is_bad_input_not_a_found_bug(tmp_path: Path) -> None:
    text = json.dumps(SCENARIO).replace('"at_ms": 10', '"at_ms": NaN')
    doc = '{"tcmcheck_failure": 1, "kind": "sim", "seed": 3, "case": ' + text + "}"
    for command in ("replay", "shrink"):
        result = invoke([command, put(tmp_path, "f.json", doc)])
        assert_bad_input(result, "f.json: NaN is not a JSON number")
        assert "crash" not in result[1]
    bad_case = edited(REFINE_FAILURE, lambda d: d["case"]["topology"]["nodes"][0].update(tokens=["x"]))
    result = invoke(["replay", put(tmp_path, "g.json", bad_case)])
    assert_bad_input(result, "g.json: case.topology: nodes[0] (A): token 'x' is not an integer")
    assert files_under(tmp_path) == {"f.json", "g.json"}


@pytest.mark.parametrize("change, message", [
    (lambda d: d["submissions"][0]["transformation"].update(kind="NOPE"),
     "submissions[0].transformation: unknown transformation kind 'NOPE'"),
    (lambda d: d["topology"]["nodes"][0].pop("dc"), "topology: nodes[0] (n1): missing field 'dc'"),
    (lambda d: d["topology"]["nodes"][0].update(version="banana"),
     "topology: nodes[0] (n1): version 'banana' is not a Cassandra release"),
    (lambda d: d["settings"].update(gossip_interval_ms=0), "settings.gossip_interval_ms: expected a number in [1, "),
    (lambda d: d["faults"]["latency"].update(dist="lognormal", min_ms=None, max_ms=None, sigma=1e300),
     "faults.latency: unknown field 'max_ms'"),
    (lambda d: d.update(faults={"latency": {"dist": "lognormal", "sigma": 1e300}}),
     "faults.latency.sigma: expected a number in [0, 10], got 1e+300"),
    (lambda d: d.update(cms={"members": ["n1", "n2", "n1"]}), "cms.members: node 'n1' is listed twice"),
])
def test_scenarios_that_used_to_run_and_exit_0(change: Any, message: str, tmp_path: Path) -> None:
    result = invoke(["simulate", put(tmp_path, "s.json", edited(SCENARIO, change)), "--seed", "1"])
    assert_bad_input(result, "s.json: " + message)
    assert result[1] == ""


@pytest.mark.parametrize("options, message", [
    (["--max-states", "0"], "--max-states: expected at least 1, got 0"),
    (["--max-states", "-5"], "--max-states: expected at least 1, got -5"),
    (["--timeout", "nan"], "--timeout: expected a positive number of seconds, got nan"),
    (["--timeout", "inf"], "--timeout: expected a positive number of seconds, got inf"),
])
def test_check_history_refuses_meaningless_limits(options: list[str], message: str, tmp_path: Path) -> None:
    assert_bad_input(invoke(["check-history", put(tmp_path, "etcd.log", HISTORY_ETCD), *options]), message)


def test_a_model_that_cannot_read_the_format_is_refused(tmp_path: Path) -> None:
    """Found by the property test: `--model log` on a Porcupine kv log was a ValueError."""
    log = put(tmp_path, "kv.edn", HISTORY_KV)
    assert_bad_input(invoke(["check-history", log, "--model", "log"]),
                     f"--model log: {log} is a porcupine-kv history, which only the kv model reads")
    assert invoke(["check-history", log, "--model", "kv"])[0] == 0


def test_appending_to_a_key_that_holds_a_number_is_refused(tmp_path: Path) -> None:
    """Found while exploring: put 1 then append "b" was a TypeError inside the kv model."""
    rows = [{"process": 0, "type": "invoke", "f": "put", "key": "k", "value": 1},
            {"process": 0, "type": "ok", "f": "put", "key": "k", "value": 1},
            {"process": 1, "type": "invoke", "f": "append", "key": "k", "value": "b"},
            {"process": 1, "type": "ok", "f": "append", "key": "k", "value": "b"}]
    log = put(tmp_path, "h.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert_bad_input(invoke(["check-history", log]),
                     "h.jsonl: line 1: key 'k' is appended to, so its values are strings; put of 1")


def test_version_banana_is_refused(tmp_path: Path) -> None:
    doc = edited(RING, lambda d: d["nodes"][1].update(version="banana"))
    assert_bad_input(invoke(["prove", put(tmp_path, "t.json", doc)]),
                     "t.json: nodes[1] (B): version 'banana' is not a Cassandra release like \"6.0\" or \"5.0.2\"")
    ops = [{"op": "join", "node": {**JOIN_X[0]["node"], "version": "6"}}]
    assert_bad_input(invoke(["placements", put(tmp_path, "t2.json", RING), "--ops", put(tmp_path, "o.json", ops)]),
                     "o.json: op 0 (join) (X): version '6' is not a Cassandra release")


def test_no_command_is_one_line_and_exit_2() -> None:
    assert_bad_input(invoke([]), "missing command (one of: check-history, fuzz,", "see tcmcheck --help")
    code, out, _ = invoke(["--help"])
    assert code == 0 and "placements" in out


# --- consistency ---------------------------------------------------------------------------


def test_a_rejected_operation_exits_2_in_placements_and_prove(tmp_path: Path) -> None:
    topo = put(tmp_path, "t.json", RING)
    # without the operator layer, whose CMS reconfiguration would take A out of the CMS first
    ops = put(tmp_path, "o.json", [{"op": "leave", "node": "A", "operator_checks": False}])
    message = "o.json: the spec rejected PREPARE_LEAVE after epoch 0: A: PREPARE_LEAVE of a CMS member"
    assert_bad_input(invoke(["placements", topo, "--ops", ops]), message)
    assert_bad_input(invoke(["prove", topo, "--ops", ops]), message)


def test_file_errors_name_the_file_and_the_option(tmp_path: Path) -> None:
    assert_bad_input(invoke(["replay", str(tmp_path / "gone.json")]), f"failure file not found: {tmp_path / 'gone.json'}")
    assert_bad_input(invoke(["replay", "--kind", "bogus", "--seed", "1"]), "--kind: unknown run kind 'bogus'")
    assert_bad_input(invoke(["replay", "--kind", "sim,refine", "--seed", "1"]), "--kind: unknown run kind 'sim,refine'")
    # a problem found after parsing (pairing a history's events) still names the file
    log = put(tmp_path, "h.jsonl", '{"process": 0, "type": "ok", "f": "write", "value": 1}\n')
    assert_bad_input(invoke(["check-history", log]), "h.jsonl: line 1")
    ops = put(tmp_path, "o.json", [{"op": "leave", "node": "nobody"}])
    assert_bad_input(invoke(["placements", put(tmp_path, "t.json", RING), "--ops", ops]),
                     "o.json: op 0 (leave): unknown node 'nobody'")
    assert_bad_input(invoke(["placements", "/dev/zero"]), "topology file /dev/zero is not a regular file")
    assert_bad_input(invoke(["placements", str(tmp_path)]), f"'{tmp_path}' is a directory")


def test_user_text_cannot_break_the_one_line_rule(tmp_path: Path) -> None:
    doc = edited(RING, lambda d: d["nodes"][0].update(id="A\nsecond line\r\x1b[31m", dc=""))
    err = assert_bad_input(invoke(["placements", put(tmp_path, "t.json", doc)]), "dc and rack must not be empty")
    assert "\\n" in err
    lone = put(tmp_path, "s.json", json.dumps(RING).replace('"A"', '"\\ud800"'))
    assert_bad_input(invoke(["placements", lone]), "lone UTF-16 surrogate")


# --- EDN and Knossos' models (issue 32) --------------------------------------------------------


@pytest.mark.parametrize("name, text, needles", [
    ("unterminated.edn", "({:process 0, :type :invoke, :f :write, :value 1}\n {:process 0, :type :ok, :f :write}\n",
     ["line 1", "'(' opened here is never closed"]),
    ("tag.edn", "[{:process 0, :type :invoke, :f :write, :value #jepsen.history.Op}]\n", ["line 1", "has no value"]),
    ("unknown-f.edn", "{:process 0, :type :invoke, :f :lock, :value nil}\n{:process 0, :type :ok, :f :lock}\n",
     ["line 1", "f 'lock' is not an operation of the register model"]),
])
def test_bad_edn_and_an_unknown_f_are_one_line_and_exit_2(name: str, text: str, needles: list[str],
                                                          tmp_path: Path) -> None:
    assert_bad_input(invoke(["check-history", put(tmp_path, name, text)]), name, *needles)


def test_an_f_the_chosen_knossos_model_lacks_is_refused(tmp_path: Path) -> None:
    path = put(tmp_path, "h.edn", "{:process 0, :type :invoke, :f :acquire}\n{:process 0, :type :ok, :f :acquire}\n")
    assert_bad_input(invoke(["check-history", path, "--model", "set"]), "h.edn", "line 1",
                     "f 'acquire' is not an operation of the set model")
