"""Data placements: per keyspace, a read and a write replica group for every range.

`ReplicaGroups` maps each range of one keyspace to its replica set, for one direction. Ranges
are kept sorted by right token, so the wrap-around range `(last, first]` comes first and a token
is found by bisection. `PlacementDelta` is what one step of an operation adds to or removes from
the groups; applying it splits ranges where the delta's ranges cut them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping

from attrs import frozen

from spec.nodes import NodeId
from spec.replication import ReplicationParams, Ring, natural_replicas
from spec.tokens import Range, ring_ranges

Replicas = frozenset[NodeId]


@frozen
class ReplicaGroups:
    """Replica set per range for one keyspace and one direction (reads or writes)."""

    entries: tuple[tuple[Range, Replicas], ...]

    @classmethod
    def of(cls, pairs: Iterable[tuple[Range, Replicas]]) -> ReplicaGroups:
        return cls(tuple(sorted(pairs, key=lambda p: p[0].right)))

    @property
    def ranges(self) -> tuple[Range, ...]:
        return tuple(r for r, _ in self.entries)

    def __iter__(self) -> Iterator[tuple[Range, Replicas]]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def for_token(self, token: int) -> Replicas:
        """The replicas of the range containing `token`."""
        rights = [r.right for r, _ in self.entries]
        i = bisect_left(rights, token)
        return self.entries[i if i < len(rights) else 0][1]

    def for_range(self, range_: Range) -> Replicas:
        for r, replicas in self.entries:
            if r == range_:
                return replicas
        raise KeyError(range_)

    def split_at(self, tokens: Iterable[int]) -> ReplicaGroups:
        """Cut ranges at `tokens` without changing any replica set (PREPARE's split)."""
        cuts = sorted(set(tokens))
        if not cuts:
            return self
        if not self.entries:  # an empty ring (its last owner left): the first join's ranges
            return ReplicaGroups.of((Range(cuts[i - 1], cuts[i]), frozenset()) for i in range(len(cuts)))
        out: list[tuple[Range, Replicas]] = []
        for r, replicas in self.entries:
            if r.left < r.right:  # cuts strictly inside (left, right)
                inside = cuts[bisect_right(cuts, r.left):bisect_left(cuts, r.right)]
            else:  # wrapping: clockwise from left, the cuts above left, then those below right
                inside = cuts[bisect_right(cuts, r.left):] + cuts[:bisect_left(cuts, r.right)]
                if r.left == r.right:  # whole ring: every cut but the boundary itself
                    inside = [t for t in inside if t != r.right]
            if not inside:
                out.append((r, replicas))
                continue
            bounds = [r.left, *inside, r.right]
            out.extend((Range(bounds[i], bounds[i + 1]), replicas) for i in range(len(bounds) - 1))
        return ReplicaGroups.of(out)

    def range_of(self, token: int) -> Range:
        """The range containing `token`."""
        rights = [r.right for r, _ in self.entries]
        i = bisect_left(rights, token)
        return self.entries[i if i < len(rights) else 0][0]

    def merge_except(self, keep: Iterable[int]) -> ReplicaGroups:
        """Merge neighbouring ranges with equal replicas, except across tokens in `keep`.

        FINISH merges: a boundary that is no longer any node's (or any pending node's) token
        disappears once both sides have the same replicas again.
        """
        kept = set(keep)
        if not kept and all(not replicas for _, replicas in self.entries):
            return ReplicaGroups(())  # no token left at all: no range (as computed from scratch)
        if len(self.entries) <= 1:
            return self
        entries = list(self.entries)
        # Start from a boundary that stays, so each run of merges lies inside one pass.
        n = len(entries)
        start = next((i for i in range(n) if entries[i][0].right in kept
                      or entries[i][1] != entries[(i + 1) % n][1]), None)
        if start is None:  # every boundary can go: the whole ring, one group
            return ReplicaGroups(((Range(entries[0][0].right, entries[0][0].right), entries[0][1]),))
        rotated = entries[start + 1:] + entries[:start + 1]
        out: list[tuple[Range, Replicas]] = []
        for r, replicas in rotated:
            if out and out[-1][1] == replicas and out[-1][0].right not in kept:
                prev, _ = out.pop()
                out.append((Range(prev.left, r.right), replicas))
            else:
                out.append((r, replicas))
        return ReplicaGroups.of(out)

    def with_delta(self, delta: Iterable[tuple[Range, Replicas, Replicas]]) -> ReplicaGroups:
        """Add and remove replicas over ranges: `(range, added, removed)` triples.

        Each delta range must be a union of whole ranges of `self` (PREPARE split them).
        """
        entries = list(self.entries)
        index = {r: i for i, (r, _) in enumerate(entries)}
        for d_range, added, removed in delta:
            if not added and not removed:
                continue
            exact = index.get(d_range)
            # A range split again since PREPARE (by another operation's new token) is found by
            # containment; the common case is the range itself.
            hits = [exact] if exact is not None else [i for i, (r, _) in enumerate(entries) if d_range.contains(r)]
            for i in hits:
                r, replicas = entries[i]
                entries[i] = (r, (replicas - removed) | added)
        return ReplicaGroups(tuple(entries))


@frozen
class DataPlacement:
    """The read and write replica groups of one keyspace."""

    reads: ReplicaGroups
    writes: ReplicaGroups

    @classmethod
    def same(cls, groups: ReplicaGroups) -> DataPlacement:
        return cls(groups, groups)

    def split_at(self, tokens: Iterable[int]) -> DataPlacement:
        tokens = tuple(tokens)
        return DataPlacement(self.reads.split_at(tokens), self.writes.split_at(tokens))

    def merge_except(self, keep: Iterable[int]) -> DataPlacement:
        """Merge only where both reads and writes can merge, so their ranges stay aligned."""
        keep = set(keep)
        unmergeable = {r.right for (r, a), (_, b) in zip(self.reads, self.writes, strict=True) if a != b}
        both = keep | unmergeable
        return DataPlacement(self.reads.merge_except(both), self.writes.merge_except(both))


@frozen
class DataPlacements:
    """Placements of every keyspace, by keyspace name (sorted)."""

    by_keyspace: tuple[tuple[str, DataPlacement], ...] = ()

    @classmethod
    def of(cls, mapping: Mapping[str, DataPlacement]) -> DataPlacements:
        return cls(tuple(sorted(mapping.items())))

    def get(self, keyspace: str) -> DataPlacement:
        for name, placement in self.by_keyspace:
            if name == keyspace:
                return placement
        raise KeyError(keyspace)

    def keyspaces(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.by_keyspace)

    def items(self) -> tuple[tuple[str, DataPlacement], ...]:
        return self.by_keyspace

    def as_dict(self) -> dict[str, DataPlacement]:
        return dict(self.by_keyspace)

    def with_keyspace(self, keyspace: str, placement: DataPlacement | None) -> DataPlacements:
        d = self.as_dict()
        if placement is None:
            d.pop(keyspace, None)
        else:
            d[keyspace] = placement
        return DataPlacements.of(d)


def compute_placement(params: ReplicationParams, ring: Ring, boundaries: Iterable[int] = ()) -> ReplicaGroups:
    """Natural replicas for every range of `ring`, cut additionally at `boundaries`."""
    if not ring.tokens:
        return ReplicaGroups(())
    tokens = set(ring.tokens) | set(boundaries)
    cache: dict[int, Replicas] = {}
    pairs = []
    for r in ring_ranges(tuple(tokens)):
        # a range's replicas depend only on the first ring token at or after its right end
        owner_token = ring.tokens[bisect_left(ring.tokens, r.right) % len(ring.tokens)]
        if owner_token not in cache:
            cache[owner_token] = natural_replicas(params, ring, Range(owner_token, owner_token))
        pairs.append((r, cache[owner_token]))
    return ReplicaGroups.of(pairs)
