"""What the prover returns: a frozen `Verdict` with its evidence as data (no text, no I/O).

`valid` is True (every pair of quorums intersects), False (see `counterexamples`), or "unknown"
(the solver gave up on some check; a timeout is never a verdict). `cause` is a stable code:

- None when valid;
- "unsafe-by-design": some read and write quorums are disjoint even when both coordinators use
  the same epoch, so the consistency levels (or the read and write DCs) can never be safe;
- "disjoint-across-epochs": quorums taken at two different epochs can be disjoint;
- "stale-coordinator": (barrier mode) a coordinator lagging behind can complete a request that
  conflicts with one taken at the newest epoch without meeting a replica that knows better;
- "solver-unknown": z3 answered unknown for some check.
"""

from __future__ import annotations

from typing import Literal

from attrs import frozen

from spec.tokens import Range

UNSAFE_BY_DESIGN = "unsafe-by-design"
DISJOINT_ACROSS_EPOCHS = "disjoint-across-epochs"
STALE_COORDINATOR = "stale-coordinator"
SOLVER_UNKNOWN = "solver-unknown"

CMS_KEYSPACE = "system_cluster_metadata"
"""The keyspace name counterexamples about CMS membership carry (Cassandra's metadata keyspace)."""


@frozen(kw_only=True)
class Counterexample:
    """A read quorum valid at `read_epoch` and a write quorum valid at `write_epoch`, disjoint.

    `range` is a piece of the common refinement of both epochs' ranges. `knowledge` (barrier
    mode only) is the newest epoch each replica of the range had seen (the first epoch of the
    newest version of the range it knows), sorted by node: with it, the stale quorum's replicas
    reveal nothing newer than its epoch and every progress barrier still had its acknowledgements.
    """

    keyspace: str
    range: Range
    read_epoch: int
    write_epoch: int
    read_quorum: tuple[str, ...]
    write_quorum: tuple[str, ...]
    read_dc: str | None = None
    write_dc: str | None = None
    knowledge: tuple[tuple[str, int], ...] = ()

    @property
    def by_design(self) -> bool:
        """Both at one epoch: no topology change is needed for the quorums to miss each other."""
        return self.read_epoch == self.write_epoch

    def sort_key(self) -> tuple[str, int, int, int, int]:
        return (self.keyspace, self.range.right, self.range.left, self.read_epoch, self.write_epoch)


@frozen(kw_only=True)
class Verdict:
    valid: bool | Literal["unknown"]
    cause: str | None
    checked: int
    solver_calls: int
    counterexamples: tuple[Counterexample, ...] = ()


def verdict_of(
    counterexamples: list[Counterexample], *, checked: int, solver_calls: int, unknown: bool,
    across_epochs_cause: str = DISJOINT_ACROSS_EPOCHS,
) -> Verdict:
    """Assemble a verdict: counterexamples sorted, cause chosen by the worst finding."""
    found = tuple(sorted(counterexamples, key=Counterexample.sort_key))
    if found:
        cause = UNSAFE_BY_DESIGN if any(c.by_design for c in found) else across_epochs_cause
        return Verdict(valid=False, cause=cause, checked=checked, solver_calls=solver_calls,
                       counterexamples=found)
    if unknown:
        return Verdict(valid="unknown", cause=SOLVER_UNKNOWN, checked=checked, solver_calls=solver_calls)
    return Verdict(valid=True, cause=None, checked=checked, solver_calls=solver_calls)
