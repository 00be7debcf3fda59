"""The arithmetic Cassandra's token allocators do, bit for bit: Murmur3Partitioner's `midpoint`,
`split` and `LongToken.size`, `java.util.Random` and `java.util.PriorityQueue` (whose order among
equal weights the allocators inherit).

Murmur3Partitioner (dht/Murmur3Partitioner.java, trunk): `midpoint` and `split` compute in
BigInteger / BigDecimal (exact here with `int` and `Decimal`), `split` takes its ratio through
`BigDecimal.valueOf(double)` (the double's shortest decimal text, which `repr` gives) and truncates
toward zero (`toBigInteger`); `size` scales the wrapped 64-bit difference by 2^-64, a token's
size to itself being the whole ring (1.0).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from decimal import ROUND_DOWN, Context, Decimal
from typing import Generic, TypeVar

MINIMUM = -(2**63)
MAXIMUM = 2**63 - 1
_EXACT = Context(prec=80)


def size(token: int, following: int) -> float:
    """LongToken.size(next): the share of the ring in (token, next]; 1.0 when they are equal."""
    v = ((following - token + 2**63) % 2**64) - 2**63  # `n.token - token` overflows as a long does
    d = math.ldexp(float(v), -64)
    return d if d > 0.0 else d + 1.0


def midpoint(left: int, right: int) -> int:
    if left < right:
        return (left + right) >> 1
    mid = (MAXIMUM - MINIMUM + left + right) >> 1  # the wrapping case
    return MINIMUM + (mid - MAXIMUM) if mid > MAXIMUM else mid


def split(left: int, right: int, ratio: float) -> int:
    r = Decimal(repr(ratio))
    if left < right:
        value = _EXACT.add(_EXACT.multiply(Decimal(right - left), r), Decimal(left))
        return int(value.to_integral_value(rounding=ROUND_DOWN))
    span = Decimal(MAXIMUM - MINIMUM + right - left)
    token = int(_EXACT.add(_EXACT.multiply(span, r), Decimal(left)).to_integral_value(rounding=ROUND_DOWN))
    return token if token <= MAXIMUM else MINIMUM + (token - MAXIMUM)


def java_double_compare(a: float, b: float) -> int:
    """Double.compare: numeric order, then -0.0 < 0.0 and NaN last (by their bits)."""
    if a < b:
        return -1
    if a > b:
        return 1
    bits_a = struct.unpack(">q", struct.pack(">d", a))[0] if not math.isnan(a) else 0x7FF8000000000000
    bits_b = struct.unpack(">q", struct.pack(">d", b))[0] if not math.isnan(b) else 0x7FF8000000000000
    return (bits_a > bits_b) - (bits_a < bits_b)


class JavaRandom:
    """java.util.Random: the 48-bit linear congruential generator (seeded as Java seeds it)."""

    _MULT = 0x5DEECE66D
    _MASK = (1 << 48) - 1

    def __init__(self, seed: int) -> None:
        self._seed = (seed ^ self._MULT) & self._MASK

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * self._MULT + 0xB) & self._MASK
        value = self._seed >> (48 - bits)
        return value - (1 << bits) if bits == 32 and value >= 1 << 31 else value

    def next_double(self) -> float:
        return ((self._next(26) << 27) + self._next(27)) * (1.0 / (1 << 53))

    def next_long(self) -> int:
        value = (self._next(32) << 32) + self._next(32)
        return ((value + 2**63) % 2**64) - 2**63


T = TypeVar("T")


class JavaPriorityQueue(Generic[T]):
    """java.util.PriorityQueue's binary heap (siftUp / siftDown as in the JDK), so that elements
    of equal weight come out in the order Java's would give. `compare(a, b) < 0` means a first."""

    def __init__(self, compare: Callable[[T, T], int]) -> None:
        self._queue: list[T] = []
        self._compare = compare

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, x: T) -> None:
        q = self._queue
        q.append(x)
        k = len(q) - 1
        while k > 0:
            parent = (k - 1) >> 1
            e = q[parent]
            if self._compare(x, e) >= 0:
                break
            q[k] = e
            k = parent
        q[k] = x

    def peek(self) -> T | None:
        return self._queue[0] if self._queue else None

    def poll(self) -> T:
        q = self._queue
        result = q[0]
        x = q.pop()
        if q:
            self._sift_down(0, x)
        return result

    def _sift_down(self, k: int, x: T) -> None:
        q = self._queue
        n = len(q)
        half = n >> 1
        while k < half:
            child = 2 * k + 1
            c = q[child]
            right = child + 1
            if right < n and self._compare(c, q[right]) > 0:
                child = right
                c = q[child]
            if self._compare(x, c) <= 0:
                break
            q[k] = c
            k = child
        q[k] = x


__all__ = ["MAXIMUM", "MINIMUM", "JavaPriorityQueue", "JavaRandom", "java_double_compare", "midpoint", "size", "split"]
