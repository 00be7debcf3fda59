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


def observe(history: list[tuple[int, Any]], metadata: Any) -> None:
    """Record `metadata` if some keyspace's placement is not the one recorded last."""
    if getattr(metadata, "placements", None) is None:
        return  # an engine without data placements (tests' stand-in): no data path
    if history:
        last = history[-1][1]
        if last.placements is metadata.placements and _replication(last) == _replication(metadata):
            return
    history.append((metadata.epoch, metadata))


def _replication(m: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((name, ks.replication.key) for name, ks in sorted(m.keyspaces.items()))


def last_modified(history: list[tuple[int, Any]], keyspace: str, token: int, *, writes: bool) -> int:
    def group(m: Any) -> tuple[str, ...] | None:
        if keyspace not in m.keyspaces:
            return None
        g: tuple[str, ...] = (m.write_replicas(keyspace, token) if writes
                              else m.read_replicas(keyspace, token))
        return g

    if not history:
        return 0
    current = group(history[-1][1])
    for i in range(len(history) - 1, 0, -1):
        if group(history[i - 1][1]) != current:
            return history[i][0]
    return history[0][0]
