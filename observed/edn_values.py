"""The values of Jepsen's histories that JSON has no word for: keywords, symbols, characters and
tagged literals (EDN's `:read`, `foo`, `\\a`, `#inst "..."`).

They are values like any other to the checker (frozen, hashable, compared with `==`), kept so
that an EDN history's values stay what Clojure reads: `:x` is not `"x"` (Knossos compares them
with Clojure's `=`, and so do we), and output writes `:x` back (`campaign/formats/history_out.py`).
JSON output writes a keyword or a symbol as its name, a character as a one-letter string and a
tagged literal as its value (`frozen.thaw`), as Jepsen's JSON exports do. A model reading a name
(a transaction's `:read`) takes a keyword, a symbol or a string alike (`name_of`). `edn` writes
any history value as EDN (output, and the words of Knossos' models).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from attrs import frozen


@frozen
class Keyword:
    """`:name` (a namespaced keyword keeps its namespace: `:jepsen.history/op`)."""

    name: str

    def __repr__(self) -> str:
        return f":{self.name}"


@frozen
class Symbol:
    name: str

    def __repr__(self) -> str:
        return self.name


CHAR_NAMES = {"\n": "newline", " ": "space", "\t": "tab", "\r": "return", "\b": "backspace", "\f": "formfeed"}


@frozen
class Char:
    """A character (`\\a`): not the one-letter string "a", as in Clojure."""

    char: str

    def __repr__(self) -> str:
        named = CHAR_NAMES.get(self.char)
        if named is not None:
            return "\\" + named
        if self.char.isprintable():
            return "\\" + self.char
        return f"\\u{ord(self.char):04x}"


@frozen
class Tagged:
    """A tagged literal other than a record (`#inst "2024-01-01"`, `#uuid "..."`): its tag (no
    `#`) and the value it tags. Records (`#jepsen.history.Op{...}`) are read as their map."""

    tag: str
    value: Any

    def __repr__(self) -> str:
        return f"#{self.tag} {self.value!r}"


def name_of(x: Any) -> str | None:
    """The name a keyword, a symbol or a string spells (`:read`, `read`, "read"), else None."""
    if isinstance(x, str):
        return x
    if isinstance(x, Keyword | Symbol):
        return x.name
    return None


def edn(value: Any) -> str:
    """`value` in EDN: nil, booleans, numbers (`2.5M`, `1/3`, `##Inf`), strings, characters,
    keywords, symbols, tagged literals, vectors (tuples and lists), sets and maps (the order of a
    frozen map's entries, else insertion order)."""
    if value is None:
        return "nil"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Keyword | Symbol | Char):
        return repr(value)
    if isinstance(value, Tagged):
        return f"#{value.tag} {edn(value.value)}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "##NaN" if math.isnan(value) else ("##Inf" if value > 0 else "##-Inf")
        return repr(value)
    if isinstance(value, Decimal):
        return f"{value}M"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, str):
        # JSON's escapes (\" \\ \n \t \uXXXX ...) are EDN's too
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + " ".join(edn(v) for v in value) + "]"
    if isinstance(value, frozenset | set):
        return "#{" + " ".join(sorted(edn(v) for v in value)) + "}"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{edn(k)} {edn(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no EDN for {type(value).__name__}")
