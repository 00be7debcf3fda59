"""Where the CMS should be: the harness's CMSPlacementStrategy, and the two reconfigurations
Cassandra's operator paths run (trunk 6bbe85ef). Pure functions of a node's metadata.

- `ensure` is `ClusterMetadataService.ensureCMSPlacement` -> `reconfigureCMS(ReplicationParams.
  meta(metadata))` -> `PrepareCMSReconfiguration.Complex(params, downNodes)`: the CMS placed anew
  at its replication, leaving out the nodes the failure detector sees down (refused by `verify`
  below a majority of that size, which ensureCMSPlacement only logs). Run by the node that
  finished a join, replace or move (BootstrapAndJoin/BootstrapAndReplace/Move.executeNext after
  FINISH: CASSANDRA-19705).
- `without` is `ReconfigureCMS.maybeReconfigureCMS(metadata, toRemove)` ->
  `PrepareCMSReconfiguration.Simple(toRemove, downNodes)`: nothing unless `toRemove` is a CMS
  member; else the CMS at the same replication without it, refused by `verify` ("Too many nodes
  are currently DOWN to safely perform the reconfiguration") below a majority of that size. Run
  before replace (Startup.startup), decommission and removenode (SingleNodeSequences) and
  assassinate (Assassinate.assassinateEndpoint: CASSANDRA-19768).

The CMS's replication (`ReplicationParams.meta`) is the operator's choice: in the harness, a
fixed size the scenario names (`cms.size`, `cms.members`, `cms_changes`) or, by default, the
CEP's sizing policy over the JOINED nodes the deciding node knows (the operator following the
CEP). Every peer, current members included, passes `CMSPlacementStrategy.DefaultNodeFilter`
(JOINED, in no in-progress sequence) and the caller's predicate (not down, not the node removed)
or is no candidate; current members among the candidates keep their seats, and the lowest ids
fill the rest (spec/cms_placement.py, which the
engine also runs when a reconfiguration submitted with a `placement` executes: Cassandra's
Simple and Complex compute their change in `execute(prev)`, so what these functions return when
a node decides is only its guess of what the CMS will do).
"""

from __future__ import annotations

from typing import Any

from impl.engine import in_sequences
from spec.cms_placement import place

Plan = tuple[tuple[str, ...], tuple[str, ...]]
"""(add, remove): the PREPARE_CMS_RECONFIGURATION to submit."""

POLICY = -1
"""The CMS replication that follows the CEP's sizing policy (the default)."""
CURRENT = 0
"""The CMS replication that keeps the CMS's current size (a scenario that leaves the CMS alone)."""


def policy_size(cluster_size: int) -> int:
    """The CEP: "1 CMS node for a cluster size up to 2; 3 CMS nodes in a cluster of up to 5
    nodes, 5 CMS nodes in a cluster of up to 100 nodes, and 10 CMS nodes thereafter"."""
    if cluster_size <= 2:
        return 1
    if cluster_size <= 5:
        return 3
    if cluster_size <= 100:
        return 5
    return 10


def policy_members(node_ids: list[str], size: int) -> tuple[str, ...]:
    return tuple(sorted(node_ids)[:size])


def joined(metadata: Any, fallback: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The JOINED nodes of the metadata (without a directory: `fallback`)."""
    directory = getattr(metadata, "directory", None)
    if isinstance(directory, dict):
        return sorted(n for n, rec in directory.items()
                      if getattr(getattr(rec, "state", None), "value", None) == "JOINED")
    return sorted(fallback)


def replication(metadata: Any, members: tuple[str, ...], rf: int) -> int:
    """`ReplicationParams.meta(metadata)`: the size the CMS is placed at."""
    if rf == POLICY:
        return policy_size(len(joined(metadata)))
    if rf == CURRENT:
        return len(members)
    return rf


def placement(metadata: Any, members: tuple[str, ...], size: int, *, down: frozenset[str] = frozenset(),
              exclude: frozenset[str] = frozenset(), fallback: list[str] | tuple[str, ...] = (),
              keep_departed: bool = False) -> tuple[str, ...]:
    """The CMS of `size` members over the JOINED nodes not down, not excluded and in no
    in-progress sequence (issue 25), current members included (issue 33): current members among
    them keep their seats, lowest ids first when there are too many, then the lowest others. `keep_departed` is the switch
    `decommission-shrinks-cms` (CASSANDRA-18416): a member no longer JOINED keeps its seat."""
    ring = joined(metadata, fallback)
    if not ring:
        return members
    return place(ring, members, size, busy=in_sequences(metadata), down=down, exclude=exclude,
                 keep_departed=keep_departed)


TOO_MANY_DOWN = "Too many nodes are currently DOWN to safely perform the reconfiguration"
"""PrepareCMSReconfiguration.verify's refusal: the new CMS below a majority of its size."""


def ensure(metadata: Any, members: tuple[str, ...], rf: int, down: frozenset[str]) -> Plan | str | None:
    """PrepareCMSReconfiguration.Complex at the CMS's replication; None when nothing changes
    (Cassandra commits that as a no-op: "resulted in no required modifications");
    `ClusterMetadataService.reconfigureCMS`'s `transformation.verify(metadata)` refusal when the
    candidates are fewer than a majority of the size (ensureCMSPlacement only logs it)."""
    size = replication(metadata, members, rf)
    target = placement(metadata, members, size, down=down)
    if len(target) < size // 2 + 1:
        return TOO_MANY_DOWN
    add = tuple(sorted(set(target) - set(members)))
    remove = tuple(sorted(set(members) - set(target)))
    return (add, remove) if add or remove else None


def without(metadata: Any, members: tuple[str, ...], to_remove: str, rf: int, down: frozenset[str],
            *, shrink: bool = False) -> Plan | str | None:
    """ReconfigureCMS.maybeReconfigureCMS: None when `to_remove` is not a member; else the Simple
    reconfiguration's plan, or `verify`'s refusal. `shrink` is the switch
    `decommission-shrinks-cms` (CASSANDRA-18416): the member leaves with no one in its place."""
    if to_remove not in members:
        return None
    size = replication(metadata, members, rf)
    target = placement(metadata, members, size, down=down, exclude=frozenset({to_remove}))
    if shrink:
        target = tuple(m for m in members if m != to_remove)
    if len(target) < size // 2 + 1:
        return TOO_MANY_DOWN
    add = tuple(sorted(set(target) - set(members)))
    remove = tuple(sorted(set(members) - set(target)))
    return (add, remove)


def complex_placement(metadata: Any, members: tuple[str, ...], rf: int, down: frozenset[str]) -> dict[str, Any]:
    """The `placement` of PrepareCMSReconfiguration.Complex(ReplicationParams.meta(metadata),
    downNodes): the size as this node knows it, computed where it executes."""
    return {"size": replication(metadata, members, rf), "down": sorted(down)}


def simple_placement(metadata: Any, members: tuple[str, ...], to_remove: str, rf: int, down: frozenset[str]) -> dict[str, Any]:
    """The `placement` of PrepareCMSReconfiguration.Simple(toRemove, downNodes). Cassandra's
    Simple keeps `ReplicationParams.meta(prev)` where it executes; the harness carries the size
    from the submitting node's metadata (the CMS's replication changes only by a Complex
    reconfiguration, which the metadata keyspace's lock keeps from running meanwhile)."""
    return {"size": replication(metadata, members, rf), "down": sorted(down), "without": to_remove}


__all__ = ["CURRENT", "POLICY", "TOO_MANY_DOWN", "Plan", "complex_placement", "ensure", "joined", "placement", "policy_members", "policy_size",
           "replication", "simple_placement", "without"]
