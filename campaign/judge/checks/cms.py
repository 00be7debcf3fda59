"""Check `cms`: the CMS's membership in a run that settled, under Cassandra's rule that the CMS
changes only where an operator path asks (trunk 6bbe85ef; impl/cms/reconfiguration.py). None is
judged in a run whose faults did not all heal (a node cut off for good may rightly stop progress).

**CMS undersized**, stated as Cassandra decides it. A *sizing point* is a place where an operator
path places the CMS: the operator's first `nodetool cms reconfigure`, a committed
PREPARE_CMS_RECONFIGURATION (`ensureCMSPlacement`'s Complex, `maybeReconfigureCMS`'s Simple, the
operator's), or the FINISH of a node-driven join, replace or move (after which
`ensureCMSPlacement` runs: a Complex that changes nothing commits nothing here). Only the last
one *executed* decides what the CMS is: `PrepareCMSReconfiguration.execute(prev)` ->
`getDiff(prev)` -> `CMSPlacementStrategy.reconfigure(prev)` computes the new CMS from the
metadata it executes on, so points are ordered by that metadata's epoch (a PREPARE committed at
epoch e executed on e - 1; a FINISH at e decided on e; the FINISH first when they tie), never by
when they were submitted or acknowledged (a submission retried for seconds executes after later
ones). The membership due is then CMSPlacementStrategy's: every peer of that metadata passes
`DefaultNodeFilter` (JOINED, in no in-progress sequence) and the transformation's
`additionalFilteringPredicate` (Simple: not `toReplace`; both: not in `downNodes`), current
members included, and the CMS is placed at its replication over those; so the settled CMS must
have at least min(size, candidates) members that have not left. The deciding node's view of
who is down is its failure detector's, which lags a crash or a restart: a candidate is a node
the filter passes that was up throughout a conviction time around the point; a node whose
liveness near the point is unknowable is no candidate (the rule can only be lenient there), and a
point whose deciding node went down near it, or that lies near a partition, is not judged.
A node the point chose that went down after it blocks the reconfiguration (Cassandra's
`ReconfigureCMS` waits for it too): not judged either.

The rule's core is a pure function (`undersized`) over small values (`SizingPoint`, `FinalCMS`,
`Liveness`), tested by a property over generated sizing histories
(tests/campaign/test_cms_undersized_property.py); `cms_causes` adapts a run to it.

Other CMS checks here:
- A CMS member outside the directory is the spec's invariant `cms_is_consistent`, a node being
  added outside it `cms_additions_in_directory` (findings replace-cms-member,
  leave-while-joining-cms), which the judge checks on the final state; the size is not judged then.
- **Removal refused for a CMS member.** A node-driven replace, decommission, removenode or
  assassinate rejected by PrepareLeave's CMS check: the operator paths reconfigure the CMS
  first (ReconfigureCMS.maybeReconfigureCMS), so only a missing reconfiguration gets there
  (CASSANDRA-19768: assassinate did not).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from attrs import field, frozen

from campaign.judge import cause as C
from campaign.judge.cause import Cause
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.progress import settled
from impl.cms.placement import policy_size
from impl.scenario import Scenario
from observed.run import Observed
from spec.invariants import cms_additions_in_directory, cms_is_consistent
from spec.metadata import ClusterMetadata

FD_WINDOW_ROUNDS = 40
"""Gossip rounds around a sizing point within which a crash or a restart makes a node's
liveness, as the deciding node saw it, unknown (conviction: phi 8, about 18.4 mean arrival
intervals, 20-30 rounds in the simulator)."""


def _ids(xs: Iterable[str]) -> frozenset[str]:
    return frozenset(str(x) for x in xs)


# --- the rule's core: pure, over small values ---


@frozen(kw_only=True)
class SizingPoint:
    """One place where the CMS is placed, with the metadata it is placed on."""

    epoch: int
    """The epoch of the metadata it decided on: a PREPARE's, the one it executed on."""
    prepare: bool
    """A committed PREPARE_CMS_RECONFIGURATION (after a FINISH or operator point on its epoch)."""
    time: int
    """When the deciding node read its failure detector (ns): a PREPARE's submission."""
    decider: str
    size: int
    """The CMS's replication it places at (`ReplicationParams.meta`)."""
    joined: frozenset[str] = field(converter=_ids)
    """The metadata's JOINED nodes."""
    busy: frozenset[str] = field(converter=_ids, default=frozenset())
    """Nodes in an in-progress sequence (performing it or replaced by it)."""
    without: str | None = None
    """Simple's `toReplace`."""

    @property
    def order(self) -> tuple[int, bool, int]:
        return (self.epoch, self.prepare, self.time)


