"""Check `cms`: the CMS's membership in a run that settled, under Cassandra's rule that the CMS
changes only where an operator path asks (trunk 6bbe85ef; impl/cms/reconfiguration.py):

- **CMS undersized.** With the CEP's sizing policy as the CMS's replication (the default), the
  last *sizing point* — the operator's first `nodetool cms reconfigure`, a committed
  PREPARE_CMS_RECONFIGURATION (ensureCMSPlacement's, maybeReconfigureCMS's, or the operator's; at its
  submission, when its down nodes were read),
  or the FINISH of a node-driven join, replace or move (after which ensureCMSPlacement runs) —
  could place the CMS at min(policy size, candidates); a settled run ending with fewer joined read
  members failed to (CASSANDRA-19705: nothing placed after the FINISH; CASSANDRA-18416: a
  member removed with nobody in its place; CASSANDRA-19943: a reconfiguration waiting for ever
  on a down node it chose). Candidates are the point's members and the JOINED nodes in no
  sequence that were up throughout a failure detector's conviction time around the point (the
  deciding node's view is the failure detector's, which lags a crash or a restart); a member
  removed by the point's reconfiguration is no candidate. Points whose deciding node went down
  near them, or during a partition, are not judged (its view is unknowable here).
- A CMS member outside the directory is the spec's invariant `cms_is_consistent`, which the judge
  checks on the final state (finding replace-cms-member); a node the reconfiguration is adding,
  or has still to add, outside the directory is `cms_additions_in_directory` (finding
  leave-while-joining-cms: the reconfiguration stops there). The size is not judged then.
- **Removal refused for a CMS member.** A node-driven replace, decommission, removenode or
  assassinate rejected by PrepareLeave's CMS check: the operator paths reconfigure the CMS
  first (ReconfigureCMS.maybeReconfigureCMS), so only a missing reconfiguration gets there
  (CASSANDRA-19768: assassinate did not).
"""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.cause import Cause
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.progress import settled
from impl.cms.placement import policy_size
from impl.scenario import Scenario
from observed.run import Observed
from spec.cms import CMSStepKind
from spec.invariants import cms_additions_in_directory, cms_is_consistent
from spec.metadata import ClusterMetadata

FD_WINDOW_ROUNDS = 40
"""Gossip rounds around a sizing point within which a crash or a restart makes a node's
liveness, as the deciding node saw it, unknown (conviction: phi 8, about 18.4 mean arrival
intervals, 20-30 rounds in the simulator)."""


def cms_causes(ctx: Context) -> tuple[Cause, ...]:
    """Progress failures of the CMS's membership (the module doc); none for a run whose faults
    did not all heal (a node cut off for good may rightly stop progress)."""
    scenario, result, final, states = ctx.scenario, ctx.observed, ctx.replay.final, ctx.replay.states
    if any(p.heal is None for p in scenario.partitions):
        return ()
    out = list(_removal_refused(result))
    if not cms_is_consistent(final) and not cms_additions_in_directory(final) \
            and settled(result, scenario, final) and _policy_only(scenario):
        out.extend(_undersized(scenario, result, states, final))
    return tuple(out)


def _policy_only(scenario: Scenario) -> bool:
    return scenario.cms_size is None and scenario.cms_members is None and not scenario.cms_changes


def _removal_refused(result: Observed) -> tuple[Cause, ...]:
    for ended in result.operations:
        node, op, outcome = ended.node, ended.op, ended.outcome
        # (a node that was no full CMS member in the view maybeReconfigureCMS decided on, but
        # is one by the PREPARE: Cassandra's PrepareLeave refuses it the same way)
        if op in ("replace", "leave", "remove", "assassinate") and outcome.startswith("rejected") \
                and "is a CMS member" in outcome and "maybeReconfigureCMS: not a full CMS member" not in outcome:
            return (C.liveness("removal refused for a CMS member",
                               f"{op} on {node} ended {outcome!r} (the operator path reconfigures the CMS first)"),)
    return ()


