"""Replication strategies as values, and the spec's own computation of natural replicas.

`SimpleStrategy`: walking the ring clockwise from the token that owns a range, the first RF
distinct nodes. `NetworkTopologyStrategy`: per DC, the same walk restricted to the DC, taking
nodes on racks not yet seen first; the nodes passed over because their rack was already taken
fill the remaining places, in the order met, once every rack of the DC has been seen. RF is
capped by the DC's node count (Cassandra's `NetworkTopologyStrategy.calculateNaturalReplicas`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping

from attrs import field, frozen

from spec.nodes import Location, NodeId
from spec.tokens import Range


def _positive(instance: object, attribute: object, value: int) -> None:
    if value < 1:
        raise ValueError(f"replication factor must be at least 1, got {value}")


def _dc_factors(instance: object, attribute: object, value: tuple[tuple[str, int], ...]) -> None:
    if not value:
        raise ValueError("NetworkTopologyStrategy needs at least one datacenter")
    if list(value) != sorted(dict(value).items()):
        raise ValueError("datacenter factors must be sorted by datacenter and unique")
    for dc, rf in value:
        if rf < 0:
            raise ValueError(f"replication factor for {dc} must not be negative, got {rf}")
    if sum(rf for _, rf in value) < 1:
        raise ValueError("NetworkTopologyStrategy needs a positive replication factor somewhere")


@frozen(kw_only=True)
class SimpleStrategy:
    replication_factor: int = field(validator=_positive)

    @property
    def total_rf(self) -> int:
        return self.replication_factor


@frozen(kw_only=True)
class NetworkTopologyStrategy:
    dc_factors: tuple[tuple[str, int], ...] = field(validator=_dc_factors)

    @classmethod
    def of(cls, factors: Mapping[str, int]) -> NetworkTopologyStrategy:
        return cls(dc_factors=tuple(sorted(factors.items())))

    def factor(self, dc: str) -> int:
        return dict(self.dc_factors).get(dc, 0)

    @property
    def total_rf(self) -> int:
        return sum(rf for _, rf in self.dc_factors)


ReplicationParams = SimpleStrategy | NetworkTopologyStrategy


class Ring:
    """Token ring snapshot used to walk clockwise: sorted tokens and their owners.

    Built once per placement calculation; not a value type (it is never stored in metadata).
    """

    def __init__(self, owners: Iterable[tuple[int, NodeId]], locations: Mapping[NodeId, Location]):
        pairs = sorted(owners)
        self.tokens: list[int] = [t for t, _ in pairs]
        self.owners: list[NodeId] = [n for _, n in pairs]
        self.locations = locations
        self.nodes_by_dc: dict[str, set[NodeId]] = {}
        self.racks_by_dc: dict[str, set[str]] = {}
        for node in set(self.owners):
            loc = locations[node]
            self.nodes_by_dc.setdefault(loc.dc, set()).add(node)
            self.racks_by_dc.setdefault(loc.dc, set()).add(loc.rack)
        # Per ring position: the owner's DC and rack as small ints, for the hot NTS walk.
        self.dc_ids = {dc: i for i, dc in enumerate(sorted(self.nodes_by_dc))}
        rack_ids = {(dc, rack): j for dc, racks in self.racks_by_dc.items() for j, rack in enumerate(sorted(racks))}
        self.pos_dc = [self.dc_ids[locations[n].dc] for n in self.owners]
        self.pos_rack_bit = [1 << rack_ids[(locations[n].dc, locations[n].rack)] for n in self.owners]

    def walk(self, token: int) -> Iterable[NodeId]:
        """Owners clockwise from the first token >= `token`, once around the ring."""
        n = len(self.tokens)
        start = bisect_left(self.tokens, token) % n if n else 0
        for i in range(n):
            yield self.owners[(start + i) % n]


def natural_replicas(params: ReplicationParams, ring: Ring, range_: Range) -> frozenset[NodeId]:
    """The replicas of `range_` (its right token is the owning token) under `params`."""
    if isinstance(params, SimpleStrategy):
        return _simple(params.replication_factor, ring, range_.right)
    return _network_topology(params, ring, range_.right)


def _simple(rf: int, ring: Ring, token: int) -> frozenset[NodeId]:
    chosen: list[NodeId] = []
    for node in ring.walk(token):
        if node not in chosen:
            chosen.append(node)
            if len(chosen) == rf:
                break
    return frozenset(chosen)


def _network_topology(params: NetworkTopologyStrategy, ring: Ring, token: int) -> frozenset[NodeId]:
    """One clockwise walk serving every DC at once; see the module docstring for the rules."""
    dcs = len(ring.dc_ids)
    want = [0] * dcs  # per DC: places still to fill
    all_racks = [0] * dcs  # per DC: bitmask of its racks
    for dc_name, rf in params.dc_factors:
        i = ring.dc_ids.get(dc_name)
        if rf > 0 and i is not None:
            want[i] = min(rf, len(ring.nodes_by_dc[dc_name]))
            all_racks[i] = (1 << len(ring.racks_by_dc[dc_name])) - 1
    pending = sum(1 for w in want if w > 0)
    seen = [0] * dcs  # per DC: bitmask of racks already holding a replica
    # Nodes passed over because their rack was taken; None once every rack of the DC is seen.
    repeats: list[list[NodeId] | None] = [[] for _ in range(dcs)]
    chosen: list[NodeId] = []
    n = len(ring.tokens)
    start = bisect_left(ring.tokens, token) % n if n else 0
    owners, pos_dc, pos_rack = ring.owners, ring.pos_dc, ring.pos_rack_bit
    for step in range(n):
        if not pending:
            break
        p = (start + step) % n
        dc = pos_dc[p]
        left = want[dc]
        if left <= 0:
            continue
        node = owners[p]
        if node in chosen:
            continue  # vnodes: a node counts once
        rack = pos_rack[p]
        waiting = repeats[dc]
        if not seen[dc] & rack:
            seen[dc] |= rack
            chosen.append(node)
            left -= 1
            if seen[dc] == all_racks[dc] and waiting is not None:
                # every rack seen: the first rack repeats met fill the remaining places
                for repeat in waiting:
                    if left <= 0:
                        break
                    chosen.append(repeat)
                    left -= 1
                repeats[dc] = None
        elif waiting is not None:
            if node not in waiting:
                waiting.append(node)
        else:
            chosen.append(node)
            left -= 1
        want[dc] = left
        if left <= 0:
            pending -= 1
    return frozenset(chosen)
