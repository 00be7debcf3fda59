"""A brute-force linearizability checker for small histories, independent of the WGL search.

It tries every order of the operations that respects real time, stepping the model along; a
prefix the model rejects is abandoned with all its completions (sound: they all start with it).
An operation of unknown outcome (info, or never completed) may also never have taken effect:
every subset of them is tried, kept ones stepped like the others (the definition: a history is
linearizable if some completion of it, where each pending call has returned or been dropped, is).
No memo, no linked list, no partitions: just the definition. Exponential; for <= 8 ops.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from checkers.linearizability.history import Op, Operation, pair
from checkers.linearizability.model import SequentialModel


def brute_force_linearizable(model: SequentialModel, history: Sequence[Op]) -> bool:
    return brute_force_operations(model, pair(history))


def brute_force_operations(model: SequentialModel, operations: Sequence[Operation]) -> bool:
    ops = list(operations)

    def may_go_next(o: Operation, remaining: list[Operation]) -> bool:
        # o may be next unless another remaining op returned before o was called
        return all(r.ret is None or r.ret > o.call for r in remaining if r is not o)

    def extend(state: Any, remaining: list[Operation]) -> bool:
        if not remaining:
            return True
        for o in remaining:
            if not may_go_next(o, remaining):
                continue
            nxt = model.step(state, o)
            if nxt is not None and extend(nxt, [r for r in remaining if r is not o]):
                return True
        return False

    # Only the model's own state: the history is one object (no partitioning here), so a
    # keyed model gets a state per key by running each key on its own.
    keys: dict[Any, list[Operation]] = {}
    for o in ops:
        keys.setdefault(model.partition(o), []).append(o)
    return all(any(extend(model.init, kept) for kept in _completions(part)) for part in keys.values())


def _completions(ops: list[Operation]) -> list[list[Operation]]:
    """The part with each subset of its ops of unknown outcome left out, keeping most first."""
    pending = [o for o in ops if o.ret is None]
    subsets = sorted(itertools.product((True, False), repeat=len(pending)), key=lambda s: -sum(s))
    out = []
    for keep in subsets:
        dropped = {id(o) for o, k in zip(pending, keep, strict=True) if not k}
        out.append([o for o in ops if id(o) not in dropped])
    return out
