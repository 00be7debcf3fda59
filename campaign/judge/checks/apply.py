"""Check `apply`: every node applies every committed entry it receives (an entry the spec accepts
that a node's metadata cannot apply is a bug of impl's metadata rules)."""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context


def check(ctx: Context) -> CheckResult:
    failures = ctx.observed.apply_failures
    return CheckResult(causes=tuple(C.apply_failure(f.node, f.epoch, f.reason) for f in failures),
                       summary={"apply_failures": [[f.node, f.epoch, f.reason] for f in failures]})


CHECK = Check(name="apply", family="apply", incremental=True, check=check,
              doc="every node applies every committed entry")

__all__ = ["CHECK"]
