"""Data placements: read and write replica groups per range, for one replication params.

A `Placement` cuts the ring at `bounds` (sorted tokens); range `i` is `(bounds[i-1], bounds[i]]`,
range 0 being the wrap-around range `(bounds[-1], bounds[0]]`. `reads[i]` and `writes[i]` are its
replica groups. Bounds are the token map's tokens plus, while a sequence is in progress, the tokens
its PREPARE split at and its FINISH will merge at.

A `Transition` is what a PREPARE computes for one placement: for every range whose replicas change,
the replicas before and after the operation. Its steps (Cassandra's `PlacementTransitionPlan`):
START adds `after - before` to writes, MID moves reads from `before` to `after`, FINISH removes
`before - after` from writes. Each step is applied as a delta to the *current* placement, so
sequences on disjoint (locked) ranges compose.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from typing import Any

from attrs import frozen

from observed.frozen import SortedGroups

Replicas = frozenset[str]
EMPTY: Replicas = frozenset()


def _ring_slice(bounds: tuple[int, ...], left: int, right: int) -> Iterator[int]:
    """Indexes of the ranges of `bounds` lying inside `(left, right]` (both must be bounds)."""
    n = len(bounds)
    if n == 0:
        return iter(())
    if left == right:
        return iter(range(n))
    if left < right:
        return iter(range(bisect_right(bounds, left), bisect_right(bounds, right)))
    return iter(
        [*range(bisect_right(bounds, left), n), *range(0, bisect_right(bounds, right))]
    )


@frozen(kw_only=True, eq=False)
class Placement:
    bounds: tuple[int, ...]
    reads: tuple[Replicas, ...]
    writes: tuple[Replicas, ...]

    @classmethod
    def at_rest(cls, bounds: tuple[int, ...], replicas: tuple[Replicas, ...]) -> Placement:
        return cls(bounds=bounds, reads=replicas, writes=replicas)

    def index_of(self, token: int) -> int:
        """Index of the range owning `token`."""
        i = bisect_left(self.bounds, token)
        return 0 if i == len(self.bounds) else i

    def read_replicas(self, token: int) -> Replicas:
        return self.reads[self.index_of(token)] if self.bounds else EMPTY

    def write_replicas(self, token: int) -> Replicas:
        return self.writes[self.index_of(token)] if self.bounds else EMPTY

    def ranges(self) -> Iterator[tuple[int, int, Replicas, Replicas]]:
        b = self.bounds
        for i in range(len(b)):
            yield b[i - 1], b[i], self.reads[i], self.writes[i]

    def same_as(self, other: Placement) -> bool:
        return (
            self.bounds == other.bounds
            and self.reads == other.reads
            and self.writes == other.writes
        )

    # -- structural changes ---------------------------------------------------------------

    def split(self, tokens: Iterable[int]) -> Placement:
        """Cut at `tokens`; each new range keeps the groups of the range it was cut from."""
        bounds, reads, writes = list(self.bounds), list(self.reads), list(self.writes)
        changed = False
        for t in sorted(set(tokens)):
            k = bisect_left(bounds, t)
            if k < len(bounds) and bounds[k] == t:
                continue
            changed = True
            src = k if k < len(bounds) else 0
            r = reads[src] if bounds else EMPTY
            w = writes[src] if bounds else EMPTY
            bounds.insert(k, t)
            reads.insert(k, r)
            writes.insert(k, w)
        if not changed:
            return self
        return Placement(bounds=tuple(bounds), reads=tuple(reads), writes=tuple(writes))

    def merge(self, tokens: Iterable[int]) -> Placement:
        """Remove the cut at each of `tokens` whose two sides have equal groups."""
        bounds, reads, writes = list(self.bounds), list(self.reads), list(self.writes)
        changed = False
        for t in sorted(set(tokens)):
            k = bisect_left(bounds, t)
            if k == len(bounds) or bounds[k] != t:
                continue
            if len(bounds) == 1:
                if reads[0] or writes[0]:
                    continue  # the last cut of a non-empty ring stays; the ring is whole anyway
                # why: the last token owner left (a forced removal after replacing the only
                # node): an ownerless ring has no cut at all, as from scratch
                changed = True
                del bounds[0], reads[0], writes[0]
                continue
            nxt = (k + 1) % len(bounds)
            if reads[k] != reads[nxt] or writes[k] != writes[nxt]:
                continue
            changed = True
            del bounds[k], reads[k], writes[k]
        if not changed:
            return self
        return Placement(bounds=tuple(bounds), reads=tuple(reads), writes=tuple(writes))

    def apply(self, entries: Iterable[TransitionEntry], step: str, *, undo: bool = False) -> Placement:
        """Apply one step ("START", "MID", "FINISH") of a transition, or undo it."""
        entries = tuple(entries)
        if not entries:
            return self
        cuts = [e.left for e in entries] + [e.right for e in entries]
        p = self.split(cuts)
        reads, writes = list(p.reads), list(p.writes)
        for e in entries:
            gained = e.after - e.before
            lost = e.before - e.after
            for i in _ring_slice(p.bounds, e.left, e.right):
                if step == "START":
                    writes[i] = writes[i] - gained if undo else writes[i] | gained
                elif step == "MID":
                    if undo:
                        reads[i] = (reads[i] - gained) | lost
                    else:
                        reads[i] = (reads[i] - lost) | gained
                elif step == "FINISH":
                    writes[i] = writes[i] | lost if undo else writes[i] - lost
                else:  # pragma: no cover - programming error
                    raise ValueError(step)
        return Placement(bounds=p.bounds, reads=tuple(reads), writes=tuple(writes))

    def reads_within_writes(self) -> bool:
        return all(r <= w for r, w in zip(self.reads, self.writes, strict=True))

    # -- JSON -------------------------------------------------------------------------------

    def groups_json(self) -> dict[str, list[dict[str, Any]]]:
        """DESIGN's `placements` value for one keyspace."""
        reads = []
        writes = []
        names = SortedGroups()
        for left, right, r, w in self.ranges():
            reads.append({"range": [left, right], "replicas": names[r]})
            writes.append({"range": [left, right], "replicas": names[w]})
        return {"reads": reads, "writes": writes}

    def to_json(self) -> dict[str, Any]:
        names = SortedGroups()  # every node's snapshot writes every placement
        return {
            "bounds": list(self.bounds),
            "reads": [names[r] for r in self.reads],
            "writes": [names[w] for w in self.writes],
        }

    @classmethod
    def from_json(cls, doc: Any) -> Placement:
        interned: dict[frozenset[str], frozenset[str]] = {}

        def group(ids: list[str]) -> Replicas:
            fs = frozenset(ids)
            return interned.setdefault(fs, fs)

        return cls(
            bounds=tuple(int(b) for b in doc["bounds"]),
            reads=tuple(group(r) for r in doc["reads"]),
            writes=tuple(group(w) for w in doc["writes"]),
        )


