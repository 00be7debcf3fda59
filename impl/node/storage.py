"""Replica storage: per keyspace and key the value with the highest write timestamp.

Last write wins, ties broken by the value (values are unique, so every replica resolves the
same way). It lives on the node's Disk: a crash keeps it (Cassandra's commit log).
"""

from __future__ import annotations

from collections.abc import Iterable

Cell = tuple[int, int]  # (timestamp, value)


class ReplicaStorage:
    def __init__(self, data: dict[tuple[str, str], Cell]) -> None:
        self._data = data

    def apply(self, keyspace: str, key: str, timestamp: int, value: int) -> bool:
        """Store unless a newer cell is there; True if the stored cell changed."""
        k = (keyspace, key)
        old = self._data.get(k)
        if old is not None and old >= (timestamp, value):
            return False
        self._data[k] = (timestamp, value)
        return True

    def read(self, keyspace: str, key: str) -> Cell | None:
        return self._data.get((keyspace, key))

    def rows_in(self, keyspace: str, token_of: dict[str, int],
                ranges: Iterable[tuple[int, int]]) -> list[tuple[str, int, int]]:
        """Every (key, timestamp, value) of `keyspace` whose token lies in one of `ranges`
        ((left, right], wrapping when left >= right), sorted by key."""
        rs = tuple(ranges)
        out = []
        for (ks, key), (ts, value) in sorted(self._data.items()):
            if ks == keyspace and any(in_range(token_of[key], lo, hi) for lo, hi in rs):
                out.append((key, ts, value))
        return out


def in_range(token: int, left: int, right: int) -> bool:
    """`token` in (left, right]; the range wraps around the ring when left >= right."""
    if left < right:
        return left < token <= right
    return token > left or token <= right
