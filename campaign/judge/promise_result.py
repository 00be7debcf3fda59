"""A component's promise as a check's result: the trace checker's violations (checkers/protocol/:
repair.py, hints.py, read_repair.py, failure_detector.py) as the component's cause, each with
the trace's facts as evidence (`Breach`), and what the checker judged as the check's paths.
The checks themselves are campaign/judge/checks/repair.py, hint_replay.py, read_repair.py and
failure_detector.py.
"""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.check import CheckResult
from campaign.judge.evidence import Breach, Evidence
from checkers.protocol import ProtocolVerdict

MAX_BREACHES = 3
"""Violations a failure file shows in full (the summary lists every one the checker kept)."""


def promise_result(component: str, verdict: ProtocolVerdict, final_epoch: int) -> CheckResult:
    lines = [f"{component}: {v.detail}" for v in verdict.violations]
    if verdict.valid:
        return CheckResult(judged=verdict.judged, summary={"promises": lines})
    first = verdict.violations[0]
    cause = C.promise(component, first.detail)
    breaches = tuple(Breach(promise=component, time_ns=v.time, detail=v.detail, facts=v.evidence)
                     for v in verdict.violations[:MAX_BREACHES])
    return CheckResult(causes=(cause,), evidence=Evidence(anomaly=cause.klass, breaches=breaches,
                                                          final_epoch=final_epoch),
                       summary={"promises": lines}, judged=verdict.judged)


__all__ = ["MAX_BREACHES", "promise_result"]