@frozen(kw_only=True)
class TransitionEntry:
    """Range `(left, right]` moves from `before` replicas to `after` replicas."""

    left: int
    right: int
    before: Replicas
    after: Replicas

    def to_json(self) -> list[Any]:
        return [self.left, self.right, sorted(self.before), sorted(self.after)]

    @classmethod
    def from_json(cls, doc: Any) -> TransitionEntry:
        return cls(
            left=int(doc[0]), right=int(doc[1]), before=frozenset(doc[2]), after=frozenset(doc[3])
        )


def refine(bounds: tuple[int, ...], replicas: tuple[Replicas, ...], cuts: list[int]) -> list[Replicas]:
    """The groups of `(bounds, replicas)` looked up for each range of the finer cut `cuts`."""
    n = len(bounds)
    if n == 0:
        return [EMPTY] * len(cuts)
    out = []
    for c in cuts:
        i = bisect_left(bounds, c)
        out.append(replicas[0 if i == n else i])
    return out


def transition(
    before_bounds: tuple[int, ...],
    before: tuple[Replicas, ...],
    after_bounds: tuple[int, ...],
    after: tuple[Replicas, ...],
    extra_cuts: Iterable[int] = (),
) -> tuple[TransitionEntry, ...]:
    """Entries for every range of the common refinement whose replicas change."""
    cuts = sorted(set(before_bounds) | set(after_bounds) | set(extra_cuts))
    b = refine(before_bounds, before, cuts)
    a = refine(after_bounds, after, cuts)
    out = []
    for i, c in enumerate(cuts):
        if b[i] != a[i]:
            out.append(TransitionEntry(left=cuts[i - 1], right=c, before=b[i], after=a[i]))
    return tuple(out)
