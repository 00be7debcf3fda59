"""Tokens and token ranges of the Murmur3 ring.

A token is a plain `int` (a hot type: validating every one would cost more than it protects).
`Range(left, right)` is the half-open ring segment `(left, right]`; when `left >= right` it wraps
past the maximum token back to the minimum, and `(t, t]` is the whole ring. The minimum token
-2**63 is never a key's token, so it never lies inside any range's ownership by a node.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NewType

from attrs import frozen

MIN_TOKEN = -(2**63)
MAX_TOKEN = 2**63 - 1

Token = NewType("Token", int)


def token_tuple(tokens: Iterable[int]) -> tuple[int, ...]:
    """attrs converter: any iterable of tokens becomes a tuple (idempotent)."""
    return tuple(tokens)


def is_valid_token(value: int) -> bool:
    """Murmur3 tokens are signed 64-bit. Keys never hash to the minimum, but a node may own it
    (as in Cassandra; LockedRanges then treats two ranges touching it as conflicting)."""
    return MIN_TOKEN <= value <= MAX_TOKEN


@frozen(order=True)
class Range:
    """The ring segment `(left, right]`; wraps when `left >= right`."""

    left: int
    right: int

    @property
    def wraps(self) -> bool:
        return self.left >= self.right

    @property
    def is_full_ring(self) -> bool:
        return self.left == self.right

    def contains_token(self, token: int) -> bool:
        if self.left < self.right:
            return self.left < token <= self.right
        if self.left == self.right:
            return True
        return token > self.left or token <= self.right

    def unwrap(self) -> tuple[tuple[int, int], ...]:
        """The segment as one or two non-wrapping `(lo, hi]` intervals over [MIN_TOKEN, MAX_TOKEN]."""
        if self.left < self.right:
            return ((self.left, self.right),)
        parts = []
        if self.left < MAX_TOKEN:
            parts.append((self.left, MAX_TOKEN))
        if self.right > MIN_TOKEN:
            parts.append((MIN_TOKEN, self.right))
        return tuple(parts)

    def intersects(self, other: Range) -> bool:
        for lo, hi in self.unwrap():
            for olo, ohi in other.unwrap():
                if max(lo, olo) < min(hi, ohi):
                    return True
        return False

    def contains(self, other: Range) -> bool:
        """True when every token of `other` lies in `self`."""
        if self.is_full_ring:
            return True
        if other.is_full_ring:
            return False
        mine = self.unwrap()
        return all(any(lo <= olo and ohi <= hi for lo, hi in mine) for olo, ohi in other.unwrap())

    def __repr__(self) -> str:
        return f"Range({self.left}, {self.right})"


def ring_ranges(tokens: list[int] | tuple[int, ...]) -> tuple[Range, ...]:
    """The ranges a sorted set of distinct tokens cuts the ring into, ordered by right token.

    The wrap-around range `(last, first]` comes first, because its right token is the smallest.
    One token gives the whole ring `(t, t]`; no tokens give no ranges.
    """
    ordered = sorted(set(tokens))
    if not ordered:
        return ()
    return tuple(Range(ordered[i - 1], ordered[i]) for i in range(len(ordered)))
