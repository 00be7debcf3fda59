"""Hashable JSON: histories and logs carry JSON values, and model states must be hashable
(a run's observations, impl's and a file's histories, and the checkers share these).

`freeze` turns lists into tuples and objects into `FrozenMap`s, recursively; `thaw` undoes it
for output. Scalars (None, bool, int, float, str) are already hashable and pass through.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from attrs import field, frozen


def _sorted_items(items: Any) -> tuple[tuple[str, Any], ...]:
    pairs = items.items() if isinstance(items, Mapping) else items
    return tuple(sorted(((str(k), v) for k, v in pairs), key=lambda kv: kv[0]))


@frozen(kw_only=True)
class FrozenMap(Mapping[str, Any]):
    """An immutable, hashable JSON object; keys are kept sorted so equal objects hash equal."""

    items_: tuple[tuple[str, Any], ...] = field(converter=_sorted_items)

    def __getitem__(self, key: str) -> Any:
        for k, v in self.items_:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.items_) + "}"


SCALARS = frozenset({str, int, float, bool, type(None)})


def freeze(value: Any) -> Any:
    """A hashable copy of a JSON-like value (lists become tuples, objects `FrozenMap`s)."""
    if type(value) in SCALARS:
        return value
    if isinstance(value, FrozenMap):
        return value
    if isinstance(value, Mapping):
        return FrozenMap(items_=tuple((str(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The plain JSON value again (tuples become lists, `FrozenMap`s dicts)."""
    if isinstance(value, FrozenMap):
        return {k: thaw(v) for k, v in value.items_}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value