def _points(scenario: Scenario, result: Observed, states: dict[int, ClusterMetadata]
            ) -> list[tuple[int, int, str, frozenset[str]]]:
    """(time, epoch of the metadata decided on, deciding node, nodes removed) of every sizing point."""
    start = min(states)
    lowest = min((str(n) for n in states[start].cms.reads), default="")
    points = [(scenario.cms_reconfigure_at, start, lowest, frozenset[str]())]
    finishing = {o.node for o in result.operations if o.op in ("join", "replace", "move") and o.outcome == "completed"}
    submitted: dict[str, int] = {}
    for c in sorted(result.commits, key=lambda c: c.invoke_index):
        submitted.setdefault(c.entry_id, c.invoked)
    for c in sorted(result.commits, key=lambda c: c.complete_index or 0):
        if c.outcome != "ok":
            continue
        t = c.transformation
        epoch = int(c.epoch or 0)
        entry = c.resent_as or c.entry_id
        if c.kind == "PREPARE_CMS_RECONFIGURATION" and epoch - 1 in states:
            # decided when submitted (maybeReconfigureCMS takes its down nodes from the failure
            # detector then), not when the result came back: a lost SubmitResult retried for
            # seconds would put an earlier reconfiguration after a later one
            points.append((submitted.get(entry, c.completed or 0), epoch - 1, entry.split(":")[0],
                           frozenset(t.get("remove", ())) | _removed_by(states.get(epoch))))
        elif c.kind in ("FINISH_JOIN", "FINISH_REPLACE", "FINISH_MOVE") and t.get("node") in finishing \
                and epoch in states and states[epoch].cms.reconfiguration is None:
            # (with a reconfiguration in progress, ensureCMSPlacement's commit is rejected: logged)
            points.append((c.completed or 0, epoch, str(t.get("node")), frozenset()))
    return sorted(points)


def _removed_by(m: ClusterMetadata | None) -> frozenset[str]:
    """The members the reconfiguration a PREPARE started removes: a reconfiguration placed where
    it executes (Simple, Complex) names none, and may drop more than the member it replaces (a
    member no longer JOINED or in a sequence fails CMSPlacementStrategy.DefaultNodeFilter)."""
    r = None if m is None else m.cms.reconfiguration
    return frozenset() if r is None else frozenset(str(s.node) for s in r.remaining if s.kind is CMSStepKind.REMOVE)


def _down_near(scenario: Scenario, node: str, t: int, margin: int, processes: set[str]) -> bool:
    if node not in processes:
        return True
    for c in scenario.crashes:
        if c.node == node and c.at <= t + margin and (c.restart is None or c.restart >= t - margin):
            return True
    return False


def _undersized(scenario: Scenario, result: Observed, states: dict[int, ClusterMetadata],
                final: ClusterMetadata) -> tuple[Cause, ...]:
    if not final.cms.initialized:
        return ()
    time, epoch, decider, removed = _points(scenario, result, states)[-1]
    margin = FD_WINDOW_ROUNDS * scenario.settings.gossip_interval_ns
    processes = {n.id for n in result.nodes}
    if any(p.start <= time + margin and (p.heal is None or p.heal >= time - margin) for p in scenario.partitions) \
            or _down_near(scenario, decider, time, margin, processes):
        return ()
    # a member being added that went down once the point had decided (up then: the placement
    # rightly chose it) blocks the reconfiguration: Cassandra's ReconfigureCMS waits for it too
    joining = {str(n) for n in final.cms.writes - final.cms.reads}
    if any(c.node in joining and c.at >= time - margin for c in scenario.crashes):
        return ()
    at = states[epoch]
    joined_then = {str(n.id) for n in at.directory if n.state.value == "JOINED"}
    # a member in a sequence (MOVING, say) is still a member (fullCMSMembers)
    present = {str(n.id) for n in final.directory if n.state.value != "LEFT"}
    busy = {str(n) for s in at.in_progress.sequences() for n in (s.node, s.replaced) if n is not None}
    keep = {str(m) for m in at.cms.reads} - removed
    fresh = {n for n in joined_then - busy - removed if not _down_near(scenario, n, time, margin, processes)}
    candidates = (keep | fresh) & present
    wanted = min(policy_size(len(joined_then)), len(candidates))
    members = {str(m) for m in final.cms.reads} & present
    if len(members) >= wanted:
        return ()
    return (C.liveness("CMS undersized", f"{len(members)} members in the ring, {wanted} wanted after the "
                       f"sizing point at {time / 1e9:.3f} s (the policy's {policy_size(len(joined_then))} "
                       f"of {len(joined_then)} joined nodes, {len(candidates)} candidates)"),)


def check(ctx: Context) -> CheckResult:
    causes = cms_causes(ctx)
    return CheckResult(causes=causes, summary={"liveness": [c.text for c in causes]})


CHECK = Check(name="cms", family="liveness", incremental=False, check=check,
              doc="the CMS reaches the size its sizing policy asks for, and no removal is refused for a "
                  "CMS member the operator path should have reconfigured away")

__all__ = ["CHECK", "cms_causes"]
