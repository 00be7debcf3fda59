"""Shrinking a failing run: a smaller case that fails with the same cause class (`Cause.klass`).

`shrink(spec)` takes the failing run as one `RunSpec`, so the smaller run keeps everything it is
besides its case — its kind, seed, known-bug switch and proposed fixes — and its failure file
replays the same variant of impl. sim runs shrink by their scenario and schedule
(campaign/shrink/schedule.py, docs/shrink.md); refine runs by greedy deletion
(campaign/shrink/greedy.py); a stateful run was shrunk by Hypothesis already.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import frozen

from campaign.kinds import KINDS
from campaign.run.record import Outcome, RunSpec
from campaign.shrink.greedy import shrink_case
from campaign.shrink.schedule import SimSize, shrink_sim


@frozen(kw_only=True)
class Shrunk:
    spec: RunSpec
    """The smallest failing run found (a sim case carries its decision list: it replays alone)."""
    outcome: Outcome
    checks: int
    """Runs spent, the first included."""
    size_before: int
    size_after: int
    """The kind's size of the case (refine: transformations and nodes; sim: nodes and steps)."""
    sim_before: SimSize | None = None
    sim_after: SimSize | None = None
    """sim: steps and schedule events, before and after."""


def _sim(spec: RunSpec, max_checks: int) -> Shrunk:
    assert spec.case is not None
    size = KINDS[spec.kind].size
    small, outcome, checks, before, after = shrink_sim(spec, max_checks=max_checks)
    return Shrunk(spec=spec.with_case(small), outcome=outcome, checks=checks,
                  size_before=size(dict(spec.case)), size_after=size(small), sim_before=before, sim_after=after)


def _greedy(spec: RunSpec, max_checks: int) -> Shrunk:
    assert spec.case is not None
    size = KINDS[spec.kind].size
    small, outcome, checks = shrink_case(spec, max_checks=max_checks)
    return Shrunk(spec=spec.with_case(small), outcome=outcome, checks=checks,
                  size_before=size(dict(spec.case)), size_after=size(small))


SHRINKERS: dict[str, Callable[[RunSpec, int], Shrunk]] = {"sim": _sim}
"""A kind's own shrinker; any other kind shrinks by greedy deletion of its case's items."""


def shrink(spec: RunSpec, *, max_checks: int = 2000) -> Shrunk:
    """The smallest failing variant of `spec` found within `max_checks` runs; ValueError when it
    does not fail."""
    assert spec.case is not None
    return SHRINKERS.get(spec.kind, _greedy)(spec, max_checks)


__all__ = ["Shrunk", "SimSize", "shrink"]
