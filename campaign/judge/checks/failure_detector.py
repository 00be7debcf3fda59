"""Check `failure_detector`: a conviction follows a silence longer than the phi threshold allows
for the peer's arrival history, a revival follows contact (an echo), and the data path sees
peers as the detector's history says (checkers/protocol/failure_detector.py; Cassandra's
FailureDetector, ArrivalWindow, Gossiper)."""

from __future__ import annotations

from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.promise_result import promise_result
from checkers.protocol.failure_detector import DetectorSettings, check_failure_detector


def settings(ctx: Context) -> DetectorSettings:
    """The detector's settings as the scenario gives them (`fd_initial_value`: two gossip
    intervals unless set, FailureDetector.getInitialValue; `fd_max_interval`: the initial value
    unless set, ArrivalWindow.getMaxInterval)."""
    s = ctx.scenario.settings
    initial = s.fd_initial_value_ns or 2 * s.gossip_interval_ns
    return DetectorSettings(phi_convict_threshold=s.phi_convict_threshold, initial_ns=initial,
                            max_interval_ns=s.fd_max_interval_ns or initial)


def check(ctx: Context) -> CheckResult:
    return promise_result("failure detector", check_failure_detector(ctx.observed.protocol, settings(ctx)),
                          ctx.observed.final_epoch)


CHECK = Check(name="failure-detector", family="promise", incremental=True, check=check,
              doc="a conviction follows a silence longer than phi allows for the peer's arrival history; a "
                  "revival follows an echo; the data path sees peers as the detector's history says")

__all__ = ["CHECK"]
