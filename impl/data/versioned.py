"""The epoch at which a range's replica group last changed (Cassandra's
`VersionedEndpoints.lastModified`, kept per range by DataPlacement).

A node records each metadata whose placements differ from the previous one it applied; the
last-modified epoch of a token's read (or write) group is the epoch of the newest such
metadata whose group for that token differs from the one before. A node that started from a
snapshot knows nothing earlier, so its base epoch is the answer when no change is recorded
(conservative: it can only make a replica answer coordinator-behind more often).
"""

from __future__ import annotations

from typing import Any


def _replication(m: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((name, ks.replication.key) for name, ks in sorted(m.keyspaces.items()))


def group(m: Any, keyspace: str, token: int, *, writes: bool) -> tuple[str, ...] | None:
    if keyspace not in m.keyspaces:
        return None
    g: tuple[str, ...] = (m.write_replicas(keyspace, token) if writes
                          else m.read_replicas(keyspace, token))
    return g


class PlacementHistory:
    """Persisted on the node's Disk; answers are memoized until the next change."""

    def __init__(self) -> None:
        self.changes: list[tuple[int, Any]] = []
        self._memo: dict[tuple[str, int, bool], int] = {}
        self.newest = 0
        """The highest last-modified epoch recorded (never above the node's epoch: the
        harness checks it, CASSANDRA-19538)."""

    def observe(self, metadata: Any, *, stamp: int | None = None) -> None:
        """Record `metadata` if some keyspace's placement is not the one recorded last, as
        modified at `stamp` (its own epoch unless a known-bug switch says otherwise)."""
        if getattr(metadata, "placements", None) is None:
            return  # an engine without data placements (tests' stand-in): no data path
        if self.changes:
            last = self.changes[-1][1]
            if last.placements is metadata.placements and _replication(last) == _replication(metadata):
                return
        epoch = metadata.epoch if stamp is None else stamp
        self.changes.append((epoch, metadata))
        self.newest = max(self.newest, epoch)
        self._memo = {}

    def last_modified(self, keyspace: str, token: int, *, writes: bool) -> int:
        k = (keyspace, token, writes)
        hit = self._memo.get(k)
        if hit is not None:
            return hit
        h = self.changes
        out = 0
        if h:
            current = group(h[-1][1], keyspace, token, writes=writes)
            out = h[0][0]
            for i in range(len(h) - 1, 0, -1):
                if group(h[i - 1][1], keyspace, token, writes=writes) != current:
                    out = h[i][0]
                    break
        self._memo[k] = out
        return out
