"""Check `repair`: a completed anti-entropy repair session leaves every pair of participants of
every range it repaired holding the same newest cell of every key written before it (those
written during it at least as new as the newest at its start), from the range's read replicas
at its epoch; a session that cannot complete says failed (checkers/protocol/repair.py;
Cassandra's ActiveRepairService, RepairJob, SyncTask)."""

from __future__ import annotations

from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.promise_result import promise_result
from checkers.protocol.repair import check_repair


def check(ctx: Context) -> CheckResult:
    observed = ctx.observed
    up = frozenset(n.id for n in observed.nodes if n.up) if observed.quiescent else None
    verdict = check_repair(observed.protocol, ctx.placements, up_at_quiet_end=up)
    return promise_result("repair", verdict, ctx.observed.final_epoch)


CHECK = Check(name="repair", family="promise", incremental=True, check=check,
              doc="a repair session that completed left its participants agreeing on every key it covered; "
                  "one that could not complete said failed")

__all__ = ["CHECK"]
