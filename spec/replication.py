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


class _DatacenterReplicas:
    """One DC's share of an NTS walk: distinct racks first, then rack repeats in walk order."""

    def __init__(self, rf: int, node_count: int, rack_count: int):
        self.remaining = min(rf, node_count)
        self.rack_count = rack_count
        self.racks: set[str] = set()
        self.chosen: list[NodeId] = []
        # None once every rack has been seen: from then on any new node is taken directly.
        self.rack_repeats: list[NodeId] | None = []

    @property
    def done(self) -> bool:
        return self.remaining <= 0

    def offer(self, node: NodeId, rack: str) -> None:
        if self.done or node in self.chosen:
            return
        if rack not in self.racks:
            self.racks.add(rack)
            self._take(node)
            if len(self.racks) == self.rack_count and self.rack_repeats is not None:
                for repeat in self.rack_repeats:
                    if self.done:
                        break
                    self._take(repeat)
                self.rack_repeats = None
            return
        if self.rack_repeats is not None:
            if node not in self.rack_repeats:
                self.rack_repeats.append(node)
        else:
            self._take(node)

    def _take(self, node: NodeId) -> None:
        self.chosen.append(node)
        self.remaining -= 1


def _network_topology(params: NetworkTopologyStrategy, ring: Ring, token: int) -> frozenset[NodeId]:
    nodes_by_dc, racks_by_dc = ring.nodes_by_dc, ring.racks_by_dc
    dcs = {
        dc: _DatacenterReplicas(rf, len(nodes_by_dc.get(dc, ())), len(racks_by_dc.get(dc, ())))
        for dc, rf in params.dc_factors
        if rf > 0 and dc in nodes_by_dc
    }
    pending = [d for d in dcs.values() if not d.done]
    if pending:
        for node in ring.walk(token):
            loc = ring.locations[node]
            dc = dcs.get(loc.dc)
            if dc is not None:
                dc.offer(node, loc.rack)
                if all(d.done for d in pending):
                    break
    return frozenset(n for d in dcs.values() for n in d.chosen)
