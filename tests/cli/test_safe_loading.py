"""The one JSON loader and the typed getters every format uses: exact limits, both sides."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.errors import BadInput
from campaign.formats import fields
from campaign.formats.history_edn import EdnError, read_all
from campaign.formats.jsonio import MAX_DEPTH, MAX_INT_DIGITS, load_json, loads_json


def test_nesting_up_to_the_limit_is_read_and_one_more_is_refused() -> None:
    assert loads_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, "f") is not None
    with pytest.raises(BadInput, match=f"f: nested more than {MAX_DEPTH} levels deep"):
        loads_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "f")
    # brackets inside strings do not count
    assert loads_json('["' + "[" * 500 + '"]', "f") == ["[" * 500]


def test_integers_up_to_the_digit_limit_are_read() -> None:
    assert loads_json("9" * MAX_INT_DIGITS, "f") == int("9" * MAX_INT_DIGITS)
    assert loads_json("-" + "9" * MAX_INT_DIGITS, "f") < 0
    with pytest.raises(BadInput, match=f"integer with {MAX_INT_DIGITS + 1} digits"):
        loads_json("9" * (MAX_INT_DIGITS + 1), "f")


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "1e400", "-1e999"])
def test_non_finite_numbers_are_refused(text: str) -> None:
    with pytest.raises(BadInput, match="not a JSON number|out of range"):
        loads_json(text, "f")


def test_a_lone_surrogate_is_refused_but_a_pair_is_text() -> None:
    assert loads_json('"\\ud83d\\ude00"', "f") == "\U0001F600"
    with pytest.raises(BadInput, match="lone UTF-16 surrogate"):
        loads_json('{"\\udc00": 1}', "f")


def test_a_key_named_twice_is_ambiguous_and_refused() -> None:
    with pytest.raises(BadInput, match="duplicate key 'type' in an object"):
        loads_json('{"type": "ok", "f": "read", "type": "fail"}', "f")
    for text in ("{:type :ok :type :fail}", "#{1 1}"):
        with pytest.raises(EdnError, match="twice"):
            read_all(text)


def test_files_are_utf8_with_an_optional_bom(tmp_path: Path) -> None:
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf[1]")
    assert load_json(tmp_path / "bom.json", "topology") == [1]
    (tmp_path / "bad.json").write_bytes(b'[\n"\xff"]')
    with pytest.raises(BadInput, match=r"bad.json: line 2: not UTF-8 text \(byte 3\)"):
        load_json(tmp_path / "bad.json", "topology")


def test_edn_has_the_same_limits() -> None:
    assert read_all("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))
    for text, message in [("[" * (MAX_DEPTH + 1), "nested more than"), ("#_" * 5000 + "1", "nested more than"),
                          ("9" * (MAX_INT_DIGITS + 1), "digits"), ("1e400", "out of range"),
                          ('"\\uD800"', "lone surrogate"), ("\\uDFFF", "lone surrogate"), ('"\\u12"', "bad unicode")]:
        with pytest.raises(EdnError, match=message):
            read_all(text)


def test_typed_getters() -> None:
    assert fields.integer(3, "w", lo=0, hi=3) == 3
    for bad in (True, 3.0, "3", None, 4, -1):
        with pytest.raises(BadInput, match="^w: expected an integer"):
            fields.integer(bad, "w", lo=0, hi=3)
    assert fields.number(1, "w", lo=0, hi=1) == 1.0
    for bad in (False, float("nan"), float("inf"), "1", 1.5):
        with pytest.raises(BadInput, match="^w: expected a (finite )?number"):
            fields.number(bad, "w", lo=0, hi=1)
    with pytest.raises(BadInput, match="w: unknown field 'x' \\(known: a, b\\)"):
        fields.known_keys({"a": 1, "x": 2}, ("a", "b"), "w")
    with pytest.raises(BadInput, match="w: missing field 'a'"):
        fields.field({}, "a", int, "w")
    with pytest.raises(BadInput, match="w: field 'a' must be an integer, got True"):
        fields.field({"a": True}, "a", int, "w")
    with pytest.raises(BadInput, match="w: expected one of x, y, got 'z'"):
        fields.choice("z", ("x", "y"), "w")
