"""`check-history` reads every history a Jepsen or Knossos user already has: all of EDN, Jepsen
0.3's `history.edn`, in every shape, and Knossos' models, at the command line.

The issue: "three of the seven bad histories were refused as bad input — 'line 1: expected an op
map {:process .. :type ..}' — because the file is one EDN list `( … )`, which is as valid EDN as
a vector. A checker whose users bring their own histories must read what their tools write."
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from campaign.commands.check_history import load_operations
from campaign.errors import BadInput
from campaign.formats.edn import EdnError, read_all
from campaign.formats.history import parse_history
from campaign.formats.history_edn import Keyword
from checkers.linearizability import MODELS, check_operations
from checkers.linearizability.frozen import FrozenMap, thaw
from observed.edn_values import Char, Symbol, Tagged
from tests.checkers.linearizability.strategies import histories
from tests.cli.edn_shapes import edn_shapes, jsonl
from tests.cli.hostile import assert_bad_input, invoke
from tests.cli.test_check_history import run_cli, write
from tests.cli.test_check_history_jepsen import edn_of

K = Keyword
EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples" / "histories"


def one(text: str) -> Any:
    [(_, value)] = read_all(text)
    return value


# --- the EDN reader: all of it ------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [
    ("nil", None), ("true", True), ("false", False),
    ("42", 42), ("-7", -7), ("+3", 3), ("0", 0), ("123456789012345678901234567890N", 123456789012345678901234567890),
    ("2.5", 2.5), ("-1e3", -1000.0), ("1.", 1.0), ("2.50M", Decimal("2.50")), ("7M", Decimal(7)),
    ("1/3", Fraction(1, 3)), ("-4/2", -2), ("##Inf", math.inf), ("##-Inf", -math.inf),
    ('"tab\\there, quote \\" backslash \\\\ \\b\\f\\r\\n"', 'tab\there, quote " backslash \\ \b\f\r\n'),
    ('"\\u0041\\101\\0"', "AA\0"), ('"multi\nline"', "multi\nline"),
    ("\\a", Char("a")), ("\\newline", Char("\n")), ("\\space", Char(" ")), ("\\tab", Char("\t")),
    ("\\return", Char("\r")), ("\\formfeed", Char("\f")), ("\\backspace", Char("\b")),
    ("\\u0041", Char("A")), ("\\o101", Char("A")), ("\\(", Char("(")), ("\\\\", Char("\\")),
    (":read", K("read")), (":jepsen.history/op", K("jepsen.history/op")), ("foo", Symbol("foo")),
    ("my.ns/foo", Symbol("my.ns/foo")), ("-", Symbol("-")), ("+x", Symbol("+x")),
    ("[1 (2 3) #{4}]", (1, (2, 3), frozenset({4}))), ("()", ()), ("#{}", frozenset()),
    ("{:b 2, :a 1}", {K("a"): 1, K("b"): 2}), ("{[1 2] {:x 1}}", {(1, 2): {K("x"): 1}}),
    ("#{{:a 1} [2]}", frozenset({FrozenMap(items_=((K("a"), 1),)), (2,)})),
    ("#:jepsen.history{:type :ok, :_/index 3, :other/f :read}",
     {K("jepsen.history/type"): K("ok"), K("index"): 3, K("other/f"): K("read")}),
    ("[1,2,,3]", (1, 2, 3)), ("[1 ; a comment\n 2]", (1, 2)), ("#! a shebang line\n[1]", (1,)),
    ("[1 #_ 2 3]", (1, 3)), ("[1 #_ #_ 2 3 4]", (1, 4)), ("[#_[nested #_ discard] 5]", (5,)),
    ("#_ :gone [6]", (6,)), ("{:a #_ :b 1}", {K("a"): 1}),
    ('#inst "2024-01-01T00:00:00.000-00:00"', Tagged("inst", "2024-01-01T00:00:00.000-00:00")),
    ('#uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"', Tagged("uuid", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6")),
    ("#my/tag [1 {:a 2}]", Tagged("my/tag", (1, FrozenMap(items_=((K("a"), 2),))))),
    ("#jepsen.history.Op{:index 0, :type :invoke}", {K("index"): 0, K("type"): K("invoke")}),
    ("#knossos.op.Op #_ :x {:f :read}", {K("f"): K("read")}),
])
def test_the_edn_reader_reads_all_of_edn(text: str, value: Any) -> None:
    assert one(text) == value


@pytest.mark.parametrize("text, line, message", [
    ("[1 2\n 3", 1, "'[' opened here is never closed"),
    ("(\n{:process 0}", 1, "'(' opened here is never closed"),
    ("[1 #inst]", 1, "tag #inst has no value"),
    ("\n#inst", 2, "tag #inst has no value"),
    ("[1 #_]", 1, "discards nothing"),
    ('#"regex"', 1, "not EDN"), ("#'var", 1, "not EDN"), ("#(inc %)", 1, "not EDN"), ("#?(:clj 1)", 1, "not EDN"),
    ("::auto", 1, "auto-resolved keyword"), ("017", 1, "leading zeros"), ("1.5N", 1, "malformed number"),
    ('"\\q"', 1, "unknown string escape"), ('"\\u12"', 1, "bad unicode escape"), ("\\abc", 1, "unknown character"),
    ("{:a 1 :a 2}", 1, "a key twice"), ("#{1 1}", 1, "an element twice"), ("{:a}", 1, "even number"),
    ("##Foo", 1, "unknown symbolic value"), ("#:{:a 1}", 1, "namespaced map"), ("[1 2)", 1, "expected ']'"),
    ("\n\n\"abc", 3, "unterminated string"),
])
def test_what_is_not_edn_is_an_error_naming_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(EdnError, match=re.escape(message)) as e:
        read_all(text)
    assert e.value.line == line


# --- Jepsen's history files, in every shape ---------------------------------------------------

JEPSEN_03 = """{:index 0, :time 10, :type :invoke, :process 0, :f :write, :value 1}
{:index 1, :time 20, :type :invoke, :process 1, :f :read, :value nil}
{:index 2, :time 25, :type :info, :process :nemesis, :f :start-partition, :value :majority}
{:index 3, :time 30, :type :ok, :process 0, :f :write, :value 1}
{:index 4, :time 40, :type :info, :process 1, :f :read, :value nil, :error [:timeout "read timed out"]}
{:index 5, :time 50, :type :invoke, :process 6, :f :cas, :value [1 2]}
{:index 6, :time 60, :type :invoke, :process 0, :f :write, :value 3}
{:index 7, :time 70, :type :fail, :process 6, :f :cas, :value [1 2], :error :conflict}
{:index 8, :time 80, :type :invoke, :process 6, :f :read, :value nil}
{:index 9, :time 90, :type :ok, :process 6, :f :read, :value 3}
"""


def test_a_jepsen_0_3_history_edn_reads_as_written() -> None:
    """jepsen.store/write-history! `prn`s each op (jepsen.history.Op prints as a plain map):
    the nemesis is skipped, :index, :time and :error are read past, a crashed read and a write
    never completed have unknown outcomes, a failed cas never happened."""
    parsed = parse_history(JEPSEN_03)
    assert parsed.format == "edn" and parsed.lines == (1, 2, 4, 5, 6, 7, 8, 9, 10)
    assert [(o.process, o.type, o.f, o.value, o.time) for o in parsed.ops][:3] == [
        (0, "invoke", "write", 1, 10), (1, "invoke", "read", None, 20), (0, "ok", "write", 1, 30)]
    operations = load_operations(parsed, MODELS["cas-register"])
    assert [(o.f, o.status) for o in operations] == [("write", "ok"), ("read", "info"), ("write", "info"),
                                                     ("read", "ok")]  # (the failed cas dropped)
    assert check_operations(MODELS["cas-register"], operations).valid is True


@pytest.mark.parametrize("shape", ["lines", "vector", "list", "set", "records", "noisy"])
def test_every_shape_of_a_jepsen_history_gets_the_jsonl_verdict(shape: str) -> None:
    maps = [line for line in JEPSEN_03.splitlines() if line]
    text = {
        "lines": JEPSEN_03,
        "vector": "[" + "\n ".join(maps) + "]",
        "list": "(" + "\n ".join(maps) + ")",
        "set": "#{" + "\n  ".join(reversed(maps)) + "}",  # (ordered by :index)
        "records": "\n".join("#jepsen.history.Op" + m for m in maps),
        "noisy": ";; history\n(" + "\n #_ {:process 0 :type :ok :f :read :value 99}\n ".join(maps) + ") ; end",
    }[shape]
    parsed = parse_history(text)
    expected = parse_history(JEPSEN_03)
    assert [(o.process, o.type, o.f, o.value) for o in parsed.ops] == [
        (o.process, o.type, o.f, o.value) for o in expected.ops]


def test_a_set_of_ops_needs_an_index_to_order_it() -> None:
    with pytest.raises(BadInput, match="every op in it needs an integer :index"):
        parse_history("#{{:process 0, :type :invoke, :f :read}}")


@pytest.mark.parametrize("value, key, inner", [
    ("[:x 1]", K("x"), 1), ("(:x 1)", K("x"), 1), ('["k" 1]', "k", 1), ("[7 [1 2]]", 7, (1, 2)),
    ("[#{:a} 1]", frozenset({K("a")}), 1),
])
def test_independent_tuples_in_every_shape_give_the_key(value: str, key: Any, inner: Any) -> None:
    text = f"{{:process 0, :type :invoke, :f :write, :value {value}}}\n{{:process 0, :type :ok, :f :write, :value {value}}}\n"
    ops = parse_history(text).ops
    assert [(o.key, o.value) for o in ops] == [(key, inner), (key, inner)]


def test_a_txn_of_two_micro_ops_is_not_taken_for_an_independent_tuple() -> None:
    txn = "[[:write :x 1] [:read :y nil]]"
    ops = parse_history(f"{{:process 0, :type :invoke, :f :txn, :value {txn}}}\n").ops
    assert ops[0].key is None and len(ops[0].value) == 2
    keyed = parse_history(f"{{:process 0, :type :invoke, :f :txn, :value [:k {txn}]}}\n").ops
    assert keyed[0].key == K("k") and len(keyed[0].value) == 2


def test_the_acceptance_list_form_history_and_its_decorated_twin_get_the_jsonl_verdict(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's acceptance: a hand-made list-form history (`( {...} {...} )`) and the same
    ops with `#_` discards, comments, a `#jepsen.history.Op{...}` tag and namespaced keywords."""
    codes = {name: run_cli(capsys, str(EXAMPLES / name))[0]
             for name in ("cas-list.edn", "cas-list-decorated.edn", "cas-list.jsonl")}
    assert codes == {"cas-list.edn": 1, "cas-list-decorated.edn": 1, "cas-list.jsonl": 1}
    plain, decorated = (parse_history((EXAMPLES / n).read_text()) for n in ("cas-list.edn", "cas-list-decorated.edn"))
    def seen(ops: Any) -> list[Any]:
        return [(o.process, o.type, o.f, o.key, o.value) for o in ops]

    assert seen(plain.ops) == seen(decorated.ops)  # keywords and all
    from_json = parse_history((EXAMPLES / "cas-list.jsonl").read_text())
    assert [thaw(o.value) for o in plain.ops] == [thaw(o.value) for o in from_json.ops]


