"""Membership of the Cluster Metadata Service as read and write replica sets of the log.

The CEP: "adding a node to the ownership group is as simple as: 1. add the node to the write
replica set ... 2. add the node to the read replica set", so read and write sets never differ
by more than one node. A reconfiguration is a queue of such single-node steps.
"""

from __future__ import annotations

import enum

from attrs import frozen

from spec.nodes import NodeId


class CMSStepKind(enum.Enum):
    ADD_TO_WRITES = "ADD_TO_WRITES"
    ADD_TO_READS = "ADD_TO_READS"
    REMOVE = "REMOVE"
    FINISH = "FINISH"
    """The separate last step: drop the sequence and release the lock (AdvanceCMSReconfiguration)."""

    def __repr__(self) -> str:
        return f"CMSStepKind.{self.name}"


@frozen
class CMSStep:
    kind: CMSStepKind
    node: NodeId


@frozen
class CMSReconfiguration:
    """Steps still to run, in order: additions first (grow, then shrink), then FINISH.
    `next_index` is the sequence index the next ADVANCE must carry (Cassandra's
    AdvanceCMSReconfiguration.sequenceIndex)."""

    remaining: tuple[CMSStep, ...]
    next_index: int = 0


CMS_LOCK_HOLDER = "system_cluster_metadata"
"""The lock key of a CMS reconfiguration: PrepareCMSReconfiguration locks the entire range of the
metadata keyspace's replication, held here under the metadata keyspace's name."""


@frozen(kw_only=True)
class CMSMembership:
    reads: frozenset[NodeId] = frozenset()
    writes: frozenset[NodeId] = frozenset()
    reconfiguration: CMSReconfiguration | None = None
    initialized: bool = True
    migration_initiator: NodeId | None = None
    """Set when a gossip-era cluster has started (but not finished) migrating to TCM."""

    @property
    def members(self) -> frozenset[NodeId]:
        return self.reads | self.writes


def cms_target_size(cluster_size: int) -> int:
    """The CEP's sizing policy: 1 up to 2 nodes, 3 up to 5, 5 up to 100, then 10."""
    if cluster_size <= 2:
        return 1
    if cluster_size <= 5:
        return 3
    if cluster_size <= 100:
        return 5
    return 10
