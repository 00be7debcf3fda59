"""An EDN reader (github.com/edn-format/edn, and what Clojure's `pr` writes): all of it.

Reads nil, booleans, integers (`7`, `7N`), floats (`2.5`, `1e3`, `##Inf`, `##-Inf`, `##NaN`),
exact decimals (`2.5M`, as `Decimal`), ratios (`1/3`, as `Fraction`), strings with every escape
(`\\t \\r \\n \\b \\f \\" \\\\ \\uXXXX` and Clojure's octal `\\0`-`\\377`), characters (`\\a`,
`\\newline`, `\\u0041`, `\\o101`, as `Char`), keywords (`:read`, `:jepsen.history/op`, as
`Keyword`), symbols (`Symbol`), lists and vectors (both tuples: Clojure's `=` does not tell them
apart), maps (dicts), namespaced maps (`#:ns{:a 1}` is `{:ns/a 1}`), sets (frozensets), `;`
comments (and `#!` ones), `#_` discards anywhere (`#_ #_ a b` discards both) and tagged
literals: a record (`#jepsen.history.Op{...}`: a tag with a dot, then a map) reads as its map,
any other tag (`#inst "..."`, `#uuid "..."`) as a `Tagged` value. Commas are whitespace.

What is not EDN is refused, each with its line: Clojure's other `#` forms (`#"regex"`, `#'var`,
`#(...)`, `#?`), `::auto-resolved` keywords, integers with leading zeros (Clojure would read them
as octal), a tag with no value, an unterminated string or collection, a map with a key twice.
Nesting is bounded (`MAX_DEPTH`) and so are integers (`MAX_INT_DIGITS`), as for JSON.

Errors are `EdnError(line, message)`. The history reader (`history_edn.py`) reads top-level
collections element by element, to name each op's line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

from campaign.formats.jsonio import MAX_DEPTH, MAX_INT_DIGITS
from checkers.linearizability.frozen import FrozenMap
from observed.edn_values import Char, Keyword, Symbol, Tagged

_DELIMITERS = r'\s,\[\](){}"\\;'
_TOKEN = re.compile(
    rf"""
    (?P<ws>[\s,]+|;[^\n]*|\#![^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<open>\#\{{|\#:[^{_DELIMITERS}]*\{{|[\[({{])
  | (?P<close>[\])}}])
  | (?P<discard>\#_)
  | (?P<symbolic>\#\#[^{_DELIMITERS}]*)
  | (?P<tag>\#[A-Za-z][^{_DELIMITERS}]*)
  | (?P<dispatch>\#.?)
  | (?P<char>\\.[^{_DELIMITERS}]*)
  | (?P<atom>[^{_DELIMITERS}]+)
  """,
    re.VERBOSE | re.DOTALL,
)
_INT = re.compile(r"[+-]?(?:0|[1-9]\d*)N?", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:0|[1-9]\d*)(?:\.\d*)?(?:[eE][+-]?\d+)?M?", re.ASCII)
_RATIO = re.compile(r"[+-]?\d+/\d+", re.ASCII)
_HEX4 = re.compile(r"[0-9a-fA-F]{4}", re.ASCII)
_STRING_ESCAPE = re.compile(r"\\(?:u(.{0,4})|([0-7]{1,3})|(.))", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "b": "\b", "f": "\f"}
_CHARS = {"newline": "\n", "space": " ", "tab": "\t", "return": "\r", "backspace": "\b", "formfeed": "\f"}
_CLOSE = {"[": "]", "(": ")", "{": "}", "#{": "}"}
_SYMBOLIC = {"##Inf": math.inf, "##-Inf": -math.inf, "##NaN": math.nan}


class EdnError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def _code_point(hex4: str, line: int) -> str:
    if not _HEX4.fullmatch(hex4):
        raise EdnError(line, f"bad unicode escape \\u{hex4}")
    c = chr(int(hex4, 16))
    if 0xD800 <= ord(c) <= 0xDFFF:
        raise EdnError(line, f"unicode escape \\u{hex4} is a lone surrogate (not text)")
    return c


def _unescape(body: str, line: int) -> str:
    if "\\" not in body:
        return body

    def one(m: re.Match[str]) -> str:
        hex4, octal, other = m.groups()
        if hex4 is not None:
            return _code_point(hex4, line)
        if octal is not None:
            if int(octal, 8) > 0o377:
                raise EdnError(line, f"octal escape \\{octal} is past \\377")
            return chr(int(octal, 8))
        if other in _ESCAPES:
            return _ESCAPES[other]
        raise EdnError(line, f"unknown string escape \\{other}")

    return _STRING_ESCAPE.sub(one, body)


def _char(token: str, line: int) -> Char:
    name = token[1:]
    if len(name) == 1:
        return Char(name)
    if name in _CHARS:
        return Char(_CHARS[name])
    if name.startswith("u") and len(name) == 5:
        return Char(_code_point(name[1:], line))
    if name.startswith("o") and 2 <= len(name) <= 4 and all(c in "01234567" for c in name[1:]):
        if int(name[1:], 8) > 0o377:
            raise EdnError(line, f"octal character {token} is past \\o377")
        return Char(chr(int(name[1:], 8)))
    raise EdnError(line, f"unknown character {token[:30]}")


def _int(text: str, line: int) -> int:
    digits = len(text.lstrip("+-").rstrip("N"))
    if digits > MAX_INT_DIGITS:
        raise EdnError(line, f"integer with {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text.rstrip("N"))


def _number(text: str, line: int) -> Any:
    if _INT.fullmatch(text):
        return _int(text, line)
    if _FLOAT.fullmatch(text) and (text.endswith("M") or any(c in text for c in ".eE")):
        if len(text) > 2 * MAX_INT_DIGITS:
            raise EdnError(line, f"number with {len(text)} characters")
        if text.endswith("M"):
            return Decimal(text[:-1])
        value = float(text)
        if not math.isfinite(value):
            raise EdnError(line, f"number {text[:30]} is out of range (write ##Inf)")
        return value
    if _RATIO.fullmatch(text):
        num, den = (_int(part, line) for part in text.split("/"))
        if den == 0:
            raise EdnError(line, f"ratio {text} divides by zero")
        ratio = Fraction(num, den)
        return ratio.numerator if ratio.denominator == 1 else ratio
    raise EdnError(line, f"malformed number {text[:30]!r} (EDN integers have no leading zeros)")


def _atom(text: str, line: int) -> Any:
    if text == "nil":
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith(":"):
        if text.startswith("::"):
            raise EdnError(line, f"{text[:30]} is an auto-resolved keyword (Clojure code, not EDN data)")
        if len(text) == 1 or text.endswith("/"):
            raise EdnError(line, f"malformed keyword {text[:30]!r}")
        return Keyword(text[1:])
    if text[0].isdigit() or (text[0] in "+-" and len(text) > 1 and text[1].isdigit()):
        return _number(text, line)
    return Symbol(text)


def hashable(value: Any) -> Any:
    """`value` usable as a map key or a set element: a map inside becomes a `FrozenMap`."""
    if isinstance(value, dict):
        return FrozenMap(items_=tuple((hashable(k), hashable(v)) for k, v in value.items()))
    if isinstance(value, tuple):
        return tuple(hashable(v) for v in value)
    if isinstance(value, Tagged):
        return Tagged(value.tag, hashable(value.value))
    return value


_DISCARDED = object()


class Reader:
    """The forms of one text. `forms()` gives each top-level form with its line; `collection_items()`
    the elements of the collection that starts at the next token, each with its line."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str, int]] = []
        line = 1
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                if text[pos] == '"':
                    raise EdnError(line, "unterminated string")
                raise EdnError(line, f"unexpected character {text[pos]!r}")
            kind = m.lastgroup or ""
            value = m.group()
            if kind == "dispatch":
                raise EdnError(line, f"{value!r} starts a Clojure reader form that is not EDN")
            if kind != "ws":
                self.tokens.append((kind, value, line))
            line += value.count("\n")
            pos = m.end()
        self.i = 0
        self.depth = 0
        self.last_line = line

    def at_end(self) -> bool:
        return self.i >= len(self.tokens)

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i]

    def forms(self) -> Iterator[tuple[int, Any]]:
        while not self.at_end():
            line = self.tokens[self.i][2]
            form = self.read()
            if form is not _DISCARDED:
                yield line, form

    def skip_discards(self) -> None:
        """Past any `#_ form` at the reader's position."""
        while not self.at_end() and self.tokens[self.i][0] == "discard":
            self.i += 1
            self.read_value(f"'#_' at line {self.tokens[self.i - 1][2]} discards nothing")

    def read_value(self, what: str) -> Any:
        """The next form that is not discarded; `what` names the error at the end of input or of
        a collection (a tag with no value, a `#_` with nothing after it)."""
        while True:
            if self.at_end() or self.tokens[self.i][0] == "close":
                line = self.tokens[self.i][2] if not self.at_end() else self.last_line
                raise EdnError(line, what)
            form = self.read()
            if form is not _DISCARDED:
                return form

    def read(self) -> Any:
        # why a depth bound: collections, `#_` and tags nest by recursion here and in every
        # later walk of the value; 100,000 `[` must be an error, not a RecursionError
        if self.depth >= MAX_DEPTH:
            line = self.tokens[self.i][2] if self.i < len(self.tokens) else self.last_line
            raise EdnError(line, f"nested more than {MAX_DEPTH} levels deep")
        self.depth += 1
        try:
            return self._read()
        finally:
            self.depth -= 1

    def _read(self) -> Any:
        if self.at_end():
            raise EdnError(self.last_line, "unexpected end of input")
        kind, value, line = self.tokens[self.i]
        self.i += 1
        if kind == "string":
            return _unescape(value[1:-1], line)
        if kind == "atom":
            return _atom(value, line)
        if kind == "char":
            return _char(value, line)
        if kind == "symbolic":
            if value not in _SYMBOLIC:
                raise EdnError(line, f"unknown symbolic value {value[:30]} (##Inf, ##-Inf or ##NaN)")
            return _SYMBOLIC[value]
        if kind == "discard":
            self.read_value(f"'#_' at line {line} discards nothing")
            return _DISCARDED
        if kind == "tag":
            tagged = self.read_value(f"tag {value} has no value")
            if "." in value and isinstance(tagged, dict):
                return tagged  # a record literal: its fields
            return Tagged(value[1:], hashable(tagged))
        if kind == "close":
            raise EdnError(line, f"unexpected {value!r}")
        return self._collection(value, line, self._elements(value, line))

    def _elements(self, opening: str, line: int) -> list[Any]:
        items: list[Any] = []
        close = "}" if opening.startswith("#") else _CLOSE[opening]
        while True:
            if self.at_end():
                raise EdnError(line, f"{opening!r} opened here is never closed")
            k, v, at = self.tokens[self.i]
            if k == "close":
                self.i += 1
                if v != close:
                    raise EdnError(at, f"expected {close!r}, found {v!r}")
                return items
            item = self.read()
            if item is not _DISCARDED:
                items.append(item)

    def collection_items(self) -> list[tuple[int, Any]]:
        """The elements, each with its line, of the list, vector or set opening at the next token."""
        kind, opening, line = self.tokens[self.i]
        assert kind == "open" and opening in ("[", "(", "#{")
        self.i += 1
        items: list[tuple[int, Any]] = []
        while True:
            self.skip_discards()
            if self.at_end():
                raise EdnError(line, f"{opening!r} opened here is never closed")
            k, v, at = self.tokens[self.i]
            if k == "close":
                self.i += 1
                if v != _CLOSE[opening]:
                    raise EdnError(at, f"expected {_CLOSE[opening]!r}, found {v!r}")
                break
            items.append((at, self.read()))
        if opening == "#{":
            self._distinct([hashable(v) for _, v in items], line)
        return items

    @staticmethod
    def _distinct(members: list[Any], line: int) -> frozenset[Any]:
        found = frozenset(members)
        if len(found) != len(members):
            raise EdnError(line, "a set holds an element twice")
        return found

    def _collection(self, opening: str, line: int, items: list[Any]) -> Any:
        if opening == "#{":
            return self._distinct([hashable(v) for v in items], line)
        if not opening.endswith("{"):
            return tuple(items)
        if len(items) % 2:
            raise EdnError(line, "a map needs an even number of forms")
        keys = [hashable(items[i]) for i in range(0, len(items), 2)]
        if opening.startswith("#:"):
            keys = [_in_namespace(opening[2:-1], k, line) for k in keys]
        m = dict(zip(keys, items[1::2], strict=True))
        if len(m) != len(keys):  # Clojure's reader refuses it too
            raise EdnError(line, "a map names a key twice")
        return m


def _in_namespace(ns: str, key: Any, line: int) -> Any:
    """A key of `#:ns{...}`: a keyword or symbol without a namespace gets `ns`; `:_/k` has none."""
    if not ns or ns.startswith(":"):
        raise EdnError(line, f"#:{ns}{{ is not a namespaced map EDN reads (no namespace, or auto-resolved)")
    if isinstance(key, Keyword | Symbol):
        if key.name.startswith("_/"):
            return type(key)(key.name[2:])
        if "/" not in key.name:
            return type(key)(f"{ns}/{key.name}")
    return key


def read_all(text: str) -> list[tuple[int, Any]]:
    """Every top-level form of `text` with the line it starts on."""
    return list(Reader(text).forms())


def read_one(text: str, line: int = 1) -> Any:
    """Exactly one form (a field of a line-oriented format); line numbers in errors offset by `line`."""
    try:
        forms = read_all(text)
    except EdnError as e:
        raise EdnError(line + e.line - 1, e.message) from None
    if len(forms) != 1:
        raise EdnError(line, f"expected one value, found {len(forms)}")
    return forms[0][1]


__all__ = ["Char", "EdnError", "Keyword", "Reader", "Symbol", "Tagged", "hashable", "read_all", "read_one"]
