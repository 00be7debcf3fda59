"""The prover's input: replica groups per range, per keyspace, per epoch, as plain frozen values.

A `History` is what the prover reads, and nothing else: no spec objects, no dicts, no lists, so
it pickles, hashes and compares by value. `checkers/quorum/from_spec.py` builds one from the
spec's metadata; tests build them by hand (`History.of(...)`, `KeyspacePlacement.of(...)`).

- `RangeGroups`: one range `(left, right]` with its read group and its write group (Cassandra's
  natural replicas are the read group; pending replicas are in the write group but not the read
  group).
- `KeyspacePlacement`: a keyspace's replication parameters and its ranges, sorted by right
  token, covering the ring once (a single range `(t, t]` is the whole ring).
- `EpochPlacements`: every keyspace's placement at one epoch, plus the CMS read and write sets.
- `History`: the epochs in order and the datacenter of every node that appears in any of them
  (a node's location never changes).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping

from attrs import field, frozen

from spec.replication import NetworkTopologyStrategy, ReplicationParams, SimpleStrategy
from spec.tokens import Range

__all__ = [
    "EpochPlacements",
    "History",
    "KeyspacePlacement",
    "NetworkTopologyStrategy",
    "RangeGroups",
    "ReplicationParams",
    "SimpleStrategy",
]


@frozen(kw_only=True, cache_hash=True)
class RangeGroups:
    """One range's read group and write group at one epoch."""

    range: Range
    reads: frozenset[str]
    writes: frozenset[str]

    @property
    def pending(self) -> frozenset[str]:
        """Write replicas that are not read replicas: each one costs a write one more ack."""
        return self.writes - self.reads


def _sorted_ranges(instance: object, attribute: object, value: tuple[RangeGroups, ...]) -> None:
    rights = [g.range.right for g in value]
    if rights != sorted(set(rights)):
        raise ValueError("ranges must be sorted by right token, without repeats")


@frozen(kw_only=True, cache_hash=True)
class KeyspacePlacement:
    """A keyspace's replication parameters and its read/write groups per range."""

    keyspace: str
    replication: ReplicationParams
    ranges: tuple[RangeGroups, ...] = field(validator=_sorted_ranges)

    @classmethod
    def of(
        cls,
        keyspace: str,
        replication: ReplicationParams,
        ranges: Iterable[tuple[Range, Iterable[str], Iterable[str]]],
    ) -> KeyspacePlacement:
        """From `(range, reads, writes)` triples in any order."""
        groups = [RangeGroups(range=r, reads=frozenset(rd), writes=frozenset(wr)) for r, rd, wr in ranges]
        groups.sort(key=lambda g: g.range.right)
        return cls(keyspace=keyspace, replication=replication, ranges=tuple(groups))

    @property
    def rights(self) -> tuple[int, ...]:
        return tuple(g.range.right for g in self.ranges)

    def at_token(self, token: int) -> RangeGroups:
        """The groups of the range that holds `token` (bisection on right tokens)."""
        i = bisect_left(self.rights, token)
        return self.ranges[i if i < len(self.ranges) else 0]


@frozen(kw_only=True, cache_hash=True)
class EpochPlacements:
    """Everything the prover needs about one epoch."""

    epoch: int
    keyspaces: tuple[KeyspacePlacement, ...] = ()
    cms_reads: frozenset[str] = frozenset()
    cms_writes: frozenset[str] = frozenset()

    def keyspace(self, name: str) -> KeyspacePlacement | None:
        for ks in self.keyspaces:
            if ks.keyspace == name:
                return ks
        return None

    def keyspace_names(self) -> tuple[str, ...]:
        return tuple(ks.keyspace for ks in self.keyspaces)


def _increasing_epochs(instance: object, attribute: object, value: tuple[EpochPlacements, ...]) -> None:
    epochs = [e.epoch for e in value]
    if epochs != sorted(set(epochs)):
        raise ValueError("epochs must be strictly increasing")


@frozen(kw_only=True)
class LockedBarrier:
    """One locked range of a progress barrier and the replicas it waits for there."""

    keyspace: str
    range: Range
    participants: frozenset[str]


@frozen(kw_only=True)
class StepBarrier:
    """The progress barrier that ran before the step committed at `epoch` (Cassandra's
    ProgressBarrier): per locked range, the replicas it waits for. An epoch with no entry in a
    history's `barriers` had no barrier (a cancel, a one-epoch UNSAFE_JOIN/ASSASSINATE, a
    schema change, START_JOIN's immediate barrier)."""

    epoch: int
    ranges: tuple[LockedBarrier, ...]


@frozen(kw_only=True)
class History:
    """Epochs in order, and the datacenter of every node named anywhere in them.

    `barriers`, when given (None: unknown), says which barrier guarded each step; the prover's
    barrier mode then models Cassandra's barrier instead of one over every replica."""

    epochs: tuple[EpochPlacements, ...] = field(validator=_increasing_epochs)
    datacenters: tuple[tuple[str, str], ...] = ()
    barriers: tuple[StepBarrier, ...] | None = None

    @classmethod
    def of(cls, epochs: Iterable[EpochPlacements], datacenters: Mapping[str, str]) -> History:
        return cls(epochs=tuple(epochs), datacenters=tuple(sorted(datacenters.items())))

    def __attrs_post_init__(self) -> None:
        known = {n for n, _ in self.datacenters}
        for e in self.epochs:
            for ks in e.keyspaces:
                for g in ks.ranges:
                    missing = (g.reads | g.writes) - known
                    if missing:
                        raise ValueError(f"epoch {e.epoch}: no datacenter for {sorted(missing)}")

    def barrier_at(self, epoch: int) -> StepBarrier | None:
        for b in self.barriers or ():
            if b.epoch == epoch:
                return b
        return None

    def dc_map(self) -> dict[str, str]:
        return dict(self.datacenters)

    def dc_names(self) -> tuple[str, ...]:
        return tuple(sorted({dc for _, dc in self.datacenters}))
