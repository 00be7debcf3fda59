"""The exhaustive quorum-intersection simulator (the CEP's test tool 1), for small groups.

It names every minimal quorum of each rule (a subset of the group that the rule accepts and
none of whose proper subsets it accepts) and tries every pair for disjointness. Minimal quorums
suffice: the rules only ask for "at least k of", so if two quorums are disjoint, minimal
quorums inside them are disjoint too. Same signature as the Z3 prover; a property test checks
that they agree on every case.
"""

from __future__ import annotations

from itertools import combinations

from checkers.quorum.levels import QuorumRule
from checkers.quorum.model import History
from checkers.quorum.pairs import prove_pairs
from checkers.quorum.search import Outcome, Witness
from checkers.quorum.verdict import Verdict
from spec.consistency import ConsistencyLevel

MAX_GROUP = 16
"""Largest group enumerated (2**16 subsets); a larger one raises ValueError."""


def minimal_quorums(rule: QuorumRule) -> tuple[frozenset[str], ...]:
    """Every minimal quorum of `rule`, smallest first, each size in sorted-id order."""
    members = sorted(rule.group)
    if len(members) > MAX_GROUP:
        raise ValueError(f"group of {len(members)} replicas is too large to enumerate")
    found: list[frozenset[str]] = []
    for size in range(len(members) + 1):
        for combo in combinations(members, size):
            quorum = frozenset(combo)
            if rule.accepts(quorum) and not any(m <= quorum for m in found):
                found.append(quorum)
    return tuple(found)


class ExhaustiveSearch:
    """`find_disjoint` by enumeration, memoised on the pair of rules like the Z3 search."""

    def __init__(self, *, cache: bool = True) -> None:
        self.cache = cache
        self.calls = 0
        self._memo: dict[tuple[QuorumRule, QuorumRule], Outcome] = {}

    def __call__(self, read: QuorumRule, write: QuorumRule) -> Outcome:
        if self.cache and (read, write) in self._memo:
            return self._memo[(read, write)]
        self.calls += 1
        outcome: Outcome = None
        writes = minimal_quorums(write)
        for r in minimal_quorums(read):
            w = next((w for w in writes if r.isdisjoint(w)), None)
            if w is not None:
                outcome = Witness(read_quorum=tuple(sorted(r)), write_quorum=tuple(sorted(w)))
                break
        if self.cache:
            self._memo[(read, write)] = outcome
        return outcome


def prove_history(
    history: History,
    *,
    read_cl: ConsistencyLevel = ConsistencyLevel.QUORUM,
    write_cl: ConsistencyLevel = ConsistencyLevel.QUORUM,
    window: int = 1,
    read_dc: str | None = None,
    write_dc: str | None = None,
    cache: bool = True,
) -> Verdict:
    """Same question and answer shape as `z3prover.prove_history`, by brute force."""
    return prove_pairs(history, ExhaustiveSearch(cache=cache), read_cl=read_cl, write_cl=write_cl,
                       window=window, read_dc=read_dc, write_dc=write_dc)
