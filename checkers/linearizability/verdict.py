"""What the linearizability checker returns: a `Verdict` whose evidence is plain data.

Everything here is frozen and picklable (no functions, no model), so pytest, the CLI, campaigns
and Spark can pass verdicts around; `explain.py` and `html.py` render them.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

from attrs import frozen

from checkers.linearizability.history import Op, Operation, unpair

Validity = bool | Literal["unknown"]

# Causes (stable strings that tests and the CLI can match).
LINEARIZABLE = "linearizable"
NOT_LINEARIZABLE = "not-linearizable"
TIMEOUT = "timeout"
CACHE_LIMIT = "cache-limit"


@frozen(kw_only=True)
class PartitionResult:
    """The search of one independent part of the history (one key for partitioned models).

    `linearization` is the longest partial linearization found (op ids in linearization order,
    complete when `valid is True`) and `states` the model state after each of its ops. When
    `valid is False`, `failing` is the op whose completion that linearization could not reach:
    every way to order the ops before it is inconsistent with the model. `explored` counts
    memo entries."""

    key: Hashable
    operations: tuple[Operation, ...]
    valid: Validity
    linearization: tuple[int, ...] = ()
    states: tuple[Any, ...] = ()
    failing: int | None = None
    explored: int = 0
    stuck_at: int | None = None
    """For a violation found by the search: the latest return (event position) some
    configuration could not pass. Every op returning earlier was linearized by some order, so
    the shortest failing prefix of the history ends there or later (evidence starts there)."""
    refutation: tuple[int, ...] = ()
    """For a violation shown without finishing the search (`refute`): the op ids that show it,
    `failing` first, then the op that spoils the state it needs, then the ops that could have
    repaired that state but returned too early. `linearization` is then the longest found by
    the search before it was stopped."""


@frozen(kw_only=True)
class LinearizabilityEvidence:
    """Why: every part searched, and for a violation the op that failed and a minimal window.

    - `key`: the part (key) that is not linearizable.
    - `failing_op`: the op whose completion no linearization could reach (Knossos' `:op`).
    - `previous_ok`: the last op that completed before `failing_op` was invoked.
    - `longest_prefix`: the longest linearization found, in order, with `prefix_states`.
    - `window`: a smallest failing sub-history (1-minimal: dropping any one op of it makes it
      linearizable, or was not shown to within the budget) as operations, and `window_history`
      the same as events, printable as JSONL.
    """

    model: str
    partitions: tuple[PartitionResult, ...] = ()
    key: Hashable = None
    failing_op: Operation | None = None
    previous_ok: Operation | None = None
    longest_prefix: tuple[Operation, ...] = ()
    prefix_states: tuple[Any, ...] = ()
    window: tuple[Operation, ...] = ()
    window_minimal: bool = False

    @property
    def window_history(self) -> tuple[Op, ...]:
        """The window's events, printable as JSONL (made when asked: a window that was not
        shrunk is the whole part)."""
        return unpair(self.window)


@frozen(kw_only=True)
class Verdict:
    """`valid` is True, False or "unknown" (the search ran out of time or memory: not a verdict)."""

    valid: Validity
    cause: str
    evidence: LinearizabilityEvidence
