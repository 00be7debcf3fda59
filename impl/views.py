"""What impl reads off a node at the end of a run, or when it installs a snapshot or restarts:
its metadata as the view the judge compares with the spec's (`metadata_view`), and where its
disk's log stands (`disk_applied`, `disk_chain`). The run's observations themselves are
observed/run.py's records, built by impl/final_state.py.
"""

from __future__ import annotations

from typing import Any

from impl.node.log import Disk
from observed.frozen import FrozenMap, freeze, frozen_entries, frozen_ranges


def metadata_view(metadata: Any) -> FrozenMap | None:
    """What a node's metadata says about the cluster, as a frozen JSON value: placements, each
    node's state and tokens, the CMS read and write sets (None for an engine without placements)."""
    if not hasattr(metadata, "placements_json"):
        return None
    nodes = {n: [metadata.node_state(n).value, list(metadata.tokens_of(n))] for n in metadata.directory}
    view: FrozenMap = freeze({"epoch": metadata.epoch, "placements": _placements(metadata),
                              "nodes": nodes, "cms": [sorted(metadata.cms_members()),
                                                      sorted(metadata.cms_write_members())]})
    return view


def _placements(metadata: Any) -> FrozenMap:
    """`freeze(metadata.placements_json())`, built directly (`frozen_ranges`); keyspaces that
    share a replication share their placement's value."""
    by_key: dict[Any, FrozenMap] = {}
    out: dict[str, FrozenMap] = {}
    for name, ks in metadata.keyspaces.items():
        key = ks.replication.key
        value = by_key.get(key)
        if value is None:
            p = metadata.placements[key]
            ranges = [(left, right) for left, right, _, _ in p.ranges()]
            value = by_key[key] = frozen_entries({
                "reads": frozen_ranges((left, right, g) for (left, right), g in zip(ranges, p.reads, strict=True)),
                "writes": frozen_ranges((left, right, g) for (left, right), g in zip(ranges, p.writes, strict=True))})
        out[name] = value
    return frozen_entries(out)


def disk_applied(disk: Disk) -> int:
    return max(disk.entries, default=disk.base.epoch)


def disk_chain(disk: Disk) -> str:
    if disk.entries:
        return disk.chains[max(disk.entries)]
    return disk.base.chain


__all__ = ["disk_applied", "disk_chain", "metadata_view"]