def test_keyword_values_stay_keywords_in_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "cas-list.edn")
    _, text, _ = run_cli(capsys, path)
    assert "read() -> :v3" in text and "'v3'" not in text
    html = tmp_path / "page.html"
    run_cli(capsys, path, "--html", str(html))
    assert ":v3" in html.read_text() and "&quot;v3&quot;" not in html.read_text()
    _, out, _ = run_cli(capsys, path, "--output", "edn")
    assert edn_of(out)[K("op")][K("value")] == K("v3")
    _, out, _ = run_cli(capsys, path, "--json")
    assert '"output": "v3"' in out  # JSON has no keywords: a keyword is its name


MODEL_NAMES = ("register", "cas-register", "kv", "log", "mutex", "multi-register", "set", "unordered-queue",
               "fifo-queue")


def _verdict(text: str, model: str) -> Any:
    parsed = parse_history(text)
    return check_operations(MODELS[model], load_operations(parsed, MODELS[model]), minimize=False).valid, parsed


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(MODEL_NAMES).flatmap(lambda m: st.tuples(st.just(m), histories(m, max_ops=8))).flatmap(
    lambda c: st.tuples(st.just(c[0]), st.just(c[1]), edn_shapes(c[1], keywords=c[0] not in ("kv", "log")))))
