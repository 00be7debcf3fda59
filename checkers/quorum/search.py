"""The one question both provers answer: are there disjoint quorums of two rules?

`find_disjoint(read_rule, write_rule)` returns a `Witness` (a read quorum and a write quorum
with no replica in common), None when every pair intersects (or a rule has no quorum at all),
or "unknown". `z3prover.Z3Search` and `exhaustive.ExhaustiveSearch` both implement it; the
drivers (`pairs.py`, `cms.py`) take either.

Node classes: nodes that belong to exactly the same sets (groups and requirement populations)
are interchangeable for every rule, so a search may count them instead of naming them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from attrs import frozen

from checkers.quorum.levels import QuorumRule

Signature = tuple[bool, ...]
NodeClass = tuple[Signature, tuple[str, ...]]


@frozen(kw_only=True)
class Witness:
    read_quorum: tuple[str, ...]
    write_quorum: tuple[str, ...]


Outcome = Witness | None | Literal["unknown"]


class DisjointSearch(Protocol):
    calls: int
    """How many searches were not answered from a cache."""

    def __call__(self, read: QuorumRule, write: QuorumRule) -> Outcome: ...


def rule_sets(read: QuorumRule, write: QuorumRule) -> list[frozenset[str]]:
    """The sets a node's class is defined by: each rule's group, then its requirements."""
    return [read.group, *(r.among for r in read.requirements),
            write.group, *(w.among for w in write.requirements)]


def node_classes(sets: Sequence[frozenset[str]]) -> tuple[NodeClass, ...]:
    """Nodes of the union grouped by which of `sets` they belong to; sorted, nodes sorted."""
    by_sig: dict[Signature, list[str]] = {}
    for node in frozenset().union(*sets):
        by_sig.setdefault(tuple(node in s for s in sets), []).append(node)
    return tuple(sorted((sig, tuple(sorted(nodes))) for sig, nodes in by_sig.items()))


def shrink_counts(
    counts: list[int], classes: Sequence[tuple[Signature, int]], requirements: Sequence[tuple[int, int]]
) -> list[int]:
    """Drop members, class by class, while every requirement still holds: a minimal quorum.

    `requirements` are `(set index into the signatures, count)`; the result keeps only members
    some requirement needs, so a witness shows no bystanders.
    """
    out = list(counts)
    slack = []
    for index, need in requirements:
        have = sum(c for c, (sig, _) in zip(out, classes, strict=True) if sig[index])
        slack.append(have - need)
    for i, (sig, _) in enumerate(classes):
        room = min((slack[k] for k, (index, _) in enumerate(requirements) if sig[index]), default=out[i])
        cut = min(out[i], room)
        if cut > 0:
            out[i] -= cut
            for k, (index, _) in enumerate(requirements):
                if sig[index]:
                    slack[k] -= cut
    return out
