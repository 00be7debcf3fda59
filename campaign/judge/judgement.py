"""Judge one simulation of impl/ with the independent checkers, the spec as referee: every check
of campaign/judge/checks/ on the run's observations (observed/), in `CHECKS`' order.

Pure: from a scenario and what its run observed to a `Judgement` — each check's result, whose
`causes()` are the run's failures as `Cause` values (the first is the run's cause) and whose
`evidence()` is what a person needs to see them. Every run that simulates impl is judged here:
the `sim` kind, `simulate --check`, `replay`, shrinking; the stateful system machine runs the
incremental checks one by one after every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import frozen

from campaign.judge.cause import Cause
from campaign.judge.check import Check, CheckResult
from campaign.judge.checks import CHECKS
from campaign.judge.context import CHECK_TIMEOUT_S, Context
from campaign.judge.evidence import Evidence, merged
from impl.scenario import Scenario
from observed.run import Observed


@frozen(kw_only=True)
class Judgement:
    results: tuple[tuple[Check, CheckResult], ...]

    def causes(self) -> tuple[Cause, ...]:
        """Every failed check's causes, in the checks' order (the first is the run's cause)."""
        return tuple(c for _, r in self.results for c in r.causes)

    def evidence(self) -> Evidence | None:
        """The evidence of the run's failures, merged from the checks that found them."""
        return merged([r.evidence for _, r in self.results if r.evidence is not None])

    def result(self, name: str) -> CheckResult:
        """The result of the check named `name`."""
        return next(r for c, r in self.results if c.name == name)

    def family(self, name: str) -> tuple[Cause, ...]:
        """The causes of one family (`liveness`: the liveness and CMS checks')."""
        return tuple(c for c in self.causes() if c.family == name)

    @property
    def safe(self) -> bool:
        return not any(c.family != "liveness" for c in self.causes())

    @property
    def valid(self) -> bool:
        return not self.causes()

    def summary(self) -> dict[str, Any]:
        """Every check's part of the summary (a failure file's `details`), and whether it is
        valid; lists two checks both give (`liveness`) are joined."""
        out: dict[str, Any] = {"valid": self.valid}
        for _, r in self.results:
            for k, v in r.summary.items():
                out[k] = out[k] + v if isinstance(v, list) and isinstance(out.get(k), list) else v
        return out


def judge(scenario: Scenario, observed: Observed, *, timeout_s: float = CHECK_TIMEOUT_S,
          fixes: frozenset[str] = frozenset(), checks: Sequence[Check] = CHECKS) -> Judgement:
    ctx = Context(scenario, observed, fixes=fixes, timeout_s=timeout_s)
    return Judgement(results=tuple((c, c(ctx)) for c in checks))


__all__ = ["Judgement", "judge"]
