"""The model's independent parts of a history (P-compositionality), and one verdict from theirs."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from checkers.linearizability.history import Operation
from checkers.linearizability.model import SequentialModel, by_key


def partition(
    model: SequentialModel, operations: Sequence[Operation]
) -> tuple[tuple[Hashable, tuple[Operation, ...]], ...]:
    """The model's independent parts, in order of first appearance; info reads dropped.

    Why drop them: an op that changes nothing and whose output is unknown is consistent with
    every state, so it can always be linearized (at its call) and constrains nothing."""
    groups: dict[Hashable, list[Operation]] = {}
    read_only = model.read_only
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
