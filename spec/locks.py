"""Range locks: an operation holds, per keyspace, the ranges its sequence may change.

A PREPARE is rejected when any of its affected ranges intersects a range locked by another
sequence in the same keyspace; FINISH and CANCEL release the lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attrs import frozen

from spec.nodes import NodeId
from spec.tokens import MIN_TOKEN, Range


def _touches_min(r: Range) -> bool:
    return MIN_TOKEN in (r.left, r.right)


def _conflict(a: Range, b: Range) -> bool:
    """Cassandra's LockedRanges: ranges conflict when they intersect, and two ranges that both
    touch the minimum token conflict too (a node may own it; `(x, MIN]` and `(MIN, y]` meet there)."""
    return a.intersects(b) or (_touches_min(a) and _touches_min(b))


@frozen
class AffectedRanges:
    """Ranges per keyspace, sorted by keyspace name."""

    by_keyspace: tuple[tuple[str, tuple[Range, ...]], ...] = ()

    @classmethod
    def of(cls, mapping: Mapping[str, Iterable[Range]]) -> AffectedRanges:
        return cls(tuple(sorted((ks, tuple(sorted(set(rs)))) for ks, rs in mapping.items() if rs)))

    def ranges(self, keyspace: str) -> tuple[Range, ...]:
        return dict(self.by_keyspace).get(keyspace, ())

    def intersects(self, other: AffectedRanges) -> bool:
        theirs = dict(other.by_keyspace)
        for ks, ranges in self.by_keyspace:
            for r in ranges:
                if any(_conflict(r, o) for o in theirs.get(ks, ())):
                    return True
        return False

    def contains(self, keyspace: str, range_: Range) -> bool:
        return any(r.contains(range_) for r in self.ranges(keyspace))

    def __bool__(self) -> bool:
        return bool(self.by_keyspace)


@frozen
class LockedRanges:
    """The locks held by in-progress sequences, keyed by the node performing the operation."""

    locks: tuple[tuple[NodeId, AffectedRanges], ...] = ()

    def conflicting(self, affected: AffectedRanges) -> NodeId | None:
        """The holder of a lock that `affected` intersects, if any."""
        for holder, held in self.locks:
            if held.intersects(affected):
                return holder
        return None

    def lock(self, holder: NodeId, affected: AffectedRanges) -> LockedRanges:
        return LockedRanges(tuple(sorted([*self.locks, (holder, affected)], key=lambda e: e[0])))

    def unlock(self, holder: NodeId) -> LockedRanges:
        return LockedRanges(tuple(e for e in self.locks if e[0] != holder))

    def covers(self, keyspace: str, range_: Range) -> bool:
        return any(held.contains(keyspace, range_) for _, held in self.locks)

    def __bool__(self) -> bool:
        return bool(self.locks)
