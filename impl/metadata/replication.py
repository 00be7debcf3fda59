"""Replication strategies and the from-scratch placement computation.

`ReplicationParams` is the parsed `replication` map of a keyspace. Keyspaces with equal params
share one placement (Cassandra keys `DataPlacements` by `ReplicationParams`), so `key` is the
canonical string used everywhere a placement is looked up.

`natural_replicas(params, token_map)` walks the ring clockwise from the right token of every range:
- SimpleStrategy: the first RF distinct owners.
- NetworkTopologyStrategy, per DC (Cassandra's `DatacenterEndpoints`): RF is capped by the DC's
  node count; a node from a rack not yet seen is taken; a node from a seen rack is taken only while
  "acceptable rack repeats" (RF - racks in the DC) remain, so when a DC has fewer racks than RF the
  first repeats met on the walk fill the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

from impl.metadata.ring import TokenMap

SIMPLE = "SimpleStrategy"
NTS = "NetworkTopologyStrategy"
_CLASS_ALIASES = {
    "SimpleStrategy": SIMPLE,
    "org.apache.cassandra.locator.SimpleStrategy": SIMPLE,
    "NetworkTopologyStrategy": NTS,
    "org.apache.cassandra.locator.NetworkTopologyStrategy": NTS,
}


class BadReplication(ValueError):
    """A replication map that names no known strategy or carries a bad factor."""


@frozen(kw_only=True)
class ReplicationParams:
    strategy: str
    factors: tuple[tuple[str, int], ...]
    """SimpleStrategy: (("replication_factor", rf),); NTS: sorted ((dc, rf), ...)."""

    @classmethod
    def parse(cls, doc: Any) -> ReplicationParams:
        if not isinstance(doc, Mapping):
            raise BadReplication("replication must be an object")
        klass = doc.get("class")
        if not isinstance(klass, str) or klass not in _CLASS_ALIASES:
            raise BadReplication(f"unknown replication class {klass!r}")
        strategy = _CLASS_ALIASES[klass]
        factors: list[tuple[str, int]] = []
        for name, value in doc.items():
            if name == "class":
                continue
            if strategy == SIMPLE and name != "replication_factor":
                raise BadReplication(f"SimpleStrategy does not take option {name!r}")
            rf = _rf(value)
            if rf is None:
                raise BadReplication(f"replication factor for {name!r} must be an integer")
            if rf < (1 if strategy == SIMPLE else 0):  # NTS allows a DC with 0 (no replicas there)
                raise BadReplication(f"replication factor for {name!r} must be >= {1 if strategy == SIMPLE else 0}, got {rf}")
            factors.append((str(name), rf))
        if strategy == SIMPLE and not factors:
            raise BadReplication("SimpleStrategy needs replication_factor")
        if strategy == NTS and not any(rf > 0 for _, rf in factors):
            raise BadReplication("NetworkTopologyStrategy needs a positive replication factor in some datacenter")
        return cls(strategy=strategy, factors=tuple(sorted(factors)))

    key: str = field(init=False, eq=False, repr=False)
    """The placement this replication shares with every keyspace replicated alike, by name
    (made once: every replica lookup asks it)."""

    @key.default
    def _key(self) -> str:
        return self.strategy + "{" + ",".join(f"{n}={rf}" for n, rf in self.factors) + "}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"class": self.strategy}
        out.update(dict(self.factors))
        return out

    @property
    def dc_factors(self) -> dict[str, int]:
        return dict(self.factors)

    @property
    def simple_rf(self) -> int:
        return self.factors[0][1]


def _rf(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


Replicas = frozenset[str]


def natural_replicas(params: ReplicationParams, tm: TokenMap) -> tuple[Replicas, ...]:
    """Replicas of every range `(tokens[i-1], tokens[i]]` of the token map, cached on it."""
    cached = tm._cache.get(params.key)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    if params.strategy == SIMPLE:
        result = _simple(params.simple_rf, tm)
    else:
        result = _nts(params.dc_factors, tm)
    tm._cache[params.key] = result
    return result


def _simple(rf: int, tm: TokenMap) -> tuple[Replicas, ...]:
    owners = tm.owners
    n = len(owners)
    want = min(rf, len(tm.locations))
    out: list[Replicas] = []
    interned: dict[frozenset[str], frozenset[str]] = {}
    for i in range(n):
        found: list[str] = []
        j = i
        for _ in range(n):
            o = owners[j]
            if o not in found:
                found.append(o)
                if len(found) >= want:
                    break
            j += 1
            if j == n:
                j = 0
        fs = frozenset(found)
        out.append(interned.setdefault(fs, fs))
    return tuple(out)


def _nts(factors: Mapping[str, int], tm: TokenMap) -> tuple[Replicas, ...]:
    owners = tm.owners
    n = len(owners)
    if n == 0:
        return ()
    # Per-DC inputs, integer-coded for a tight walk.
    dcs = sorted(factors)
    dc_index = {dc: k for k, dc in enumerate(dcs)}
    node_count = [0] * len(dcs)
    racks_in_dc: list[set[str]] = [set() for _ in dcs]
    node_dc: dict[str, int] = {}
    node_rack: dict[str, str] = {}
    for node, (dc, rack) in tm.locations.items():
        k = dc_index.get(dc, -1)
        node_dc[node] = k
        node_rack[node] = rack
        if k >= 0:
            node_count[k] += 1
            racks_in_dc[k].add(rack)
    rf_left0 = [min(factors[dc], node_count[k]) for k, dc in enumerate(dcs)]
    repeats0 = [factors[dc] - len(racks_in_dc[k]) for k, dc in enumerate(dcs)]
    total_wanted = sum(rf_left0)
    owner_dc = [node_dc[o] for o in owners]
    owner_rack = [node_rack[o] for o in owners]
    out: list[Replicas] = []
    interned: dict[frozenset[str], frozenset[str]] = {}
    for i in range(n):
        rf_left = list(rf_left0)
        repeats = list(repeats0)
        seen_racks: list[set[str]] = [set() for _ in dcs]
        chosen: set[str] = set()
        remaining = total_wanted
        j = i
        for _ in range(n):
            if remaining <= 0:
                break
            k = owner_dc[j]
            if k >= 0 and rf_left[k] > 0:
                o = owners[j]
                if o not in chosen:
                    rack = owner_rack[j]
                    racks = seen_racks[k]
                    if rack not in racks:
                        racks.add(rack)
                        chosen.add(o)
                        rf_left[k] -= 1
                        remaining -= 1
                    elif repeats[k] > 0:
                        chosen.add(o)
                        repeats[k] -= 1
                        rf_left[k] -= 1
                        remaining -= 1
            j += 1
            if j == n:
                j = 0
        fs = frozenset(chosen)
        out.append(interned.setdefault(fs, fs))
    return tuple(out)