@frozen(kw_only=True)
class Down:
    node: str
    start: int
    end: int | None = None
    """The restart (None: down for good)."""


@frozen(kw_only=True)
class Liveness:
    """Who was up when, as the run's faults scheduled it."""

    processes: frozenset[str] = field(converter=_ids)
    """Nodes that run at all (a node joined by scripted submissions only never answers)."""
    downs: tuple[Down, ...] = ()
    partitions: tuple[tuple[int, int | None], ...] = ()
    """(start, heal) of every partition."""
    margin: int = 0
    """About a failure detector's conviction time (ns)."""

    def down_near(self, node: str, t: int) -> bool:
        """Whether `node` was down, or crashed or restarted, within the margin around `t`."""
        if node not in self.processes:
            return True
        return any(d.node == node and d.start <= t + self.margin and (d.end is None or d.end >= t - self.margin)
                   for d in self.downs)

    def partitioned_near(self, t: int) -> bool:
        return any(s <= t + self.margin and (h is None or h >= t - self.margin) for s, h in self.partitions)

    def went_down_after(self, node: str, t: int) -> bool:
        return any(d.node == node and d.start >= t - self.margin for d in self.downs)


@frozen(kw_only=True)
class FinalCMS:
    members: frozenset[str] = field(converter=_ids)
    """The full members at the end that have not left."""
    adding: frozenset[str] = field(converter=_ids, default=frozenset())
    """Write members not yet full members (an addition in progress)."""


@frozen(kw_only=True)
class Due:
    point: SizingPoint
    candidates: frozenset[str]
    wanted: int


def last_point(points: Sequence[SizingPoint]) -> SizingPoint | None:
    """The sizing point executed last."""
    return max(points, key=lambda p: p.order, default=None)


def due(point: SizingPoint, life: Liveness) -> Due | None:
    """The membership size CMSPlacementStrategy owes at `point`; None when it is unknowable
    (the deciding node or the network in doubt near it)."""
    if life.partitioned_near(point.time) or life.down_near(point.decider, point.time):
        return None
    candidates = frozenset(n for n in point.joined - point.busy
                           if n != point.without and not life.down_near(n, point.time))
    return Due(point=point, candidates=candidates, wanted=min(point.size, len(candidates)))


def undersized(points: Sequence[SizingPoint], final: FinalCMS, life: Liveness) -> str | None:
    """What is wrong when the settled CMS has fewer members than the last executed sizing point
    owes it; None when it has enough, or when that point cannot be judged."""
    point = last_point(points)
    if point is None:
        return None
    d = due(point, life)
    if d is None or any(life.went_down_after(n, point.time) for n in final.adding):
        return None
    if len(final.members) >= d.wanted:
        return None
    return (f"{len(final.members)} members in the ring, {d.wanted} wanted after the sizing point at "
            f"{point.time / 1e9:.3f} s (epoch {point.epoch}: a CMS of {point.size} over "
            f"{len(point.joined)} joined nodes, {len(d.candidates)} candidates)")


# --- the adapter from a simulated run ---


def cms_causes(ctx: Context) -> tuple[Cause, ...]:
    """Progress failures of the CMS's membership (the module doc); none for a run whose faults
    did not all heal (a node cut off for good may rightly stop progress)."""
    scenario, result, final, states = ctx.scenario, ctx.observed, ctx.replay.final, ctx.replay.states
    if any(p.heal is None for p in scenario.partitions):
        return ()
    out = list(_removal_refused(result))
    if not cms_is_consistent(final) and not cms_additions_in_directory(final) and final.cms.initialized \
            and _policy_only(scenario) and settled(result, scenario, final):
        why = undersized(sizing_points(scenario, result, states), final_cms(final), liveness(scenario, result))
        if why is not None:
            out.append(C.liveness("CMS undersized", why))
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


