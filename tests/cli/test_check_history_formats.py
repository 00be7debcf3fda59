"""History formats: detection, the EDN reader, Jepsen EDN histories, and format equivalence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign.errors import BadInput
from campaign.formats.history import detect_format, parse_history, read_history
from campaign.formats.history_edn import EdnError, Keyword, read_all
from checkers.linearizability import CAS_REGISTER, check
from checkers.linearizability.frozen import thaw
from observed.edn_values import Tagged
from tests.conftest import shared_path


def test_the_edn_reader_reads_what_jepsen_writes() -> None:
    text = '; comment\n{:a [1 -2 3.5 1/2 7N] :b #{:x} :c "q\\"\\n" :d nil :e true #_ :skipped :f (1 2) :g #inst "2020"}'
    [(line, value)] = read_all(text)
    assert line == 2
    assert value == {
        Keyword("a"): (1, -2, 3.5, 0.5, 7),
        Keyword("b"): frozenset({Keyword("x")}),
        Keyword("c"): 'q"\n',
        Keyword("d"): None,
        Keyword("e"): True,
        Keyword("f"): (1, 2),
        Keyword("g"): Tagged("inst", "2020"),  # (a tag kept, so output writes it back)
    }


@pytest.mark.parametrize(
    "text, line, message",
    [("{:a 1}\n\n(1 2", 3, "never closed"), ("[1 2)", 1, "expected ']'"), ("{:a}", 1, "even number"), ('"abc', 1, "unterminated")],
)
def test_edn_errors_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(EdnError, match=message) as e:
        read_all(text)
    assert e.value.line == line


X, Y = Keyword("x"), Keyword("y")
JEPSEN_EDN = """[{:type :invoke, :f :write, :value [:x 1], :process 0, :time 100, :index 0}
 {:type :info, :f :start, :value nil, :process :nemesis, :time 150, :index 1}
 {:type :ok, :f :write, :value [:x 1], :process 0, :time 200, :index 2}
 {:type :invoke, :f :cas, :value [:y [nil 3]], :process 1, :time 250, :index 3}
 {:type :ok, :f :cas, :value [:y [nil 3]], :process 1, :time 300, :index 4}
 {:type :invoke, :f :read, :value [:x nil], :process 1, :time 400, :index 5}
 {:type :ok, :f :read, :value [:x 2], :process 1, :time 500, :index 6}]"""


def test_a_keyed_jepsen_history_splits_k_v_tuples_and_skips_the_nemesis() -> None:
    parsed = parse_history(JEPSEN_EDN)
    assert parsed.format == "edn"
    assert [(op.process, op.type, op.f, op.key, op.value, op.time) for op in parsed.ops] == [
        (0, "invoke", "write", X, 1, 100),
        (0, "ok", "write", X, 1, 200),
        (1, "invoke", "cas", Y, (None, 3), 250),
        (1, "ok", "cas", Y, (None, 3), 300),
        (1, "invoke", "read", X, None, 400),
        (1, "ok", "read", X, 2, 500),
    ]
    verdict = check(CAS_REGISTER, parsed.ops)
    assert verdict.valid is False and verdict.evidence.key == X  # a keyword key stays one


def test_an_unkeyed_cas_history_keeps_its_pairs() -> None:
    text = "{:process 0 :type :invoke :f :cas :value [1 2]}\n{:process 0 :type :ok :f :cas :value [1 2]}\n"
    ops = parse_history(text).ops
    assert ops[0].key is None and ops[0].value == (1, 2)


@pytest.mark.parametrize(
    "first_line, fmt",
    [
        ('{"process": 0, "type": "invoke", "f": "read"}', "jsonl"),
        ("INFO  jepsen.util - 3\t:invoke\t:read\tnil", "porcupine-etcd"),
        ('{:process 9, :type :invoke, :f :append, :key "0", :value "x 9 0 y"}', "porcupine-kv"),
        ("{:type :invoke, :f :read, :process 0}", "edn"),
        ('{:process 0, :type :invoke, :f :read, :key "a", :value nil}', "edn"),
        ("[{:type :invoke, :f :read, :process 0}", "edn"),
    ],
)
def test_the_format_is_detected_from_the_first_line(first_line: str, fmt: str) -> None:
    assert detect_format("\n" + first_line + "\n") == fmt


def test_an_undetectable_format_is_bad_input() -> None:
    with pytest.raises(BadInput, match="line 1: cannot tell the history format"):
        detect_format("hello\n")


def _as_jsonl(ops: tuple) -> str:
    rows = []
    for op in ops:
        row = {"process": op.process, "type": op.type, "f": op.f, "value": thaw(op.value)}
        rows.append(json.dumps(row))
    return "\n".join(rows) + "\n"


def _as_edn(ops: tuple) -> str:
    def edn(v: object) -> str:
        if v is None:
            return "nil"
        if isinstance(v, tuple):
            return "[" + " ".join(edn(x) for x in v) + "]"
        return json.dumps(v)

    return "[" + "\n".join(
        f"{{:process {op.process}, :type :{op.type}, :f :{op.f}, :value {edn(op.value)}}}" for op in ops
    ) + "]\n"


@pytest.mark.parametrize("number", ["000", "002", "040", "100"])
def test_one_history_in_every_format_gets_one_verdict(tmp_path: Path, number: str) -> None:
    source = shared_path("corpora", "porcupine", "jepsen", f"etcd_{number}.log")
    ops = read_history(source).ops
    expected = check(CAS_REGISTER, ops, minimize=False).valid
    for name, text in (("h.jsonl", _as_jsonl(ops)), ("h.edn", _as_edn(ops))):
        (tmp_path / name).write_text(text)
        again = read_history(tmp_path / name)
        assert again.ops == ops
        assert check(CAS_REGISTER, again.ops, minimize=False).valid is expected


def test_errors_in_a_history_vector_name_the_element_line() -> None:
    text = "[{:process 0, :type :invoke, :f :read}\n {:process 0, :type :ok, :f :read, :value 1}\n {:process 0, :type :ok, :f :read}]\n"
    parsed = parse_history(text)
    assert parsed.lines == (1, 2, 3)
    with pytest.raises(BadInput, match="line 2: op map has no :f"):
        parse_history("[{:process 0, :type :invoke, :f :read}\n {:process 0, :type :ok}]")
