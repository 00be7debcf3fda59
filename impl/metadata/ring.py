"""The token map: which JOINED node owns which token, and where each owner lives.

A `TokenMap` is the input of placement computation and nothing else: sorted tokens, the owner of
each, and the (dc, rack) of every owner. Locations travel with the token map so that a placement
computed from it can be cached on it: the same token map always gives the same placements.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from typing import Any


class TokenMap:
    """Immutable; `tokens` sorted ascending, `owners[i]` owns `tokens[i]`.

    Not an attrs class on purpose: it is hashed and compared by content only where needed
    (`same_ring`), and it carries a private cache of placements computed from it.
    """

    __slots__ = ("tokens", "owners", "locations", "_cache", "_by_node")

    def __init__(
        self,
        tokens: tuple[int, ...],
        owners: tuple[str, ...],
        locations: Mapping[str, tuple[str, str]],
    ) -> None:
        self.tokens = tokens
        self.owners = owners
        self.locations: dict[str, tuple[str, str]] = dict(locations)
        self._cache: dict[str, Any] = {}
        self._by_node: dict[str, tuple[int, ...]] | None = None

    @classmethod
    def build(
        cls, owned: Iterable[tuple[int, str]], locations: Mapping[str, tuple[str, str]]
    ) -> TokenMap:
        pairs = sorted(owned)
        owners = tuple(o for _, o in pairs)
        locs = {o: locations[o] for o in set(owners)}
        return cls(tuple(t for t, _ in pairs), owners, locs)

    @classmethod
    def empty(cls) -> TokenMap:
        return cls((), (), {})

    def __len__(self) -> int:
        return len(self.tokens)

    def same_ring(self, other: TokenMap) -> bool:
        return (
            self.tokens == other.tokens
            and self.owners == other.owners
            and self.locations == other.locations
        )

    def owner_of(self, token: int) -> str | None:
        i = bisect_left(self.tokens, token)
        if i < len(self.tokens) and self.tokens[i] == token:
            return self.owners[i]
        return None

    def tokens_of(self, node: str) -> tuple[int, ...]:
        if self._by_node is None:
            by: dict[str, list[int]] = {}
            for t, o in zip(self.tokens, self.owners, strict=True):
                by.setdefault(o, []).append(t)
            self._by_node = {n: tuple(ts) for n, ts in by.items()}
        return self._by_node.get(node, ())

    def nodes(self) -> frozenset[str]:
        return frozenset(self.locations)

    def items(self) -> Iterable[tuple[int, str]]:
        return zip(self.tokens, self.owners, strict=True)

    # -- derived token maps (each a fresh object, so a fresh placement cache) --------------

    def with_tokens(self, node: str, tokens: Iterable[int], location: tuple[str, str]) -> TokenMap:
        locs = dict(self.locations)
        locs[node] = location
        return TokenMap.build([*self.items(), *((t, node) for t in tokens)], locs)

    def without_node(self, node: str) -> TokenMap:
        locs = {n: loc for n, loc in self.locations.items() if n != node}
        return TokenMap.build([(t, o) for t, o in self.items() if o != node], locs)

    def moved(self, node: str, tokens: Iterable[int]) -> TokenMap:
        loc = self.locations[node]
        return self.without_node(node).with_tokens(node, tokens, loc)

    def replaced(self, old: str, new: str, location: tuple[str, str]) -> TokenMap:
        locs = {n: loc for n, loc in self.locations.items() if n != old}
        locs[new] = location
        return TokenMap.build([(t, new if o == old else o) for t, o in self.items()], locs)

    def relocated(self, changes: Mapping[str, tuple[str, str]]) -> TokenMap:
        locs = dict(self.locations)
        for n, loc in changes.items():
            if n in locs:
                locs[n] = loc
        return TokenMap(self.tokens, self.owners, locs)
