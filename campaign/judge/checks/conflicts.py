"""Check `conflicts`: no epoch holds two different entries, on two nodes or on one node twice
(impl notices it as it runs: the log's chain hashes differ, or an epoch's entry does)."""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context


def check(ctx: Context) -> CheckResult:
    conflicts = ctx.observed.conflicts
    return CheckResult(causes=tuple(C.conflict(c) for c in conflicts), summary={"conflicts": list(conflicts)})


CHECK = Check(name="conflicts", family="conflict", incremental=True, check=check,
              doc="every epoch holds one entry wherever it is applied")

__all__ = ["CHECK"]
