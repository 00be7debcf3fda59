"""What impl reads off a node at the end of a run, or when it installs a snapshot or restarts:
its metadata as the view the judge compares with the spec's (`metadata_view`), and where its
disk's log stands (`disk_applied`, `disk_chain`). The run's observations themselves are
observed/run.py's records, built by impl/final_state.py.
"""

from __future__ import annotations

from typing import Any

from impl.node.log import Disk
from observed.frozen import FrozenMap, freeze


def metadata_view(metadata: Any) -> FrozenMap | None:
    """What a node's metadata says about the cluster, as a frozen JSON value: placements, each
    node's state and tokens, the CMS read and write sets (None for an engine without placements)."""
    if not hasattr(metadata, "placements_json"):
        return None
    nodes = {n: [metadata.node_state(n).value, list(metadata.tokens_of(n))] for n in metadata.directory}
    view: FrozenMap = freeze({"epoch": metadata.epoch, "placements": metadata.placements_json(),
                              "nodes": nodes, "cms": [sorted(metadata.cms_members()),
                                                      sorted(metadata.cms_write_members())]})
    return view


def disk_applied(disk: Disk) -> int:
    return max(disk.entries, default=disk.base.epoch)


def disk_chain(disk: Disk) -> str:
    if disk.entries:
        return disk.chains[max(disk.entries)]
    return disk.base.chain


__all__ = ["disk_applied", "disk_chain", "metadata_view"]
