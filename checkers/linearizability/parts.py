"""The model's independent parts of a history (P-compositionality), and one verdict from theirs."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from attrs import evolve

from checkers.linearizability.history import Operation
from checkers.linearizability.sequential import SequentialModel, by_key
from checkers.linearizability.verdict import (
    LINEARIZABLE,
    NOT_LINEARIZABLE,
    LinearizabilityEvidence,
    PartitionResult,
    Verdict,
)


def partition(
    model: SequentialModel, operations: Sequence[Operation]
) -> tuple[tuple[Hashable, tuple[Operation, ...]], ...]:
    """The model's independent parts, in order of first appearance; info reads dropped.

    Why drop them: an op that changes nothing and whose output is unknown is consistent with
    every state, so it can always be linearized (at its call) and constrains nothing."""
    groups: dict[Hashable, list[Operation]] = {}
    read_only = model.tactics.read_only
    keyed = model.partition is by_key  # (the common case: no call per op)
    key_of = model.partition
    for o in operations:
        if o.ret is None and o.f in read_only:
            continue
        k = o.key if keyed else key_of(o)
        try:
            groups[k].append(o)
        except KeyError:
            groups[k] = [o]
    return tuple([(k, tuple(v)) for k, v in groups.items()])


def merge_verdicts(model: str, verdicts: Sequence[Verdict]) -> Verdict:
    """One verdict for a history from the verdicts of its parts, given in `partition`'s order
    (each, say, from `check_operations` on one part, as a Spark task computes it): not
    linearizable if a part is not (the first such part's evidence: key, failing op, window),
    else unknown if a part is (the first such part's cause), else linearizable. The evidence
    lists every part's result, in the same order."""
    results = tuple(p for v in verdicts for p in v.evidence.partitions)
    bad = next((v for v in verdicts if v.valid is False), None)
    unknown = next((v for v in verdicts if v.valid == "unknown"), None)
    return verdict_of(model, results, None if bad is None else bad.evidence,
                      None if unknown is None else unknown.cause)


def verdict_of(model: str, results: tuple[PartitionResult, ...], failure: LinearizabilityEvidence | None,
               unknown_cause: str | None) -> Verdict:
    """The history's verdict from its parts' `results` (in `partition`'s order): not
    linearizable with the `failure`'s evidence (its part's key, failing op, window) if there is
    one, else unknown for `unknown_cause` if a part is undecided, else linearizable."""
    if failure is not None:
        return Verdict(valid=False, cause=NOT_LINEARIZABLE, evidence=evolve(failure, partitions=results))
    evidence = LinearizabilityEvidence(model=model, partitions=results)
    if unknown_cause is not None:
        return Verdict(valid="unknown", cause=unknown_cause, evidence=evidence)
    return Verdict(valid=True, cause=LINEARIZABLE, evidence=evidence)