def test_any_history_printed_in_any_edn_shape_gets_the_verdict_of_its_jsonl_form(case: Any) -> None:
    model, ops, text = case
    note(text)
    expected, from_json = _verdict(jsonl(ops), model)
    got, from_edn = _verdict(text, model)
    assert got is expected
    assert [(o.process, o.type, o.f, thaw(o.key), thaw(o.value)) for o in from_edn.ops] == [
        (o.process, o.type, o.f, thaw(o.key), thaw(o.value)) for o in from_json.ops]


# --- Knossos' models at the command line ------------------------------------------------------


@pytest.mark.parametrize("name, model, failing, line", [
    ("mutex.edn", "mutex", "acquire -> ok", 3),
    ("multi-register.edn", "multi-register", "txn [[:read :x nil] [:read :y nil]] -> [[:read :x 1] [:read :y 2]]", 3),
    ("set.edn", "set", ":s1: read -> #{2}", 4),
    ("queue.edn", "unordered-queue", "dequeue -> 2", 9),
    ("queue.edn", "fifo-queue", "dequeue -> 2", 5),
])
def test_each_knossos_model_refuses_its_bad_history_naming_the_failing_op(
        name: str, model: str, failing: str, line: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / name)
    code, out, _ = run_cli(capsys, path, "--model", model)
    assert code == 1
    assert "NOT linearizable" in out and f"(model {model})" in out
    named = out.split("No order of the operations before it lets this one complete:\n")[1].splitlines()[0]
    assert named.strip().startswith(failing) and f"called at line {line}," in named
    code, out, _ = run_cli(capsys, path, "--model", model, "--output", "edn")
    result = edn_of(out)
    if K("results") in result:
        result = result[K("results")][result[K("failures")][0]]
    assert code == 1 and result[K("valid?")] is False and K("configs") in result and K("final-paths") in result
    assert result[K("op")][K("type")] == K("ok")
    html = tmp_path / "page.html"
    assert run_cli(capsys, path, "--model", model, "--html", str(html))[0] == 1
    assert f"model <b>{model}</b>" in html.read_text() and "failing" in html.read_text()


