"""`ClusterMetadata`: the immutable, epoch-stamped state every transformation reads and replaces."""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen

from spec.cms import CMSMembership
from spec.directory import Directory
from spec.locks import LockedRanges
from spec.nodes import Node, NodeId, NodeState
from spec.placement import DataPlacement, DataPlacements, ReplicaGroups, compute_placement
from spec.replication import ReplicationParams
from spec.schema import DistributedSchema, Keyspace
from spec.sequences import InProgressSequences
from spec.token_map import TokenMap
from spec.topology import Topology

FIRST_EPOCH = 0
"""The initial topology's epoch; the first committed transformation makes epoch 1."""


@frozen(kw_only=True)
class ClusterMetadata:
    epoch: int
    directory: Directory
    token_map: TokenMap
    placements: DataPlacements
    locked_ranges: LockedRanges = LockedRanges()
    in_progress: InProgressSequences = InProgressSequences()
    schema: DistributedSchema = DistributedSchema()
    cms: CMSMembership = CMSMembership()

    @classmethod
    def initial(cls, topology: Topology, *, cms_initialized: bool = True,
                migration_initiator: NodeId | None = None) -> ClusterMetadata:
        """Every node of `topology` JOINED with its tokens; the first node by id is the CMS.

        With `cms_initialized=False` this is a gossip-era cluster waiting for INITIALIZE_CMS.
        """
        directory = Directory.of(
            Node(id=n.id, location=n.location, state=NodeState.JOINED, version=n.version)
            for n in topology.nodes
        )
        token_map = TokenMap.of((t, n.id) for n in topology.nodes for t in n.tokens)
        if len(token_map.tokens) != len(set(token_map.tokens)):
            raise ValueError("a token has two owners")
        schema = DistributedSchema.of(Keyspace(name=name, replication=params) for name, params in topology.keyspaces)
        first = frozenset({directory.nodes[0].id}) if cms_initialized else frozenset()
        m = cls(
            epoch=FIRST_EPOCH,
            directory=directory,
            token_map=token_map,
            placements=DataPlacements(),
            schema=schema,
            cms=CMSMembership(reads=first, writes=first, initialized=cms_initialized,
                              migration_initiator=migration_initiator),
        )
        return evolve(m, placements=m.placements_from_scratch())

    def next_epoch(self, **changes: Any) -> ClusterMetadata:
        """The metadata one epoch later with `changes`: every committed transformation's result."""
        return evolve(self, epoch=self.epoch + 1, **changes)

    # ---- derived views

    def boundaries(self) -> frozenset[int]:
        """Tokens the placements are cut at: owned tokens and tokens being acquired."""
        return frozenset(self.token_map.tokens) | self.in_progress.pending_tokens()

    def natural_placement(self, params: ReplicationParams, token_map: TokenMap | None = None,
                          boundaries: frozenset[int] | None = None) -> ReplicaGroups:
        tm = self.token_map if token_map is None else token_map
        ring = tm.ring(self.directory.locations())
        return compute_placement(params, ring, self.boundaries() if boundaries is None else boundaries)

    def placements_from_scratch(self) -> DataPlacements:
        """Placements computed from the token map alone, as they must be when nothing is in flight."""
        return DataPlacements.of({
            ks.name: DataPlacement.same(self.natural_placement(ks.replication)) for ks in self.schema.keyspaces
        })

    def node_ids(self) -> tuple[NodeId, ...]:
        return tuple(n.id for n in self.directory)
