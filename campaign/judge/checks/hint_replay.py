"""Check `hint_replay`: a hint carries exactly the write it was made for (key, value, timestamp)
to a node that is a write replica of its token then, or is re-hinted to those that are; a holder
deletes a hint only once its target acknowledged it (checkers/protocol/hints.py; Cassandra's
HintsService, HintVerbHandler)."""

from __future__ import annotations

from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.promise_result import promise_result
from checkers.protocol.hints import check_hints


def check(ctx: Context) -> CheckResult:
    observed = ctx.observed
    return promise_result("hint replay", check_hints(observed.protocol, ctx.placements, observed.hints),
                          observed.final_epoch)


CHECK = Check(name="hint-replay", family="promise", incremental=True, check=check,
              doc="a replayed hint applies exactly its write to a write replica of its token (or is re-hinted "
                  "to them), and is deleted only once its target acknowledged it")

__all__ = ["CHECK"]
