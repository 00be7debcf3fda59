"""Property: every command survives hostile input (issue 12).

For each command, Hypothesis mutates valid documents (wrong types, missing and extra fields,
huge and non-finite numbers, deep nesting, odd Unicode, truncation, invalid bytes) and picks
invalid options, runs `tcmcheck` in-process through `campaign.cli.main`, and asserts: the exit
status is 2 — or a verdict status when the input turned out valid —, stderr holds at most one
line, no exception escapes (a traceback), an exit 2 prints no verdict on stdout, and no file
appears in the working directory but the inputs and the outputs the command was told to write.

Fast under the default `ci` profile; `TCMCHECK_HYPOTHESIS_PROFILE=thorough` runs 1000 examples
for the cheap commands and 250 for those that run a simulation, a prover or a campaign.
`fuzz` is exercised only through its options, with runs of at most one case.
"""

from __future__ import annotations

import copy
import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.cli.hostile import (
    HISTORY_EDN,
    HISTORY_ETCD,
    HISTORY_JSONL,
    HISTORY_JSONL_KV,
    HISTORY_JSONL_LOG,
    HISTORY_KV,
    OPS,
    REFINE_FAILURE,
    RING,
    SCENARIO,
    SCENARIO_MORE,
    files_under,
    invoke,
)

CHEAP = settings(max_examples=settings.default.max_examples)
COSTLY = settings(max_examples=max(settings.default.max_examples // 4, 10))


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 20),
    st.sampled_from([2**31, 2**63, -(2**63), 2**64, 10**30, 10**99, 10**6]),
    st.sampled_from([0.5, -0.0, 1e-300, 1e308, -1e308, float("nan"), float("inf"), float("-inf")]),
    st.text(max_size=6),
    st.sampled_from(["", "²", "٣", "\x00", "\ud800", "\u2028", "A\nB", "dc1", "dc9", "n1", "n2", "A", "B",
                     "X", "6.0", "ks", "JOINED", "SimpleStrategy", "NetworkTopologyStrategy", "FINISH"]),
)
HOSTILE = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.dictionaries(st.one_of(st.text(max_size=4), st.sampled_from(["id", "dc", "kind", "node", "tokens"])),
                    _SCALARS, max_size=3),
    st.builds(nested, st.just(150)),  # a fresh object each time: mutations must not leak
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """`base` with one to three structural mutations (replace, delete, add a field, duplicate)."""
    doc = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(_paths(doc)))
        op = draw(st.sampled_from(["replace", "replace", "delete", "add", "duplicate"]))
        if not path:
            if op == "replace":
                doc = copy.deepcopy(draw(HOSTILE))
            continue
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        if op == "replace":
            parent[key] = copy.deepcopy(draw(HOSTILE))
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(parent[key], dict):
            parent[key][draw(st.sampled_from(["bogus", "id", "dc", "version", "state", "at_ms"]))] = \
                copy.deepcopy(draw(HOSTILE))
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(json.loads(json.dumps(parent[key])))
    return doc


@st.composite
def damaged(draw: st.DrawFn, text: str) -> bytes:
    """`text` as bytes, sometimes truncated, given invalid bytes, a huge number or deep nesting."""
    data = text.encode("utf-8", "surrogatepass")
    how = draw(st.sampled_from(["none", "none", "none", "truncate", "bytes", "digits", "deep", "bom"]))
    at = draw(st.integers(0, len(data)))
    if how == "truncate":
        return data[:at]
    if how == "bytes":
        return data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80", b"\xef\xbb\xbf"])) + data[at:]
    if how == "digits":  # the first number (not a digit inside a string) gets 5000 digits
        return re.sub(rb"(?<=[\[ :])-?[0-9]+", b"9" * 5000, data, count=1)
    if how == "deep":
        return data[:at] + b"[" * 100_000 + data[at:]
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    return data


@st.composite
def json_file(draw: st.DrawFn, base: Any) -> bytes:
    doc = draw(mutated(base))
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    return draw(damaged(text))


