"""What the progress checks (campaign/judge/checks/liveness.py, cms.py) share: how long a commit
may take, when each epoch committed, whether the CMS could commit at the end, and whether a run
settled.
"""

from __future__ import annotations

from impl.scenario import Scenario
from observed.run import Observed
from spec.metadata import ClusterMetadata


def patience(scenario: Scenario) -> int:
    """How long a commit request may take, every attempt timing out (a driver's watchdog)."""
    s = scenario.settings
    return s.submit_timeout_ns * (s.max_submit_attempts + 1)


def committed_at(observed: Observed) -> dict[int | None, int]:
    """When each epoch's entry was committed, as its submitter learned it."""
    done = sorted((c for c in observed.commits if c.outcome == "ok"), key=lambda c: c.complete_index or 0)
    return {c.epoch: c.completed or 0 for c in done}


def cms_majority_up(observed: Observed, final: ClusterMetadata) -> bool:
    """A majority of the CMS's read members and of its write members up at the end (Paxos needs
    a quorum of each): without one nothing commits, and a stall is the fault's."""
    up_now = {n.id for n in observed.nodes if n.up}
    return all(len(group & up_now) * 2 > len(group) for group in (final.cms.reads, final.cms.writes))


def settled(observed: Observed, scenario: Scenario, final: ClusterMetadata) -> bool:
    """Quiescent, or nothing committed for a submission's whole patience although a majority of
    the CMS read members is up (a CMS that lost its majority rightly stops: the fault's stall)."""
    up = {n.id for n in observed.nodes if n.up}
    last = max(committed_at(observed).values(), default=0)
    # (the read members only: a reconfiguration that waits for ever on a down member it added to
    # the write set stops every commit, which is what the CMS check must see)
    majority = len(final.cms.reads & up) * 2 > len(final.cms.reads)
    return observed.quiescent or (observed.end_time - last > patience(scenario) and majority)


__all__ = ["cms_majority_up", "committed_at", "patience", "settled"]
