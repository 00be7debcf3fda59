"""The pairwise obligations: every keyspace, range piece and epoch pair within the window.

For epochs `a` and `b` at most `window` positions apart in the history (each epoch with itself
too), every keyspace present at both, and every piece of the common refinement of both epochs'
range boundaries, two checks: a read at `a` against a write at `b`, and a read at `b` against a
write at `a`. Each check asks a `DisjointSearch` (Z3 or exhaustive) for disjoint quorums of the
read rule and the write rule (`levels.py`). The CMS read/write sets are checked the same way.

Coordinators: a read coordinator in `read_dc` and a write coordinator in `write_dc`. When
neither is given and a level depends on the coordinator's DC, every DC of the history is tried
as both (the same DC for reads and writes: the usual deployment); when only one is given, the
other defaults to it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from checkers.quorum.cms import check_cms
from checkers.quorum.levels import DC_DEPENDENT, QuorumRule, read_rule, write_rule
from checkers.quorum.model import History, KeyspacePlacement, RangeGroups, ReplicationParams
from checkers.quorum.search import DisjointSearch, Witness
from checkers.quorum.verdict import Counterexample, Verdict, verdict_of
from spec.consistency import ConsistencyLevel
from spec.tokens import Range, ring_ranges

DcPair = tuple[str | None, str | None]


def coordinator_dcs(
    history: History,
    read_cl: ConsistencyLevel,
    write_cl: ConsistencyLevel,
    read_dc: str | None,
    write_dc: str | None,
) -> tuple[DcPair, ...]:
    """The (read DC, write DC) pairs to check; ValueError naming an unknown DC."""
    known = history.dc_names()
    for dc in (read_dc, write_dc):
        if dc is not None and dc not in known:
            raise ValueError(f"unknown datacenter {dc!r} (known: {', '.join(known) or 'none'})")
    if read_dc is not None or write_dc is not None:
        return ((read_dc or write_dc, write_dc or read_dc),)
    if read_cl in DC_DEPENDENT or write_cl in DC_DEPENDENT:
        return tuple((dc, dc) for dc in known)
    return ((None, None),)


def aligned(read_ks: KeyspacePlacement, write_ks: KeyspacePlacement) -> Iterable[tuple[Range, RangeGroups, RangeGroups]]:
    """Pieces of the common refinement, with the groups covering each piece on both sides."""
    r_rights, w_rights = read_ks.rights, write_ks.rights
    if r_rights == w_rights:
        yield from ((r.range, r, w) for r, w in zip(read_ks.ranges, write_ks.ranges, strict=True))
        return
    for piece in ring_ranges(tuple(set(r_rights) | set(w_rights))):
        yield piece, _at(read_ks, r_rights, piece.right), _at(write_ks, w_rights, piece.right)


def _at(ks: KeyspacePlacement, rights: tuple[int, ...], token: int) -> RangeGroups:
    i = bisect_left(rights, token)
    return ks.ranges[i if i < len(rights) else 0]


class _Rules:
    """Rules memoised by what they depend on (the same groups recur across ranges and epochs)."""

    def __init__(self, history: History, read_cl: ConsistencyLevel, write_cl: ConsistencyLevel):
        self.dc_of = history.dc_map()
        self.read_cl, self.write_cl = read_cl, write_cl
        self._reads: dict[tuple[ReplicationParams, frozenset[str], str | None], QuorumRule] = {}
        self._writes: dict[tuple[ReplicationParams, frozenset[str], frozenset[str], str | None], QuorumRule] = {}

    def read(self, params: ReplicationParams, g: RangeGroups, dc: str | None) -> QuorumRule:
        key = (params, g.reads, dc)
        rule = self._reads.get(key)
        if rule is None:
            rule = self._reads[key] = read_rule(self.read_cl, params, g.reads, self.dc_of, dc)
        return rule

    def write(self, params: ReplicationParams, g: RangeGroups, dc: str | None) -> QuorumRule:
        key = (params, g.reads, g.writes, dc)
        rule = self._writes.get(key)
        if rule is None:
            rule = self._writes[key] = write_rule(self.write_cl, params, g.reads, g.writes, self.dc_of, dc)
        return rule


# one keyspace, read placement vs write placement: (range, read dc, write dc, witness) per failure
_Failures = tuple[tuple[Range, str | None, str | None, Witness], ...]


def prove_pairs(
    history: History,
    search: DisjointSearch,
    *,
    read_cl: ConsistencyLevel,
    write_cl: ConsistencyLevel,
    window: int,
    read_dc: str | None,
    write_dc: str | None,
) -> Verdict:
    """Run every pairwise obligation through `search`; see the module docstring."""
    if window < 0:
        raise ValueError("window must not be negative")
    combos = coordinator_dcs(history, read_cl, write_cl, read_dc, write_dc)
    rules = _Rules(history, read_cl, write_cl)
    # read placement, write placement -> (checks, failures, unknown); placements recur across epochs
    memo: dict[tuple[KeyspacePlacement, KeyspacePlacement], tuple[int, _Failures, bool]] = {}

    def keyspace_pair(r_ks: KeyspacePlacement, w_ks: KeyspacePlacement) -> tuple[int, _Failures, bool]:
        known = memo.get((r_ks, w_ks))
        if known is not None:
            return known
        checks, unknown = 0, False
        failures: list[tuple[Range, str | None, str | None, Witness]] = []
        for piece, rg, wg in aligned(r_ks, w_ks):
            for rdc, wdc in combos:
                checks += 1
                outcome = search(rules.read(r_ks.replication, rg, rdc), rules.write(w_ks.replication, wg, wdc))
                if isinstance(outcome, Witness):
                    failures.append((piece, rdc, wdc, outcome))
                    break  # one witness per piece is enough
                unknown = unknown or outcome == "unknown"
        result = (checks, tuple(failures), unknown)
        memo[(r_ks, w_ks)] = result
        return result

    checked, any_unknown = 0, False
    found: list[Counterexample] = []
    epochs = history.epochs
    for i, a in enumerate(epochs):
        for b in epochs[i:i + window + 1]:
            for r_ep, w_ep in ([(a, b)] if a is b else [(a, b), (b, a)]):
                for r_ks in r_ep.keyspaces:
                    w_ks = w_ep.keyspace(r_ks.keyspace)
                    if w_ks is None:
                        continue
                    checks, failures, unknown = keyspace_pair(r_ks, w_ks)
                    checked += checks
                    any_unknown = any_unknown or unknown
                    found.extend(
                        Counterexample(keyspace=r_ks.keyspace, range=piece, read_epoch=r_ep.epoch,
                                       write_epoch=w_ep.epoch, read_quorum=wit.read_quorum,
                                       write_quorum=wit.write_quorum, read_dc=rdc, write_dc=wdc)
                        for piece, rdc, wdc, wit in failures
                    )
    cms_checked, cms_found, cms_unknown = check_cms(history, window, search)
    checked += cms_checked
    found.extend(cms_found)
    any_unknown = any_unknown or cms_unknown
    return verdict_of(found, checked=checked, solver_calls=search.calls, unknown=any_unknown)
