"""A small EDN reader: enough of Clojure's data notation for Jepsen and Porcupine histories.

Reads nil, booleans, integers (with an optional N suffix), floats, ratios (as floats), strings,
characters, keywords, symbols, vectors and lists (as tuples), maps (as dicts), sets (as
frozensets), `#_` discards, `;` comments and tagged literals (`#inst "..."`, Jepsen's
`#jepsen.history.Op{...}`), whose tag is dropped. Keywords become `Keyword` values so that
`:read` and `"read"` stay distinct. Errors are `EdnError` with the line number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.jsonio import MAX_DEPTH, MAX_INT_DIGITS
from checkers.linearizability.frozen import freeze
from checkers.linearizability.history import EVENT_TYPES, Op


@frozen
class Keyword:
    name: str

    def __repr__(self) -> str:
        return f":{self.name}"


@frozen
class Symbol:
    name: str

    def __repr__(self) -> str:
        return self.name


class EdnError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


_TOKEN = re.compile(
    r"""
    (?P<ws>[\s,]+|;[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<open>\#\{|[\[({])
  | (?P<close>[\])}])
  | (?P<discard>\#_)
  | (?P<tag>\#[A-Za-z][^\s,\[\](){}"]*)
  | (?P<char>\\(?:newline|space|tab|return|u[0-9a-fA-F]{4}|.))
  | (?P<atom>[^\s,\[\](){}"\\;]+)
  """,
    re.VERBOSE | re.DOTALL,
)
_INT = re.compile(r"[+-]?\d+N?", re.ASCII)
_FLOAT = re.compile(r"[+-]?\d+(\.\d*)?([eE][+-]?\d+)?M?", re.ASCII)
_RATIO = re.compile(r"[+-]?\d+/\d+", re.ASCII)
_HEX4 = re.compile(r"[0-9a-fA-F]{4}", re.ASCII)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "b": "\b", "f": "\f"}
_CHARS = {"newline": "\n", "space": " ", "tab": "\t", "return": "\r"}
_CLOSE = {"[": "]", "(": ")", "{": "}", "#{": "}"}


def _unescape(body: str, line: int) -> str:
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e == "u":
            out.append(_code_point(body[i + 2 : i + 6], line))
            i += 6
        elif e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        else:
            raise EdnError(line, f"unknown string escape \\{e}")
    return "".join(out)


def _code_point(hex4: str, line: int) -> str:
    if not _HEX4.fullmatch(hex4):
        raise EdnError(line, f"bad unicode escape \\u{hex4}")
    c = chr(int(hex4, 16))
    if 0xD800 <= ord(c) <= 0xDFFF:
        raise EdnError(line, f"unicode escape \\u{hex4} is a lone surrogate (not text)")
    return c


def _int(text: str, line: int) -> int:
    digits = len(text.lstrip("+-").rstrip("N"))
    if digits > MAX_INT_DIGITS:
        raise EdnError(line, f"integer with {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text.rstrip("N"))


def _atom(text: str, line: int) -> Any:
    if text == "nil":
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith(":"):
        if len(text) == 1:
            raise EdnError(line, "empty keyword")
        return Keyword(text[1:])
    if _INT.fullmatch(text):
        return _int(text, line)
    if _FLOAT.fullmatch(text):
        value = float(text.rstrip("M"))
        if not math.isfinite(value):
            raise EdnError(line, f"number {text[:30]} is out of range")
        return value
    if _RATIO.fullmatch(text):
        num, den = (_int(part, line) for part in text.split("/"))
        if den == 0:
            raise EdnError(line, f"ratio {text} divides by zero")
        try:
            return num / den
        except OverflowError:
            raise EdnError(line, f"ratio {text[:30]} is out of range") from None
    if text[0].isdigit():
        raise EdnError(line, f"malformed number {text!r}")
    return Symbol(text)


class _Reader:
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
            if kind != "ws":
                self.tokens.append((kind, value, line))
            line += value.count("\n")
            pos = m.end()
        self.i = 0
        self.depth = 0
        self.last_line = line

    def forms(self) -> Iterator[tuple[int, Any]]:
        while self.i < len(self.tokens):
            line = self.tokens[self.i][2]
            form = self.read()
            if form is not _DISCARDED:
                yield line, form

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
        if self.i >= len(self.tokens):
            raise EdnError(self.last_line, "unexpected end of input")
        kind, value, line = self.tokens[self.i]
        self.i += 1
        if kind == "string":
            return _unescape(value[1:-1], line)
        if kind == "atom":
            return _atom(value, line)
        if kind == "char":
            name = value[1:]
            if name.startswith("u") and len(name) == 5:
                return _code_point(name[1:], line)
            return _CHARS.get(name, name)
        if kind == "discard":
            self.read()
            return _DISCARDED
        if kind == "tag":
            return self.read()
        if kind == "close":
            raise EdnError(line, f"unexpected {value!r}")
        # a collection
        items: list[Any] = []
        close = _CLOSE[value]
        while True:
            if self.i >= len(self.tokens):
                raise EdnError(line, f"{value!r} opened here is never closed")
            k, v, _ = self.tokens[self.i]
            if k == "close":
                self.i += 1
                if v != close:
                    raise EdnError(self.tokens[self.i - 1][2], f"expected {close!r}, found {v!r}")
                break
            item = self.read()
            if item is not _DISCARDED:
                items.append(item)
        if value == "{":
            if len(items) % 2:
                raise EdnError(line, "a map needs an even number of forms")
            try:
                m = {items[i]: items[i + 1] for i in range(0, len(items), 2)}
            except TypeError as e:
                raise EdnError(line, f"unhashable map key: {e}") from None
            if len(m) != len(items) // 2:  # Clojure's reader refuses it too
                raise EdnError(line, "a map names a key twice")
            return m
        if value == "#{":
            try:
                members = frozenset(items)
            except TypeError as e:
                raise EdnError(line, f"unhashable set element: {e}") from None
            if len(members) != len(items):
                raise EdnError(line, "a set holds an element twice")
            return members
        return tuple(items)


_DISCARDED = object()


def read_all(text: str) -> list[tuple[int, Any]]:
    """Every top-level form of `text` with the line it starts on."""
    return list(_Reader(text).forms())


def read_items(text: str) -> list[tuple[int, Any]]:
    """The forms of `text`, except that a lone top-level vector gives its elements instead,
    each with the line it starts on (a Jepsen history is one vector of op maps)."""
    reader = _Reader(text)
    tokens = reader.tokens
    if not tokens or tokens[0][:2] != ("open", "["):
        return list(reader.forms())
    reader.i = 1
    items: list[tuple[int, Any]] = []
    while True:
        if reader.i >= len(tokens):
            raise EdnError(tokens[0][2], "'[' opened here is never closed")
        kind, value, line = tokens[reader.i]
        if kind == "close":
            if value != "]":
                raise EdnError(line, f"expected ']', found {value!r}")
            reader.i += 1
            break
        form = reader.read()
        if form is not _DISCARDED:
            items.append((line, form))
    if reader.i < len(tokens):
        raise EdnError(tokens[reader.i][2], "unexpected data after the history vector")
    return items


def read_one(text: str, line: int = 1) -> Any:
    """Exactly one form (a field of a line-oriented format); line numbers in errors offset by `line`."""
    try:
        forms = read_all(text)
    except EdnError as e:
        raise EdnError(line + e.line - 1, e.message) from None
    if len(forms) != 1:
        raise EdnError(line, f"expected one value, found {len(forms)}")
    return forms[0][1]


# --- Jepsen histories ------------------------------------------------------------------------


def _name(x: Any) -> Any:
    return x.name if isinstance(x, Keyword | Symbol) else x


def _plain(x: Any) -> Any:
    """EDN data as the checker's frozen JSON-like values (keywords become their names)."""
    if isinstance(x, Keyword | Symbol):
        return x.name
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    if isinstance(x, frozenset):
        return tuple(sorted((_plain(v) for v in x), key=repr))
    if isinstance(x, dict):
        return freeze({str(_name(k)): _plain(v) for k, v in x.items()})
    return x


def _is_pair(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) == 2


def parse_edn(text: str) -> tuple[tuple[Op, ...], tuple[int, ...]]:
    """A Jepsen `history.edn`: a vector of op maps, or one op map per line (past the 60-line
    guideline: one pass over the maps, with each field's check in place).

    Ops whose `:process` is not an integer (`:nemesis`) are not client operations and are
    skipped. A keyed history (Jepsen's `independent`) is recognised by an explicit `:key`, or
    when every invocation's value is a `[k v]` tuple (a cas then being `[k [old new]]`)."""
    try:
        maps = read_items(text)
    except EdnError as e:
        raise BadInput(str(e)) from None
    raw: list[tuple[int, dict[Any, Any]]] = []
    for line, m in maps:
        if not isinstance(m, dict):
            raise BadInput(f"line {line}: expected an op map {{:process .. :type ..}}, found {m!r}")
        for field in ("process", "type", "f"):
            if Keyword(field) not in m:
                raise BadInput(f"line {line}: op map has no :{field}")
        process = m[Keyword("process")]
        if not isinstance(process, int) or isinstance(process, bool):
            continue
        raw.append((line, m))
    invokes = [m for _, m in raw if m[Keyword("type")] == Keyword("invoke")]
    explicit = any(Keyword("key") in m for _, m in raw)
    keyed = (
        not explicit
        and bool(invokes)
        and all(_is_pair(m.get(Keyword("value"))) for m in invokes)
        and all(
            _is_pair(m[Keyword("value")][1])
            for m in invokes
            if m[Keyword("f")] == Keyword("cas")
        )
    )
    ops: list[Op] = []
    lines: list[int] = []
    for line, m in raw:
        t = _name(m[Keyword("type")])
        if t not in EVENT_TYPES:
            raise BadInput(f"line {line}: unknown :type {m[Keyword('type')]!r}")
        f = _name(m[Keyword("f")])
        if not isinstance(f, str):
            raise BadInput(f"line {line}: :f must be a keyword, found {f!r}")
        value: Any = m.get(Keyword("value"))
        key: Any = None
        if explicit:
            key = _plain(m.get(Keyword("key")))
        elif keyed and t != "info" and t != "fail":
            if not _is_pair(value):
                raise BadInput(f"line {line}: keyed history but :value {value!r} is not [key value]")
            key, value = _plain(value[0]), value[1]
        elif keyed and _is_pair(value):
            key, value = _plain(value[0]), value[1]
        time = m.get(Keyword("time"))
        ops.append(
            Op(
                process=m[Keyword("process")],
                type=t,
                f=f,
                key=key,
                value=_plain(value),
                time=time if isinstance(time, int) and not isinstance(time, bool) else None,
            )
        )
        lines.append(line)
    return tuple(ops), tuple(lines)