def run_in_tmp(args: Callable[[Path], list[str]], inputs: dict[str, bytes],
               outputs: set[str] = frozenset()) -> tuple[int, str, str]:  # type: ignore[assignment]
    """Write `inputs` into a fresh directory, run there, check the one-line rule and the files."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for name, data in inputs.items():
            (root / name).write_bytes(data)
        code, out, err = invoke(args(root), cwd=root)
        event(f"exit {code}")
        assert err.count("\n") <= 1, err
        assert "Traceback" not in err, err
        if code == 2:
            assert err.startswith("tcmcheck: error: "), err
        extra = {f for f in files_under(root) - set(inputs)
                 if not any(f == o or f.startswith(o + "/") for o in outputs)}
        assert not extra, (extra, code, err)
        for name, data in inputs.items():  # no input is ever overwritten
            assert (root / name).read_bytes() == data, (name, code, err)
        return code, out, err


def option(name: str, values: list[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), st.sampled_from(values).map(lambda v: [name, v]))


# --- placements and prove --------------------------------------------------------------------


@CHEAP
@given(topo=json_file(RING), ops=st.one_of(st.none(), json_file(OPS)),
       indent=option("--indent", ["2", "0", "-1", "17", "1000000000", "x"]))
def test_placements_survives_hostile_input(topo: bytes, ops: bytes | None, indent: list[str]) -> None:
    inputs = {"t.json": topo} | ({"o.json": ops} if ops is not None else {})
    code, out, _ = run_in_tmp(lambda r: ["placements", "t.json", *(["--ops", "o.json"] if ops else []), *indent],
                              inputs)
    assert code in (0, 2)
    if code == 0 or out:
        assert json.loads(out)["epochs"]  # exit 2 prints only the epochs committed before a rejection


@COSTLY
@given(topo=json_file(RING), ops=st.one_of(st.none(), json_file(OPS)),
       cl=option("--read-cl", ["ONE", "QUORUM", "LOCAL_QUORUM", "EACH_QUORUM", "ALL", "bogus", ""]),
       window=option("--window", ["0", "1", "3", "-1", "1000000", "nan"]),
       dc=option("--local-dc", ["dc1", "dc9", ""]), barrier=st.sampled_from([[], ["--barrier"]]))
def test_prove_survives_hostile_input(topo: bytes, ops: bytes | None, cl: list[str], window: list[str],
                                      dc: list[str], barrier: list[str]) -> None:
    inputs = {"t.json": topo} | ({"o.json": ops} if ops is not None else {})
    code, out, _ = run_in_tmp(lambda r: ["prove", "t.json", *(["--ops", "o.json"] if ops else []),
                                         *cl, *window, *dc, *barrier, "--json"], inputs)
    assert code in (0, 1, 2, 3)
    if code == 2:
        assert out == ""
    else:
        assert json.loads(out)["result"] in ("proved", "counterexample", "unknown")


# --- check-history ---------------------------------------------------------------------------


@st.composite
def history_file(draw: st.DrawFn) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["jsonl", "jsonl-kv", "jsonl-log", "edn", "etcd", "kv"]))
    if kind.startswith("jsonl"):
        base = {"jsonl": HISTORY_JSONL, "jsonl-kv": HISTORY_JSONL_KV, "jsonl-log": HISTORY_JSONL_LOG}[kind]
        rows = draw(mutated([json.loads(line) for line in base.splitlines()]))
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows) if isinstance(rows, list) \
            else json.dumps(rows)
        return "h.jsonl", draw(damaged(text))
    base = {"edn": HISTORY_EDN, "etcd": HISTORY_ETCD, "kv": HISTORY_KV}[kind]
    lines = base.splitlines(keepends=True)
    i = draw(st.integers(0, len(lines) - 1))
    lines[i] = draw(st.sampled_from([
        lines[i], "", "\n", lines[i].replace("1", "²"), lines[i].replace("1", "1e400"),
        lines[i].replace("1", "##NaN"), lines[i].replace(":ok", ":bogus"), lines[i].replace("{", "("),
        lines[i].replace("1", "\\uD800"), lines[i].replace("1", '"\\uD800"'), lines[i].replace("1", "1/0"),
        lines[i].replace(":process 0", ":process -1"), lines[i][: len(lines[i]) // 2] + "\n",
        "#_" * 5000 + "1\n", "#{[1] [1] {}}\n", "{:process 0 :type :ok :f :read :value {[1 2] 3}}\n",
        "(" + lines[i], lines[i].replace("}", ""), lines[i].replace(":value", ":value #inst"),
        lines[i].replace(":write", ":acquire"), lines[i].replace(":write", ":txn"),
        lines[i].replace("1", "#_"), lines[i].replace("1", "\\o777"), lines[i].replace("1", "017"),
        lines[i].replace("{", "#:{"), lines[i].replace("{", "#{"), "#jepsen.history.Op" + lines[i],
        lines[i].replace(":process 0", ":process :nemesis")]))
    return f"h.{'log' if kind == 'etcd' else 'edn'}", draw(damaged("".join(lines)))


@CHEAP
@given(history=history_file(),
       fmt=option("--format", ["jsonl", "edn", "porcupine-kv", "porcupine-etcd", "bogus"]),
       model=option("--model", ["register", "cas-register", "kv", "log", "mutex", "multi-register", "set",
                                "unordered-queue", "fifo-queue", "bogus"]),
       timeout=option("--timeout", ["5", "0", "-1", "nan", "inf", "1e-9", "x"]),
       states=option("--max-states", ["1", "0", "-5", "1000"]),
       html=st.sampled_from([[], ["--html", "out.html"], ["--html", "missing/out.html"], ["--html", "."],
                             ["--html", "IN"]]),
       as_json=st.sampled_from([[], ["--json"]]))
def test_check_history_survives_hostile_input(history: tuple[str, bytes], fmt: list[str], model: list[str],
                                              timeout: list[str], states: list[str], html: list[str],
                                              as_json: list[str]) -> None:
    name, data = history
    html = [name if a == "IN" else a for a in html]
    code, out, _ = run_in_tmp(lambda r: ["check-history", name, *fmt, *model, *timeout, *states, *html, *as_json],
                              {name: data}, outputs={"out.html"})
    assert code in (0, 1, 2, 3)
    if code == 2:
        assert out == ""


# --- simulate --------------------------------------------------------------------------------


@COSTLY
@given(scenario=st.one_of(json_file(SCENARIO), json_file(SCENARIO_MORE)), seed=option("--seed", ["0", "-1", "18446744073709551616", "x"]),
       trace=st.sampled_from([[], ["--trace", "t.txt"], ["--trace", "missing/t.txt"], ["--trace", "."],
                              ["--trace", "s.json"], ["--trace", ""]]),
       history=st.sampled_from([[], ["--history", "h.jsonl"], ["--history", "/proc/h"], ["--history", "t.txt"]]),
       check=st.sampled_from([[], ["--check"]]))
def test_simulate_survives_hostile_input(scenario: bytes, seed: list[str], trace: list[str],
                                         history: list[str], check: list[str]) -> None:
    code, out, _ = run_in_tmp(lambda r: ["simulate", "s.json", *seed, *trace, *history, *check],
                              {"s.json": scenario}, outputs={"t.txt", "h.jsonl"})
    assert code in (0, 1, 2)
    if code == 2:
        assert out == ""
    else:
        assert "trace_hash" in json.loads(out)


# --- replay, shrink --------------------------------------------------------------------------


SIM_FAILURE = {"tcmcheck_failure": 1, "kind": "sim", "seed": 3, "case": SCENARIO,
               "verdict": {"valid": False, "cause": "edited"}}


@COSTLY
@given(failure=st.one_of(json_file(REFINE_FAILURE), json_file(SIM_FAILURE)),
       mode=st.sampled_from([["F"], ["F", "--kind", "refine"], ["--kind", "bogus", "--seed", "1"],
                             ["--kind", "sim,refine", "--seed", "1"], ["--kind", "refine"], ["--seed", "2"],
                             ["F", "--indent", "-1"], ["F", "--indent", "1000000000"], []]))
def test_replay_survives_hostile_input(failure: bytes, mode: list[str]) -> None:
    code, out, _ = run_in_tmp(lambda r: ["replay", *("f.json" if a == "F" else a for a in mode)],
                              {"f.json": failure})
    assert code in (0, 1, 2)
    if code == 2:
        assert out == ""
    else:
        assert "crash" not in str(json.loads(out)["cause"])  # a malformed case is never a found bug


@COSTLY
@given(failure=st.one_of(json_file(REFINE_FAILURE), json_file(SIM_FAILURE)),
       out_opt=st.sampled_from([[], ["--out", "small.json"], ["--out", "missing/x.json"], ["--out", "."],
                                ["--out", "/proc/x"], ["--out", "f.json"]]),
       checks=option("--max-checks", ["3", "1", "0", "-1"]))
def test_shrink_survives_hostile_input(failure: bytes, out_opt: list[str], checks: list[str]) -> None:
    code, out, _ = run_in_tmp(lambda r: ["shrink", "f.json", *out_opt, *(checks or ["--max-checks", "3"])],
                              {"f.json": failure}, outputs={"f.min.json", "small.json"})
    assert code in (0, 1, 2)
    if code == 2:
        assert out == ""


# --- report and fuzz (options and unreadable files; typed columns are tests/campaign's) ----------


@CHEAP
@given(content=st.one_of(st.none(), st.binary(max_size=64), st.sampled_from([b"PAR1", b"PAR1\x00\x00PAR1", b""])),
       where=st.sampled_from(["d", "missing", "d/runs.parquet"]), as_json=st.sampled_from([[], ["--json"]]))
def test_report_survives_hostile_input(content: bytes | None, where: str, as_json: list[str]) -> None:
    def args(root: Path) -> list[str]:
        (root / "d").mkdir()
        if content is not None:
            (root / "d" / "runs.parquet").write_bytes(content)
        return ["report", where, *as_json]

    code, out, _ = run_in_tmp(args, {}, outputs={"d"})
    assert code in (0, 2)


@COSTLY
@given(runs=option("--runs", ["1", "0", "-1", "x"]), seed=option("--seed", ["0", "5", "-1"]),
       kinds=option("--kinds", ["refine", "sim,refine", "refine,refine", "", ",", "bogus", "REFINE"]),
       max_seconds=option("--max-seconds", ["0", "-1", "60", "x"]),
       mutant=option("--mutant", ["bogus", "reject-create-table", ""]),
       # `--out FILE/sub`, huge seeds, `--workers` in the thousands: issue 11 owns them
       out_dir=st.sampled_from([["--out", "out"], ["--out", "f.json"]]))
def test_fuzz_options_survive_hostile_input(runs: list[str], seed: list[str], kinds: list[str],
                                            max_seconds: list[str], mutant: list[str], out_dir: list[str]) -> None:
    runs = runs or ["--runs", "1"]
    kinds = kinds or ["--kinds", "refine"]
    code, _, _ = run_in_tmp(lambda r: ["fuzz", *runs, *seed, *kinds, *max_seconds, *mutant, *out_dir,
                                       "--workers", "1"], {"f.json": b"{}"}, outputs={"out"})
    assert code in (0, 1, 2)
