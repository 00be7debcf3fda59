"""INITIALIZE_CMS: a gossip-era cluster becomes a TCM cluster with the initiator as its CMS.

The gates and messages are those of Cassandra's `Election` and `upgradeFromGossip` checks
(the pre-upgrade seed's "Five-Gate Readiness Model" and error reference), in that order.
"""

from __future__ import annotations

from attrs import evolve, field, frozen

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState, node_set
from spec.transformations.base import Rejected, Result, Success, Transformation


@frozen(kw_only=True)
class InitializeCMS(Transformation):
    kind = "INITIALIZE_CMS"
    node: NodeId
    ignore: frozenset[NodeId] = field(converter=node_set, default=frozenset())

    def execute(self, m: ClusterMetadata) -> Result:
        # Gate 1: can I run this from here?
        if self.node in self.ignore:
            return Rejected(f"Can't ignore local host {self.node} when doing CMS migration")
        # Gate 2: are the ignored endpoints real?
        unknown = sorted(n for n in self.ignore if n not in m.directory)
        if unknown:
            return Rejected(f"Ignored host(s) {', '.join(unknown)} don't exist in the cluster")
        # Gate 3: am I fully joined?
        state = m.directory.state(self.node)
        if state is not NodeState.JOINED:
            return Rejected(f"Initial CMS node needs to be fully joined, not: {state.name if state else 'UNKNOWN'}")
        # Gate 4: is everyone upgraded? (LEFT and ignored nodes do not count)
        for n in m.directory:
            if n.state is not NodeState.LEFT and n.id not in self.ignore and not n.version.is_upgraded:
                return Rejected(f"All nodes are not yet upgraded - {n.id} is running {n.version.release}")
        # Gate 5: is the CMS uninitialized, and nobody else migrating?
        if m.cms.initialized:
            return Rejected("Can't upgrade from gossip since CMS is already initialized")
        if m.cms.migration_initiator is not None and m.cms.migration_initiator != self.node:
            return Rejected(f"Migration already initiated by {m.cms.migration_initiator}")
        # No operation in flight and no range locked (gossip-era metadata should have none).
        if m.in_progress or m.locked_ranges:
            return Rejected("Can't initialize the CMS while topology operations are in progress")
        members = frozenset({self.node})
        cms = evolve(m.cms, reads=members, writes=members, initialized=True, migration_initiator=None)
        return Success(m.next_epoch(cms=cms))
