"""Keys to tokens, as Cassandra's Murmur3Partitioner does: the first 64 bits of MurmurHash3
x64-128 (seed 0) over the key's UTF-8 bytes, as a signed long, with Long.MIN_VALUE mapped to
Long.MAX_VALUE (MIN is not a valid token). Deterministic across runs and platforms.

Why "-like": Cassandra's Java port sign-extends tail bytes; this is the reference algorithm.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F
MIN_TOKEN = -(2**63)
MAX_TOKEN = 2**63 - 1


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _MASK


def _fmix(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _MASK
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _MASK
    k ^= k >> 33
    return k


def murmur3_x64_128_low(data: bytes) -> int:
    """The first (h1) 64-bit half of MurmurHash3 x64-128 with seed 0, unsigned."""
    n = len(data)
    h1 = h2 = 0
    nblocks = n // 16
    for i in range(nblocks):
        k1 = int.from_bytes(data[16 * i:16 * i + 8], "little")
        k2 = int.from_bytes(data[16 * i + 8:16 * i + 16], "little")
        k1 = (_rotl((k1 * _C1) & _MASK, 31) * _C2) & _MASK
        h1 ^= k1
        h1 = (_rotl(h1, 27) + h2) & _MASK
        h1 = (h1 * 5 + 0x52DCE729) & _MASK
        k2 = (_rotl((k2 * _C2) & _MASK, 33) * _C1) & _MASK
        h2 ^= k2
        h2 = (_rotl(h2, 31) + h1) & _MASK
        h2 = (h2 * 5 + 0x38495AB5) & _MASK
    tail = data[16 * nblocks:]
    k1 = k2 = 0
    if len(tail) > 8:
        k2 = int.from_bytes(tail[8:], "little")
        k2 = (_rotl((k2 * _C2) & _MASK, 33) * _C1) & _MASK
        h2 ^= k2
    if tail:
        k1 = int.from_bytes(tail[:8], "little")
        k1 = (_rotl((k1 * _C1) & _MASK, 31) * _C2) & _MASK
        h1 ^= k1
    h1 ^= n
    h2 ^= n
    h1 = (h1 + h2) & _MASK
    h2 = (h2 + h1) & _MASK
    h1 = _fmix(h1)
    h2 = _fmix(h2)
    h1 = (h1 + h2) & _MASK
    return h1


def token(key: str) -> int:
    h = murmur3_x64_128_low(key.encode())
    signed = h - (1 << 64) if h >= 1 << 63 else h
    return MAX_TOKEN if signed == MIN_TOKEN else signed
