"""CMS membership across the metadata log: majority of the CMS read set vs majority of its write set.

The CEP's "CMS Reconfiguration Protocol" adds a member to the write set first, then (after the
log is streamed) to the read set, and removes in the opposite order, one change per epoch, and
argues that "any two read or write quorums will have overlap". The prover checks exactly that,
like a keyspace: for every pair of epochs at most `window` apart, in both directions, no
majority of the read set at one epoch misses a majority of the write set at the other. The CMS
owns the whole ring, so its counterexamples carry `CMS_KEYSPACE` and the range (MIN, MIN].
"""

from __future__ import annotations

from collections.abc import Iterator

from checkers.quorum.levels import QuorumRule, majority_rule
from checkers.quorum.model import History
from checkers.quorum.search import DisjointSearch, Witness
from checkers.quorum.verdict import CMS_KEYSPACE, Counterexample
from spec.tokens import MIN_TOKEN, Range

__all__ = ["CMS_KEYSPACE", "CMS_RANGE", "check_cms", "cms_obligations"]

CMS_RANGE = Range(MIN_TOKEN, MIN_TOKEN)


def cms_obligations(history: History, window: int) -> Iterator[tuple[int, int, QuorumRule, QuorumRule]]:
    """`(read_epoch, write_epoch, read_rule, write_rule)` for every epoch pair within `window`."""
    epochs = history.epochs
    for i, a in enumerate(epochs):
        for b in epochs[i:i + window + 1]:
            pairs = [(a, b)] if a is b else [(a, b), (b, a)]
            for r, w in pairs:
                if r.cms_reads and w.cms_writes:
                    yield r.epoch, w.epoch, majority_rule(r.cms_reads), majority_rule(w.cms_writes)


def check_cms(history: History, window: int, search: DisjointSearch) -> tuple[int, list[Counterexample], bool]:
    """Run the CMS obligations: (checks made, counterexamples, whether any answer was unknown)."""
    checked, unknown = 0, False
    found: list[Counterexample] = []
    for r_epoch, w_epoch, rr, wr in cms_obligations(history, window):
        checked += 1
        outcome = search(rr, wr)
        if isinstance(outcome, Witness):
            found.append(Counterexample(keyspace=CMS_KEYSPACE, range=CMS_RANGE, read_epoch=r_epoch,
                                        write_epoch=w_epoch, read_quorum=outcome.read_quorum,
                                        write_quorum=outcome.write_quorum))
        unknown = unknown or outcome == "unknown"
    return checked, found, unknown
