"""Cassandra's two token allocators, ported step for step from dht/tokenallocator/ (trunk):
`ReplicationAwareTokenAllocator` (several replicas: choose each new token among the midpoints of
the existing ranges by the improvement it brings to the variance of token and unit ownership,
re-ranking lazily from a priority queue) and `NoReplicationTokenAllocator` (one replica per
allocation ring: take over the largest vnodes of the most loaded units), with
`TokenAllocatorBase.generateSplits` for the first units of a ring.

A unit is a node (an address); its group is its rack when the strategy groups by rack, else the
node itself. `sorted_tokens` is the allocation ring: the tokens of the nodes that share ownership
with the new one (token_allocation.py chooses it). The allocator adds the new unit's tokens to it.

Where Java iterates a HashMap (NoReplicationTokenAllocator's units into its priority queue), the
port iterates units in ring order: the two differ only between units whose ownership is exactly
equal. This file is past the 400-line guideline because it is the two allocators of one Java
package, kept side by side with their shared base as there.
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Callable
from typing import Any

from campaign.operator.murmur3 import (
    JavaPriorityQueue,
    JavaRandom,
    java_double_compare,
    midpoint,
    size,
    split,
)

MIN_INITIAL_SPLITS_RATIO = 1.0 - 1.0 / math.sqrt(5.0)
MAX_INITIAL_SPLITS_RATIO = MIN_INITIAL_SPLITS_RATIO + 0.075


class AllocatorRing:
    """A NavigableMap<Token, Unit>: sorted tokens and their owners."""

    def __init__(self, owners: dict[int, str]) -> None:
        self.owner = dict(owners)
        self.tokens = sorted(owners)

    def put(self, token: int, unit: str) -> None:
        if token not in self.owner:
            insort(self.tokens, token)
        self.owner[token] = unit

    def __len__(self) -> int:
        return len(self.tokens)


class Unit:
    """UnitInfo: a unit, its group, its (replicated) ownership and token count."""

    def __init__(self, unit: str, group: object, ownership: float) -> None:
        self.unit, self.group, self.ownership = unit, group, ownership
        self.token_count = 0
        self.prev_used: Unit | None = None
        self.adjusted_ownership = 0.0


class TokenInfo:
    """BaseTokenInfo / TokenInfo / CandidateInfo: a node of a circular list."""

    def __init__(self, token: int, owner: Unit, split_at: TokenInfo | None = None) -> None:
        self.token, self.owner = token, owner
        self.split = split_at  # candidates: the existing token this one would precede
        self.prev: TokenInfo = self
        self.next: TokenInfo = self
        self.replication_start = token
        self.replication_threshold = token
        self.replicated_ownership = 0.0

    def prev_in_ring(self) -> TokenInfo:
        return self.split.prev if self.split is not None else self.prev

    def insert_after(self, head: TokenInfo | None, unit: TokenInfo | None) -> TokenInfo:
        if head is None:
            self.prev = self.next = self
            return self
        assert unit is not None
        self.prev, self.next = unit, unit.next
        unit.next = self
        self.next.prev = self
        return head

    def remove_from(self, head: TokenInfo) -> TokenInfo | None:
        self.next.prev = self.prev
        self.prev.next = self.next
        return (None if self is self.next else self.next) if self is head else head


def _by_weight(a: tuple[float, Any], b: tuple[float, Any]) -> int:
    """Weighted.compareTo: the heavier first (`Double.compare(o.weight, this.weight)`)."""
    return java_double_compare(b[0], a[0])


class Allocator:
    """TokenAllocatorBase."""

    def __init__(self, ring: AllocatorRing, replicas: int, group_of: Callable[[str], object]) -> None:
        self.ring, self.replicas, self.group_of = ring, replicas, group_of

    def unit_infos(self, groups: dict[object, object]) -> dict[str, Unit]:
        out: dict[str, Unit] = {}
        for t in self.ring.tokens:
            unit = self.ring.owner[t]
            info = out.get(unit)
            if info is None:
                info = out[unit] = Unit(unit, self._group(unit, groups), 0.0)
            info.token_count += 1
        return out

    def _group(self, unit: str, groups: dict[object, object]) -> object:
        key = self.group_of(unit)
        return groups.setdefault(key, object())

    def generate_splits(self, new_unit: str, num_tokens: int, random_token: Callable[[], int]) -> list[int]:
        """Split the largest span at a ratio in [MIN, MAX) drawn from `new Random(sortedTokens.size())`."""
        random = JavaRandom(len(self.ring))
        growth = MAX_INITIAL_SPLITS_RATIO - MIN_INITIAL_SPLITS_RATIO
        tokens: list[int] = []
        if not len(self.ring):
            t = random_token()
            tokens.append(t)
            self.ring.put(t, new_unit)
        while len(tokens) < num_tokens:
            prev = self.ring.tokens[-1]
            biggest, t1, t2 = 0.0, None, None
            for curr in self.ring.tokens:
                sz = size(prev, curr)
                if sz > biggest:
                    biggest, t1, t2 = sz, prev, curr
                prev = curr
            assert t1 is not None and t2 is not None
            t = split(t1, t2, MIN_INITIAL_SPLITS_RATIO + growth * random.next_double())
            tokens.append(t)
            self.ring.put(t, new_unit)
        return tokens


class ReplicationAwareAllocator(Allocator):
    """ReplicationAwareTokenAllocator.addUnit and its helpers."""

    def add_unit(self, new_unit: str, num_tokens: int, random_token: Callable[[], int]) -> list[int]:
        units_present = {self.ring.owner[t] for t in self.ring.tokens}
        if len(units_present) < self.replicas or num_tokens > len(self.ring):
            return self.generate_splits(new_unit, num_tokens, random_token)
        opt = self.replicas / (len(self.ring) + num_tokens)
        groups: dict[object, object] = {}
        units = self.unit_infos(groups)
        if len(groups) < self.replicas:
            return self.generate_splits(new_unit, num_tokens, random_token)
        new_info = Unit(new_unit, self._group(new_unit, groups), num_tokens * opt)
        head = self._token_infos(units, new_info.group)
        new_info.token_count = num_tokens
        candidates: TokenInfo | None = self._candidates(head, new_info, opt)
        improvements: JavaPriorityQueue[tuple[float, TokenInfo]] = JavaPriorityQueue(_by_weight)
        assert candidates is not None
        c = candidates
        while True:
            improvements.add((self._improvement(c, opt, 1.0 / num_tokens), c))
            c = c.next
            if c is candidates:
                break
        added: list[int] = []
        best = improvements.poll()[1]
        vn = 1
        while True:
            assert candidates is not None
            candidates = best.remove_from(candidates)
            self._confirm(best)
            added.append(best.token)
            if vn == num_tokens:
                break
            while True:
                best = improvements.poll()[1]
                impr = self._improvement(best, opt, (vn + 1.0) / num_tokens)
                following = improvements.peek()
                if following is None or impr >= following[0]:
                    break
                improvements.add((impr, best))
            vn += 1
        return added

    def _token_infos(self, units: dict[str, Unit], new_group: object) -> TokenInfo:
        first: TokenInfo | None = None
        prev: TokenInfo | None = None
        for t in self.ring.tokens:
            info = TokenInfo(t, units[self.ring.owner[t]])
            first = info.insert_after(first, prev)
            prev = info
        assert first is not None
        curr = first
        while True:
            self._populate_and_adjust(curr, new_group)
            curr = curr.next
            if curr is first:
                return first

    def _candidates(self, tokens: TokenInfo, new_unit: Unit, opt: float) -> TokenInfo:
        curr = tokens
        first: TokenInfo | None = None
        prev: TokenInfo | None = None
        while True:
            candidate = TokenInfo(midpoint(curr.prev.token, curr.token), new_unit, split_at=curr)
            first = candidate.insert_after(first, prev)
            candidate.replicated_ownership = opt
            self._populate(candidate, new_unit.group)
            prev = candidate
            curr = curr.next
            if curr is tokens:
                break
        assert prev is not None and first is not None
        prev.next = first
        return first

    def _confirm(self, candidate: TokenInfo) -> None:
        new_unit = candidate.owner
        self.ring.put(candidate.token, new_unit.unit)
        prev = candidate.prev_in_ring()
        info = TokenInfo(candidate.token, new_unit)
        info.replicated_ownership = candidate.replicated_ownership
        info.insert_after(prev, prev)
        self._populate_and_adjust(info, new_unit.group)
        seen: set[int] = set()
        assert info.next is candidate.split
        curr = info.next
        while len(seen) < self.replicas:
            candidate = candidate.next
            self._populate(candidate, candidate.owner.group)
            group = id(curr.owner.group)
            if group not in seen:
                seen.add(group)
                self._populate_and_adjust(curr, new_unit.group)
            curr = curr.next

    def _populate(self, token: TokenInfo, new_group: object) -> int:
        """populateTokenInfo: the replication start and threshold of `token`."""
        token_group = token.owner.group
        seen: list[object] = []
        threshold = token.token
        curr = token.prev_in_ring()
        while True:
            start = curr.token
            group = curr.owner.group
            if not any(g is group for g in seen):
                seen.append(group)
                if len(seen) >= self.replicas:
                    break
                threshold = start
                if group is token_group:
                    break
            curr = curr.prev
        if new_group is token_group:
            threshold = token.token
        elif new_group is not group and any(g is new_group for g in seen):
            threshold = start
        token.replication_threshold = threshold
        token.replication_start = start
        return start

    def _populate_and_adjust(self, token: TokenInfo, new_group: object) -> None:
        start = self._populate(token, new_group)
        new = size(start, token.token)
        old = token.replicated_ownership
        token.replicated_ownership = new
        token.owner.ownership += new - old

    def _improvement(self, candidate: TokenInfo, opt: float, new_unit_mult: float) -> float:
        """evaluateImprovement: minus the change in variance of token and unit ownership."""
        tracker = _Tracker(candidate.owner)
        change = self._adjust(candidate, candidate.owner, candidate.replication_start, candidate.token, opt, tracker)
        seen: set[int] = set()
        curr = candidate.split
        assert curr is not None
        while len(seen) < self.replicas:
            group = id(curr.owner.group)
            if group not in seen:
                seen.add(group)
                start = _further_start(curr.replication_threshold, candidate.token, curr.token)
                change += self._adjust(curr, curr.owner, start, curr.token, opt, tracker)
            curr = curr.next
        return -(change + tracker.unit_change(new_unit_mult, opt))

    @staticmethod
    def _adjust(curr: TokenInfo, unit: Unit, start: int, end: int, opt: float, tracker: _Tracker) -> float:
        old = curr.replicated_ownership
        new = size(start, end)
        count = unit.token_count
        assert count > 0
        tracker.add(unit, new - old)
        return (_sq(new - opt) - _sq(old - opt)) / _sq(count)


class _Tracker:
    """UnitAdjustmentTracker: the chain of units a candidate affects, ending at the new unit."""

    def __init__(self, new_unit: Unit) -> None:
        self.chain = new_unit

    def add(self, unit: Unit, diff: float) -> None:
        if unit.prev_used is None:
            unit.adjusted_ownership = unit.ownership + diff
            unit.prev_used = self.chain
            self.chain = unit
        else:
            unit.adjusted_ownership += diff

    def unit_change(self, new_unit_mult: float, opt: float) -> float:
        change = 0.0
        chain = self.chain
        while True:
            count = chain.token_count
            diff = _sq(chain.adjusted_ownership / count - opt) - _sq(chain.ownership / count - opt)
            prev = chain.prev_used
            chain.prev_used = None
            if chain is not prev:
                change += diff
            else:
                change += diff * new_unit_mult
                break
            assert prev is not None
            chain = prev
        self.chain = chain
        return change


def _sq(d: float) -> float:
    return d * d


def _further_start(t1: int, t2: int, towards: int) -> int:
    if t1 == towards:
        return t2
    if t2 == towards:
        return t1
    return t1 if size(t1, towards) > size(t2, towards) else t2


MAX_TAKEOVER_RATIO = 0.90
MIN_TAKEOVER_RATIO = 1.0 - MAX_TAKEOVER_RATIO


class NoReplicationAllocator(Allocator):
    """NoReplicationTokenAllocator.addUnit."""

    def add_unit(self, new_unit: str, num_tokens: int, random_token: Callable[[], int]) -> list[int]:
        groups: dict[object, object] = {}
        new_info = Unit(new_unit, self._group(new_unit, groups), 0.0)
        units = self.unit_infos(groups)
        if not units or num_tokens > len(self.ring):
            return self.generate_splits(new_unit, num_tokens, random_token)
        sorted_units: JavaPriorityQueue[tuple[float, Unit]] = JavaPriorityQueue(_by_weight)
        in_units: dict[str, JavaPriorityQueue[tuple[float, TokenInfo]]] = {}
        head = self._token_infos(units, sorted_units, in_units)
        target_average, total = 0.0, 0.0
        to_change: list[tuple[float, Unit]] = []
        for _ in range(num_tokens):
            top = sorted_units.peek()
            if top is None:
                break
            total += top[0]
            average = total / (len(to_change) + 2)  # this unit and the new one
            if top[0] <= average:
                break
            sorted_units.poll()
            to_change.append(top)
            target_average = average
        added: list[int] = []
        correction = min(1.0, (num_tokens + 1.0) / (len(units) + 1.0))
        spread = target_average * correction * 2.0 / (2 * num_tokens + 1)
        target = target_average + spread / 2
        step = spread / len(to_change) if to_change else math.inf  # Java divides by zero to Infinity
        for nr, (weight, unit) in enumerate(to_change):
            count = num_tokens // len(to_change) + (1 if nr < num_tokens % len(to_change) else 0)
            queue = in_units[unit.unit]
            vnodes: list[tuple[float, TokenInfo]] = []
            work = 0.0
            for _ in range(count):
                wt = queue.poll()
                vnodes.append(wt)
                work += wt[0]
                unit.ownership -= wt[0]
            take_over = weight - target
            for _, token in vnodes:
                if take_over < work:
                    ratio = min(max(take_over / work, MIN_TAKEOVER_RATIO), MAX_TAKEOVER_RATIO)
                else:
                    ratio = MAX_TAKEOVER_RATIO
                t = split(token.prev_in_ring().token, token.token, ratio)
                self.ring.put(t, new_unit)
                info = TokenInfo(t, new_info)
                info.insert_after(head, token.prev_in_ring())
                self._populate_and_adjust(info, in_units)
                self._populate_and_adjust(token, in_units)
                added.append(t)
            sorted_units.add((unit.ownership, unit))
            target -= step
        sorted_units.add((new_info.ownership, new_info))
        return added

    def _token_infos(self, units: dict[str, Unit], sorted_units: JavaPriorityQueue[tuple[float, Unit]],
                     in_units: dict[str, JavaPriorityQueue[tuple[float, TokenInfo]]]) -> TokenInfo:
        first: TokenInfo | None = None
        prev: TokenInfo | None = None
        for t in self.ring.tokens:
            info = TokenInfo(t, units[self.ring.owner[t]])
            first = info.insert_after(first, prev)
            prev = info
        assert first is not None
        curr = first
        while True:
            self._populate_and_adjust(curr, in_units)
            curr = curr.next
            if curr is first:
                break
        for unit in units.values():  # Java: a HashMap's order; here ring order (see the module doc)
            sorted_units.add((unit.ownership, unit))
        return first

    @staticmethod
    def _populate_and_adjust(token: TokenInfo,
                             in_units: dict[str, JavaPriorityQueue[tuple[float, TokenInfo]]]) -> None:
        token.replication_start = token.prev_in_ring().token
        token.replication_threshold = token.token
        token.replicated_ownership = size(token.replication_start, token.token)
        token.owner.ownership += token.replicated_ownership
        queue = in_units.setdefault(token.owner.unit, JavaPriorityQueue(_by_weight))
        queue.add((token.replicated_ownership, token))


__all__ = ["NoReplicationAllocator", "ReplicationAwareAllocator", "AllocatorRing"]
