"""impl's metadata engine: what a CMS member needs to validate and apply a transformation.

Public interface: `Metadata` (immutable metadata at an epoch; `from_topology`, `from_gossip`,
`from_json`/`to_json`, `digest`, `placements_json`, replica lookups), `execute(metadata,
transformation) -> Accepted | Rejected`, `InvalidTopology`, `cms_target_size`.
Placement code is impl's own (`replication.py`, `placement.py`); it never calls spec/.
"""

from impl.metadata.errors import InvalidTopology
from impl.metadata.execute import KINDS, execute
from impl.metadata.metadata import Metadata, placement_from_scratch
from impl.metadata.placement import Placement
from impl.metadata.records import cms_target_size
from impl.metadata.replication import ReplicationParams
from impl.metadata.results import Accepted, Rejected, Result

__all__ = [
    "KINDS",
    "Accepted",
    "InvalidTopology",
    "Metadata",
    "Placement",
    "Rejected",
    "ReplicationParams",
    "Result",
    "cms_target_size",
    "execute",
    "placement_from_scratch",
]
