"""Check `commit-history`: the commit requests as a history are linearizable under the
metadata-log model (each committed entry takes the next epoch; a rejection saw the log it was
decided at)."""

from __future__ import annotations

import time

from campaign.judge import cause as C
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from checkers.linearizability.model import LOG
from checkers.linearizability.wgl import check as linearizable


def check(ctx: Context) -> CheckResult:
    history = linearizable(LOG, ctx.observed.commit_history, deadline=time.monotonic() + ctx.timeout_s)
    summary = {"history": {"valid": history.valid, "cause": history.cause}}
    causes = (C.history(history.cause),) if history.valid is False else ()
    return CheckResult(causes=causes, summary=summary)


CHECK = Check(name="commit-history", family="history", incremental=True, check=check,
              doc="the commit requests are linearizable under the metadata-log model")

__all__ = ["CHECK"]
