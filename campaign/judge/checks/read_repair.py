"""Check `read_repair`: a blocking read repair writes the resolved cell, to the replicas its plan
names (write replicas at its epoch, each lacking the cell), before the read answers
(checkers/protocol/read_repair.py; Cassandra's ReadRepairHandler, BlockingReadRepair)."""

from __future__ import annotations

from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.promise_result import promise_result
from checkers.protocol.read_repair import check_read_repair


def check(ctx: Context) -> CheckResult:
    return promise_result("read repair", check_read_repair(ctx.observed.protocol, ctx.placements),
                          ctx.observed.final_epoch)


CHECK = Check(name="read-repair", family="promise", incremental=True, check=check,
              doc="a blocking read repair writes the resolved value to the replicas its plan names before "
                  "the read answers")

__all__ = ["CHECK"]