def test_the_same_queue_is_fifo_wrong_and_unordered_right_without_its_second_dequeue(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (EXAMPLES / "queue.edn").read_text().splitlines(keepends=True)
    path = write(tmp_path, "q.edn", "".join(lines[:6]))
    assert run_cli(capsys, path, "--model", "unordered-queue")[0] == 0
    assert run_cli(capsys, path, "--model", "fifo-queue")[0] == 1


@pytest.mark.parametrize("text, needles", [
    ("(\n{:process 0, :type :invoke, :f :write, :value 1}\n", ["line 1", "'(' opened here is never closed"]),
    ("{:process 0, :type :invoke, :f :write, :value #inst}\n", ["line 1", "tag #inst has no value"]),
    ("{:process 0, :type :invoke, :f :frobnicate, :value 1}\n", ["line 1", "f 'frobnicate' is not an operation of the register model"]),
    ("{:process 0, :type :invoke, :f :acquire}\n{:process 0, :type :ok, :f :jepsen/acquire}\n",
     ["line 2", "f 'jepsen/acquire' is not an operation of the mutex model"]),
    ("{:process 0, :type :invoke, :f :txn, :value [[:read :x]]}\n", ["line 1", "a txn micro-op is [f k v]"]),
    ("{:process 0, :type :invoke, :f :txn, :value [[:incr :x 1]]}\n", ["line 1", "micro-op's f is :read or :write"]),
    ("{:process 0, :type :invoke, :f :txn, :value [[:read :x nil]]}\n{:process 0, :type :ok, :f :txn, :value [[:read :y 1]]}\n",
     ["line 2", "is not the invoked one"]),
    ("{:process 0, :type :invoke, :f :read}\n{:process 0, :type :ok, :f :read, :value [1 1]}\n{:process 1, :type :invoke, :f :add, :value 1}\n",
     ["line 2", "a set read lists an element twice"]),
    ("{:process 0, :type :invoke, :f :enqueue, :value 1}\n", ["--model fifo-queue or --model unordered-queue"]),
])
def test_bad_edn_and_bad_ops_for_the_model_are_one_line_and_exit_2(text: str, needles: list[str],
                                                                      tmp_path: Path) -> None:
    path = tmp_path / "h.edn"
    path.write_text(text)
    assert_bad_input(invoke(["check-history", str(path)]), str(path), *needles)
