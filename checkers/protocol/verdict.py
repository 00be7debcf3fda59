"""What a trace invariant says: valid, or the violations with their evidence."""

from __future__ import annotations

from attrs import frozen


@frozen(kw_only=True)
class Violation:
    invariant: str
    """barrier, fencing, quorum or streaming (the cause class is `trace: <invariant>`); or a
    component's promise: repair, hint replay, read repair, failure detector (`promise: <it>`)."""
    time: int
    """Virtual ns of the event that broke it."""
    detail: str
    """One line naming what broke, with the run's nodes, epochs and keys."""
    evidence: tuple[tuple[str, str], ...] = ()


@frozen(kw_only=True)
class ProtocolVerdict:
    violations: tuple[Violation, ...] = ()
    checked: int = 0
    """How many events (requests, serves, steps) the invariant looked at."""
    judged: tuple[tuple[str, int], ...] = ()
    """What a component's promise judged, by path (sessions completed, hints replayed, ...):
    the report's paths of its check."""

    @property
    def valid(self) -> bool:
        return not self.violations


MAX_VIOLATIONS = 5
"""A checker stops after this many (the first is the run's cause; the rest are evidence)."""


__all__ = ["MAX_VIOLATIONS", "ProtocolVerdict", "Violation"]
