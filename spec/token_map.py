"""The token map: which node owns which tokens (several per node with vnodes)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attrs import frozen

from spec.nodes import Location, NodeId
from spec.replication import Ring


@frozen
class TokenMap:
    """`(token, owner)` pairs sorted by token; a token has exactly one owner."""

    entries: tuple[tuple[int, NodeId], ...] = ()

    @classmethod
    def of(cls, pairs: Iterable[tuple[int, NodeId]]) -> TokenMap:
        return cls(tuple(sorted(pairs)))

    @property
    def tokens(self) -> tuple[int, ...]:
        return tuple(t for t, _ in self.entries)

    def owners(self) -> frozenset[NodeId]:
        return frozenset(n for _, n in self.entries)

    def tokens_of(self, node: NodeId) -> tuple[int, ...]:
        return tuple(t for t, n in self.entries if n == node)

    def owner_of(self, token: int) -> NodeId | None:
        for t, n in self.entries:
            if t == token:
                return n
        return None

    def with_tokens(self, node: NodeId, tokens: Iterable[int]) -> TokenMap:
        return TokenMap.of([*self.entries, *((t, node) for t in tokens)])

    def without_node(self, node: NodeId) -> TokenMap:
        return TokenMap(tuple(e for e in self.entries if e[1] != node))

    def with_node_tokens(self, node: NodeId, tokens: Iterable[int]) -> TokenMap:
        """Replace all of `node`'s tokens (move)."""
        return self.without_node(node).with_tokens(node, tokens)

    def reassigned(self, old: NodeId, new: NodeId) -> TokenMap:
        """Hand `old`'s tokens to `new` (replace)."""
        return TokenMap.of([(t, new if n == old else n) for t, n in self.entries])

    def ring(self, locations: Mapping[NodeId, Location]) -> Ring:
        return Ring(self.entries, locations)