def final_cms(final: ClusterMetadata) -> FinalCMS:
    present = {str(n.id) for n in final.directory if n.state.value != "LEFT"}
    return FinalCMS(members=_ids(final.cms.reads) & present, adding=_ids(final.cms.writes - final.cms.reads))


def liveness(scenario: Scenario, result: Observed) -> Liveness:
    return Liveness(processes=_ids(n.id for n in result.nodes),
                    downs=tuple(Down(node=c.node, start=c.at, end=c.restart) for c in scenario.crashes),
                    partitions=tuple((p.start, p.heal) for p in scenario.partitions),
                    margin=FD_WINDOW_ROUNDS * scenario.settings.gossip_interval_ns)


def _point(m: ClusterMetadata, epoch: int, *, prepare: bool, time: int, decider: str,
           size: int | None = None, without: str | None = None) -> SizingPoint:
    joined = [str(n.id) for n in m.directory if n.state.value == "JOINED"]
    busy = {str(n) for s in m.in_progress.sequences() for n in (s.node, s.replaced) if n is not None}
    return SizingPoint(epoch=epoch, prepare=prepare, time=time, decider=decider,
                       size=policy_size(len(joined)) if size is None else size,
                       joined=frozenset(joined), busy=frozenset(busy), without=without)


def sizing_points(scenario: Scenario, result: Observed, states: dict[int, ClusterMetadata]) -> list[SizingPoint]:
    """Every sizing point of the run whose metadata the spec replayed."""
    start = min(states)
    lowest = min((str(n) for n in states[start].cms.reads), default="")
    submitted: dict[str, int] = {}
    for c in sorted(result.commits, key=lambda c: c.invoke_index):
        submitted.setdefault(c.entry_id, c.invoked)
    commits = [c for c in sorted(result.commits, key=lambda c: c.complete_index or 0) if c.outcome == "ok"]
    # the operator's `nodetool cms reconfigure` decides on the metadata of its moment
    at = scenario.cms_reconfigure_at
    seen = max((int(c.epoch or 0) for c in commits if (c.completed or 0) <= at and int(c.epoch or 0) in states),
               default=start)
    points = [_point(states[seen], seen, prepare=False, time=at, decider=lowest)]
    finishing = {o.node for o in result.operations if o.op in ("join", "replace", "move") and o.outcome == "completed"}
    for c in commits:
        t = c.transformation
        epoch = int(c.epoch or 0)
        entry = c.resent_as or c.entry_id
        time = c.completed or 0
        if c.kind == "PREPARE_CMS_RECONFIGURATION" and epoch - 1 in states:
            raw = t.get("placement")
            placed: Mapping[Any, Any] = raw if isinstance(raw, Mapping) else {}
            without = placed.get("without")
            size = placed.get("size")
            points.append(_point(states[epoch - 1], epoch - 1, prepare=True, time=submitted.get(entry, time),
                                 decider=entry.split(":")[0], size=size if isinstance(size, int) else None,
                                 without=None if without is None else str(without)))
        elif c.kind in ("FINISH_JOIN", "FINISH_REPLACE", "FINISH_MOVE") and t.get("node") in finishing \
                and epoch in states and states[epoch].cms.reconfiguration is None:
            # (with a reconfiguration in progress, ensureCMSPlacement's commit is rejected: logged)
            points.append(_point(states[epoch], epoch, prepare=False, time=time, decider=str(t.get("node"))))
    return points


def check(ctx: Context) -> CheckResult:
    causes = cms_causes(ctx)
    return CheckResult(causes=causes, summary={"liveness": [c.text for c in causes]})


CHECK = Check(name="cms", family="liveness", incremental=False, check=check,
              doc="the CMS reaches the size CMSPlacementStrategy owes it at the sizing point executed last, "
                  "and no removal is refused for a CMS member the operator path should have reconfigured away")

__all__ = ["CHECK", "Down", "Due", "FinalCMS", "Liveness", "SizingPoint", "cms_causes", "due", "final_cms", "last_point",
           "liveness", "sizing_points", "undersized"]
