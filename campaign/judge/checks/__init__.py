"""The judge's checks, in the order their causes are reported: the most fundamental first, so
that a run's first cause is the one to look at (a conflicting epoch explains a broken log, which
explains a broken history, ...). A new check is one module here that defines `CHECK` and one
line below (docs/extending.md)."""

from __future__ import annotations

from campaign.judge.check import Check
from campaign.judge.checks import (
    apply,
    clients,
    cms,
    commit_history,
    conflicts,
    durability,
    holdings,
    invariants,
    liveness,
    logs,
    refinement,
    trace,
)

CHECKS: tuple[Check, ...] = (
    conflicts.CHECK,
    apply.CHECK,
    logs.CHECK,
    commit_history.CHECK,
    clients.CHECK,
    trace.CHECK,
    refinement.CHECK,
    holdings.CHECK,
    invariants.CHECK,
    durability.CHECK,
    liveness.CHECK,
    cms.CHECK,
)


def by_name(name: str) -> Check:
    return next(c for c in CHECKS if c.name == name)


__all__ = ["CHECKS", "by_name"]
