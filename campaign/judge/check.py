"""A check of the judge, and what it finds.

A `Check` is a named, pure function from a run's `Context` (campaign/judge/context.py) to a
`CheckResult`: the causes it found, each as a `Cause`, with the evidence a person needs to see
them (as Elle returns its anomalies with their explanations), and its part of the judgement's
summary. `incremental` says the check is sound on what a running cluster has observed so far,
so the stateful machine runs it after every step (strategies/system_machine.py); the others
need a finished run (a settled end, every operation's outcome).

A new check is one module under campaign/judge/checks/ that defines `CHECK`, and one line in
campaign/judge/checks/__init__.py's `CHECKS` (docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import field, frozen
from attrs.validators import in_

from campaign.judge.cause import FAMILIES, Cause
from campaign.judge.context import Context
from campaign.judge.evidence import Evidence


@frozen(kw_only=True)
class CheckResult:
    causes: tuple[Cause, ...] = ()
    """What failed, most fundamental first (the check's first cause is the one it reports)."""
    evidence: Evidence | None = None
    """What a person needs to see the first cause (None: the cause line says it all)."""
    summary: Mapping[str, Any] = field(factory=dict)
    """The check's part of the judgement's summary (a failure file's `details`)."""

    @property
    def valid(self) -> bool:
        return not self.causes


@frozen(kw_only=True)
class Check:
    name: str
    family: str = field(validator=in_(FAMILIES))
    """The family of the causes it finds (campaign/judge/cause.py)."""
    incremental: bool
    """Sound on a running cluster's observations so far (the stateful machine runs it after
    every step); else only on a finished run."""
    check: Callable[[Context], CheckResult]
    doc: str
    """One line: what it checks, in Cassandra's or the CEP's words."""

    def __call__(self, ctx: Context) -> CheckResult:
        return self.check(ctx)


__all__ = ["Check", "CheckResult"]
