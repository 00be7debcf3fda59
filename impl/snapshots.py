"""Metadata snapshots: ClusterMetadata serialized at every `interval`-th epoch.

The CEP triggers snapshots "via an event in the metadata log, so non-CMS nodes can perform and
persist them independently". Here the trigger is the epoch itself (every multiple of the
interval, default 100 like `metadata_snapshot_frequency`): every node reaches the same epochs
in the same order, so every node takes the same snapshots without an extra log entry. A
snapshot carries the log's chain hash at its epoch, so a node that installs it continues the
same chain as a node that replayed every entry.
"""

from __future__ import annotations

from typing import Any

from impl.entry import Snapshot

DEFAULT_INTERVAL = 100


def is_snapshot_epoch(epoch: int, interval: int) -> bool:
    return interval > 0 and epoch > 0 and epoch % interval == 0


def take(metadata: Any, epoch: int, chain: str, entry_ids: dict[str, int]) -> Snapshot:
    """`entry_ids`: every entry id committed up to `epoch` (deduplication outlives the entries
    a snapshot replaces)."""
    ids = tuple(sorted((i, e) for i, e in entry_ids.items() if e <= epoch))
    return Snapshot(epoch=epoch, chain=chain, metadata=metadata.to_json(), entry_ids=ids)


def newest_after(snapshots: list[Snapshot], after: int) -> Snapshot | None:
    """The newest snapshot with epoch > `after`, if any."""
    if snapshots and snapshots[-1].epoch > after:
        return snapshots[-1]
    return None
