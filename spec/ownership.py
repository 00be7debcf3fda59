"""How a topology operation changes placements: its deltas and the ranges it locks.

At PREPARE the spec computes, per keyspace, the natural placement after the operation (from the
token map the operation will leave behind) and compares it with the current read groups, range by
range, over the ring cut at every current boundary plus the operation's new tokens. The result is
a `(range, added, removed)` triple per changed range: START adds `added` to the write groups,
MID swaps `removed` for `added` in the read groups, FINISH drops `removed` from the write groups.
"""

from __future__ import annotations

from collections.abc import Iterable

from spec.locks import AffectedRanges
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId
from spec.placement import DataPlacement, DataPlacements, Replicas
from spec.sequences import InProgressSequence, PlacementDeltas, RangeDelta, Step
from spec.sequences import OperationKind as Kind
from spec.token_map import TokenMap
from spec.tokens import Range

EMPTY: Replicas = frozenset()


def plan(m: ClusterMetadata, after: TokenMap, new_tokens: Iterable[int] = (),
         removed_tokens: Iterable[int] = ()) -> tuple[PlacementDeltas, AffectedRanges]:
    """Deltas from the natural placement now to the one under `after`, and the ranges to lock.

    Both placements come from token maps alone (not from the current groups), as in Cassandra's
    UniformRangePlacement.planFor*; nothing checks that the deltas of concurrent operations add
    up (finding `nts-rack-composition`; fix `composition-guard`, `non_composing` below).
    """
    new_tokens = tuple(sorted(set(new_tokens)))
    removed = set(removed_tokens) - set(new_tokens)  # a move keeping a token does not merge there
    current = frozenset(m.token_map.tokens)
    boundaries = m.boundaries() | frozenset(new_tokens)
    deltas: dict[str, tuple[RangeDelta, ...]] = {}
    affected: dict[str, set[Range]] = {}
    for ks, placement in m.placements.items():
        params = m.schema.replication(ks)
        before = m.natural_placement(params, boundaries=boundaries).entries
        target = m.natural_placement(params, token_map=after, boundaries=boundaries).entries
        if not after.tokens:  # the last token owner leaves (a forced removal): nobody replicates
            target = tuple((r, frozenset()) for r, _ in before)
        if not current:  # the first join into an empty ring (UniformRangePlacement.planForJoin's
            # "no other nodes" case): every range goes from nobody to its final replicas
            before = tuple((r, frozenset()) for r, _ in target)
        changes: list[RangeDelta] = []
        locked: set[Range] = set()
        for i, ((r, old), (_, goal)) in enumerate(zip(before, target, strict=True)):
            if goal != old:
                changes.append((r, goal - old, old - goal))
                locked.add(r)
            if r.right in removed:  # the range merges with its clockwise neighbour at FINISH
                locked.add(r)
                locked.add(before[(i + 1) % len(before)][0])
        # pre-split ranges (a token the ring already has splits nothing: a move keeping one)
        if placement.reads.entries:  # (an empty ring has nothing to pre-split)
            locked.update(placement.reads.range_of(t) for t in new_tokens if t not in current)
        deltas[ks] = tuple(changes)
        affected[ks] = locked
    return (PlacementDeltas(tuple(sorted(deltas.items()))), AffectedRanges.of(affected))


def split(placements: DataPlacements, tokens: Iterable[int]) -> DataPlacements:
    tokens = tuple(tokens)
    if not tokens:
        return placements
    return DataPlacements(tuple((ks, p.split_at(tokens)) for ks, p in placements.items()))


def merge(placements: DataPlacements, keep: Iterable[int]) -> DataPlacements:
    keep = frozenset(keep)
    return DataPlacements(tuple((ks, p.merge_except(keep)) for ks, p in placements.items()))


