"""Check `logs`: the log invariants (checkers/logs/) over every node's log and the commit
attempts, with the spec justifying every rejection — epochs in order with no gap, one entry per
epoch, every log a prefix of the longest, no entry id committed twice, a commit order that
follows real time, and every rejection one the spec makes too."""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from checkers.logs import LogVerdict, LogViolation, check_logs


def verdict(ctx: Context) -> LogVerdict:
    return check_logs(ctx.logs, ctx.attempts, justify_rejection=ctx.replay.justify if ctx.full else None,
                      initial_epoch=ctx.replay.start.epoch)


def violation_line(v: LogViolation) -> str:
    """A log violation in one line: the invariant, then where."""
    detail = dict(v.detail)
    if "entry_id" in detail:  # duplicate-entry-id: name the request and both epochs
        return f"{v.invariant} {detail['entry_id']} at epochs {detail.get('first_epoch')} and {v.epoch}"
    return f"{v.invariant} at epoch {v.epoch}" + (f" on {v.node}" if v.node else "")


def check(ctx: Context) -> CheckResult:
    v = verdict(ctx)
    summary = {"logs": {"valid": v.valid, "violations": [violation_line(x) for x in v.evidence]}}
    if v.valid is True:
        return CheckResult(summary=summary)
    causes = [C.logs(x.invariant, violation_line(x)) for x in v.evidence[:1]] or [
        C.Cause(family="logs", klass=f"logs: {v.valid}", text=f"logs: {v.valid}")]
    return CheckResult(causes=tuple(causes), summary=summary)


CHECK = Check(name="logs", family="logs", incremental=True, check=check,
              doc="every node's log is a gapless prefix of one committed log, every rejection justified "
                  "by the spec")

__all__ = ["CHECK", "verdict", "violation_line"]
