"""Hashable values: histories and logs carry JSON (or EDN) values, and model states must hash.

`freeze` turns lists into tuples and objects into `FrozenMap`s, recursively; `thaw` gives the
plain JSON value again for output. Scalars (None, bool, int, float, str) are already hashable
and pass through, as do EDN's values (`edn_values.py`, frozensets, `Decimal`s and `Fraction`s:
the EDN reader gives them frozen already).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

from attrs import field, frozen

from observed.edn_values import Char, Keyword, Symbol, Tagged


def _order(kv: tuple[Hashable, Any]) -> tuple[int, str, str]:
    """String keys (JSON's) in their own order, then any other key (an EDN map's) by type and repr."""
    k = kv[0]
    if isinstance(k, str):
        return (0, "", k)
    return (1, type(k).__name__, repr(k))


def _sorted_items(items: Any) -> tuple[tuple[Hashable, Any], ...]:
    pairs = items.items() if isinstance(items, Mapping) else items
    return tuple(sorted(pairs, key=_order))


@frozen(kw_only=True)
class FrozenMap(Mapping[Hashable, Any]):
    """An immutable, hashable map; entries are kept in one order so equal maps hash equal.
    From JSON its keys are strings; from EDN, whatever the map's keys were (`:a` stays `:a`)."""

    items_: tuple[tuple[Hashable, Any], ...] = field(converter=_sorted_items)

    def __getitem__(self, key: Hashable) -> Any:
        for k, v in self.items_:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[Hashable]:
        return (k for k, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.items_) + "}"


SCALARS = frozenset({str, int, float, bool, type(None)})


def _key(kv: tuple[Hashable, Any]) -> str:
    return cast(str, kv[0])  # only string-keyed entries are sorted by it


def _frozen_map(items: tuple[tuple[Hashable, Any], ...]) -> FrozenMap:
    """A `FrozenMap` of entries already in its order (its converter not run again)."""
    m = object.__new__(FrozenMap)
    object.__setattr__(m, "items_", items)
    return m


def freeze(value: Any) -> Any:
    """A hashable copy of a JSON-like value (lists become tuples, objects `FrozenMap`s)."""
    # why the exact-type branches first: placements and views freeze thousands of small values a
    # run, and JSON's dicts, lists and strings are exact types (an ABC check costs far more)
    t = type(value)
    if t in SCALARS or t is FrozenMap:
        return value
    if t is dict:
        # str(k) of every key: all strings, so the order of `_order` is the keys' own
        items = [(k if type(k) is str else str(k), v if type(v) in SCALARS else freeze(v))
                 for k, v in value.items()]
        items.sort(key=_key)
        return _frozen_map(tuple(items))
    if t is list or t is tuple:
        return tuple([v if type(v) in SCALARS else freeze(v) for v in value])
    if isinstance(value, FrozenMap):
        return value
    if isinstance(value, Mapping):
        return FrozenMap(items_=tuple((str(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


class SortedGroups(dict[frozenset[str], Any]):
    """Each replica group's members in order, sorted once however many ranges name it
    (`groups[group]`; lists, or tuples with `as_tuples`). Why: a placement is hundreds of ranges
    over a few groups, and views, snapshots and placement JSON list every range. What it gives is
    shared between ranges: not to be changed."""

    def __init__(self, *, as_tuples: bool = False) -> None:
        super().__init__()
        self._make: Any = tuple if as_tuples else list

    def __missing__(self, group: frozenset[str]) -> Any:
        out = self[group] = self._make(sorted(group))
        return out


def frozen_ranges(rows: Iterable[tuple[int, int, frozenset[str]]]) -> tuple[FrozenMap, ...]:
    """`freeze([{"range": [left, right], "replicas": sorted(group)} ...])`, built directly: the
    placements part of a metadata view (DESIGN's per-range list), which impl's and the spec's
    views give for every node and every epoch (why not through `freeze`: a placement is hundreds
    of ranges over a few replica groups)."""
    names = SortedGroups(as_tuples=True)
    return tuple(_frozen_map((("range", (left, right)), ("replicas", names[group]))) for left, right, group in rows)


def frozen_entries(entries: Mapping[str, Any]) -> FrozenMap:
    """A `FrozenMap` of string keys to values frozen already (not walked again, as `freeze`
    would): what `frozen_ranges` gives is put together with this."""
    return _frozen_map(tuple(sorted(entries.items(), key=_key)))


def _json_key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, Keyword | Symbol):
        return k.name
    return str(thaw(k))


def thaw(value: Any) -> Any:
    """The plain JSON value again: tuples (and sets, in a fixed order) become lists,
    `FrozenMap`s dicts; a keyword or a symbol its name, a character its one-letter string, a
    tagged literal its value, an exact number (`12.5M`, `1/3`) the nearest float."""
    if type(value) in SCALARS:
        return value
    if isinstance(value, FrozenMap):
        return {_json_key(k): thaw(v) for k, v in value.items_}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((thaw(v) for v in value), key=repr)
    if isinstance(value, Keyword | Symbol):
        return value.name
    if isinstance(value, Char):
        return value.char
    if isinstance(value, Tagged):
        return thaw(value.value)
    if isinstance(value, Decimal | Fraction):
        number = float(value)
        return number if math.isfinite(number) else str(value)
    return value