def _each(placements: DataPlacements, deltas: PlacementDeltas, *, reads: bool, writes: bool,
          add: bool, remove: bool, invert: bool = False) -> DataPlacements:
    out = []
    for ks, p in placements.items():
        triples = []
        for r, added, removed in deltas.for_keyspace(ks):
            plus, minus = (removed, added) if invert else (added, removed)
            triples.append((r, plus if add else EMPTY, minus if remove else EMPTY))
        out.append((ks, DataPlacement(
            p.reads.with_delta(triples) if reads else p.reads,
            p.writes.with_delta(triples) if writes else p.writes,
        )))
    return DataPlacements(tuple(out))


def start(placements: DataPlacements, deltas: PlacementDeltas) -> DataPlacements:
    """START: the replicas gaining each range become write replicas."""
    return _each(placements, deltas, reads=False, writes=True, add=True, remove=False)


def mid(placements: DataPlacements, deltas: PlacementDeltas) -> DataPlacements:
    """MID: reads switch to the new owners in one epoch."""
    return _each(placements, deltas, reads=True, writes=False, add=True, remove=True)


def finish(placements: DataPlacements, deltas: PlacementDeltas) -> DataPlacements:
    """FINISH: the replicas giving each range up stop being write replicas."""
    return _each(placements, deltas, reads=False, writes=True, add=False, remove=True)


def revert(placements: DataPlacements, deltas: PlacementDeltas, next_step: Step) -> DataPlacements:
    """Undo every step applied before `next_step` (the compensating CANCEL_SEQUENCE)."""
    if next_step >= Step.FINISH:  # MID ran: give reads back
        placements = _each(placements, deltas, reads=True, writes=False, add=True, remove=True, invert=True)
    if next_step >= Step.MID:  # START ran: the gaining replicas stop taking writes
        placements = _each(placements, deltas, reads=False, writes=True, add=False, remove=True, invert=True)
    return placements


def revert_reads(placements: DataPlacements, deltas: PlacementDeltas) -> DataPlacements:
    """Undo MID only: reads go back to the replicas giving the ranges up (writes stay)."""
    return _each(placements, deltas, reads=True, writes=False, add=True, remove=True, invert=True)


def outcome_token_map(m: ClusterMetadata, seq: InProgressSequence, token_map: TokenMap) -> TokenMap:
    """`token_map` as `seq`'s FINISH will change it."""
    if seq.kind is Kind.JOIN:
        return token_map.with_tokens(seq.node, seq.tokens)
    if seq.kind is Kind.MOVE:
        return token_map.with_node_tokens(seq.node, seq.tokens)
    if seq.kind is Kind.REPLACE:
        assert seq.replaced is not None
        return token_map.reassigned(seq.replaced, seq.node)
    return token_map.without_node(seq.node)


def remaining(placements: DataPlacements, seq: InProgressSequence) -> DataPlacements:
    """Placements after `seq` runs its remaining steps (without merging)."""
    if seq.next_step <= Step.START:
        placements = start(placements, seq.deltas)
    if seq.next_step <= Step.MID:
        placements = mid(placements, seq.deltas)
    return finish(placements, seq.deltas)


def non_composing(m: ClusterMetadata, new: InProgressSequence) -> NodeId | None:
    """A sequence in flight whose deltas, together with `new`'s, would not end where the
    placements computed from the final token map are. Cassandra has no such check; this is the
    proposed fix `composition-guard` (spec.fixes) for the finding `nts-rack-composition`.

    Each sequence's deltas are computed at its PREPARE against the ring without the others'
    changes. On disjoint locked ranges they usually compose, but NetworkTopologyStrategy's rack
    rule makes a walk's result depend on nodes far along it, so two changes can together alter
    a range that neither alters alone. Such a PREPARE must wait.
    """
    others = [s for s in m.in_progress.sequences() if s.node != new.node]
    if not others:
        return None
    everything = [*others, new]
    token_map = m.token_map
    placements = split(m.placements, new.tokens)
    for seq in everything:
        token_map = outcome_token_map(m, seq, token_map)
        placements = remaining(placements, seq)
    final = merge(placements, token_map.tokens)
    for ks, p in final.items():
        expected = m.natural_placement(m.schema.replication(ks), token_map=token_map,
                                       boundaries=frozenset(token_map.tokens))
        if p.reads != expected or p.writes != expected:
            return others[0].node
    return None
