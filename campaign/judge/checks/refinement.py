"""Check `refinement`: the spec accepts every entry of the committed log, in order (impl
committed nothing the spec rejects, and skipped no epoch)."""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context


def check(ctx: Context) -> CheckResult:
    refused = tuple(ctx.replay.refused)
    return CheckResult(causes=tuple(C.spec_replay(r) for r in refused[:1]), summary={"refinement": list(refused)})


CHECK = Check(name="refinement", family="spec-replay", incremental=True, check=check,
              doc="the spec accepts every committed entry")

__all__ = ["CHECK"]
