"""The Z3 prover of read/write quorum intersection, over counts of interchangeable nodes.

Encoding. One Boolean per node with "at least k of these" constraints is a pigeonhole problem
that z3 solves in exponential time (seconds at 21 nodes, tens of seconds at 31). But every
consistency level counts replicas per DC over a read or write group, so two nodes that belong
to the same sets (same group memberships, same requirement populations: in practice the same
DC and the same read/write membership) are interchangeable. For each such class `c` of size
`n_c` the solver gets two integers:

    0 <= r_c <= n_c  if the class is in the read group, else r_c = 0   (read-quorum members)
    0 <= w_c <= n_c  if the class is in the write group, else w_c = 0  (write-quorum members)
    r_c + w_c <= n_c                                                    (disjoint quorums)
    for each read requirement (among, k):  sum of r_c over classes inside `among` >= k
    for each write requirement (among, k): sum of w_c over classes inside `among` >= k

This is exact: a model gives counts that fit inside every class without overlap, so choosing
the first `r_c` nodes of the class (sorted by id) for the read quorum and the next `w_c` for the
write quorum is a concrete pair of valid, disjoint quorums; and any concrete pair counts into a
model. Unsat means every read quorum meets every write quorum. A check is a handful of integer
variables whatever the cluster size, so it stays near a millisecond up to 1,000 nodes (the
script goes to z3 as SMT-LIB text: see `linear.py`).

Caching: checks are memoised on the pair of rules (groups, requirements), and the solver itself
on the abstract problem (class sizes and counts), so a long history or a cluster of many
identical ranges costs one solver call per distinct shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from checkers.quorum.levels import QuorumRule
from checkers.quorum.linear import LinearProblem
from checkers.quorum.model import History
from checkers.quorum.pairs import prove_pairs
from checkers.quorum.search import (
    Outcome,
    Signature,
    Witness,
    node_classes,
    rule_sets,
    shrink_counts,
)
from checkers.quorum.verdict import Verdict
from spec.consistency import ConsistencyLevel

AbstractKey = tuple[tuple[tuple[Signature, int], ...], tuple[int, ...], tuple[int, ...]]
Counts = tuple[tuple[int, ...], tuple[int, ...]] | None | str


def solve_counts(key: AbstractKey) -> Counts:
    """Solve the abstract problem: per-class read and write counts, None (unsat) or "unknown"."""
    classes, read_counts, write_counts = key
    write_group = len(read_counts) + 1  # signature index of the write group
    problem = LinearProblem()
    rs = [problem.var(f"r{c}", size if sig[0] else 0) for c, (sig, size) in enumerate(classes)]
    ws = [problem.var(f"w{c}", size if sig[write_group] else 0) for c, (sig, size) in enumerate(classes)]
    for (_, size), r, w in zip(classes, rs, ws, strict=True):
        problem.at_most([r, w], size)
    for k, need in enumerate(read_counts):
        problem.at_least([r for (sig, _), r in zip(classes, rs, strict=True) if sig[1 + k]], need)
    for k, need in enumerate(write_counts):
        problem.at_least([w for (sig, _), w in zip(classes, ws, strict=True) if sig[write_group + 1 + k]], need)
    values = problem.solve()
    if values is None or isinstance(values, str):
        return values
    sizes = [(sig, size) for sig, size in classes]
    read = shrink_counts([values[r] for r in rs], sizes, [(1 + k, need) for k, need in enumerate(read_counts)])
    write = shrink_counts([values[w] for w in ws], sizes,
                          [(write_group + 1 + k, need) for k, need in enumerate(write_counts)])
    return tuple(read), tuple(write)


class Z3Search:
    """`find_disjoint` by z3 over class counts, with both caches (`cache=False` for benchmarks)."""

    def __init__(self, *, cache: bool = True) -> None:
        self.cache = cache
        self.calls = 0
        self._concrete: dict[tuple[QuorumRule, QuorumRule], Outcome] = {}
        self._abstract: dict[AbstractKey, Counts] = {}

    def __call__(self, read: QuorumRule, write: QuorumRule) -> Outcome:
        if self.cache and (read, write) in self._concrete:
            return self._concrete[(read, write)]
        outcome = self._search(read, write)
        if self.cache:
            self._concrete[(read, write)] = outcome
        return outcome

    def _search(self, read: QuorumRule, write: QuorumRule) -> Outcome:
        if not (read.satisfiable and write.satisfiable):
            return None  # one side has no quorum at all: the request is unavailable, not unsafe
        classes = node_classes(rule_sets(read, write))
        key: AbstractKey = (
            tuple((sig, len(nodes)) for sig, nodes in classes),
            tuple(r.count for r in read.requirements),
            tuple(w.count for w in write.requirements),
        )
        if self.cache and key in self._abstract:
            counts = self._abstract[key]
        else:
            self.calls += 1
            counts = solve_counts(key)
            if self.cache:
                self._abstract[key] = counts
        if counts is None:
            return None
        if isinstance(counts, str):
            return "unknown"
        return _concretize(classes, counts)


def _concretize(classes: Sequence[tuple[Signature, tuple[str, ...]]],
                counts: tuple[tuple[int, ...], tuple[int, ...]]) -> Witness:
    read: list[str] = []
    write: list[str] = []
    for (_, nodes), r, w in zip(classes, counts[0], counts[1], strict=True):
        read.extend(nodes[:r])
        write.extend(nodes[r:r + w])
    return Witness(read_quorum=tuple(sorted(read)), write_quorum=tuple(sorted(write)))


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
    """Prove read/write quorum intersection for every keyspace, range and epoch pair ≤ `window` apart.

    Also checks the CMS read and write sets the same way (majorities). See `pairs.prove_pairs`.
    """
    return prove_pairs(history, Z3Search(cache=cache), read_cl=read_cl, write_cl=write_cl,
                       window=window, read_dc=read_dc, write_dc=write_dc)
