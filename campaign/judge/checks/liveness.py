"""Check `liveness`: a finished run's progress — safety held, but did the cluster get anywhere?

An operation that never finished although its barrier could be met, an operation its node gave
up with its sequence left in the metadata, a live node behind the committed log, a commit
request never answered (the CMS's membership is check `cms`, campaign/judge/checks/cms.py). Each
is reported only when the run's faults healed and the stall is not the fault's (a CMS without a
majority rightly stops). An operation whose streaming failed on a peer that crashed or was cut
off is Cassandra's halt, left to the operator (impl/node/streaming.py), not a failure. Its
evidence: each operation still in progress, its last step, the barrier it waits at and the
nodes down or behind it.
"""

from __future__ import annotations

import json

from campaign.judge import cause as C
from campaign.judge.cause import Cause
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.evidence import Evidence, Stuck, topology_steps
from campaign.judge.progress import cms_majority_up, committed_at, patience
from impl.scenario import Scenario
from observed.protocol import BarrierPass, BarrierStart, StepSubmit
from observed.run import Observed
from spec.metadata import ClusterMetadata


def liveness(ctx: Context) -> tuple[Cause, ...]:
    """Progress failures of a run whose faults all healed (the generated ones always do)."""
    scenario, result, final = ctx.scenario, ctx.observed, ctx.replay.final
    out: list[Cause] = []
    if any(p.heal is None for p in scenario.partitions):
        return ()  # a node cut off for good may rightly stop progress (a down node is not cut off)
    # why: a scripted REGISTER makes a node that is no process (it never answers); an operation
    # that needs it (a barrier, a stream source) rightly waits for ever
    processes = {n.id for n in result.nodes}
    ghosts = [n.id for n in final.directory if n.id not in processes and n.state.value != "LEFT"]
    wait = patience(scenario)
    # why a CMS majority up: without one nothing commits, so no operation can take a step
    # (a CMS of two with a member dead for good); that stall is the fault's, not a bug
    # (Paxos needs a quorum of the read members and one of the write members: a member joining
    # the write set that died stops every commit, e.g. during the CMS's first growth)
    cms_up = cms_majority_up(result, final)
    blocked_on_dead = _cms_addition_dead(scenario, final)
    for u in () if ghosts or not cms_up or blocked_on_dead else result.unfinished:
        node, op, could = u.node, u.op, u.could_finish
        # why the age: under lasting loss each step may wait out lost commit answers (the
        # driver's watchdog is this patience), so a slow operation still taking steps near the
        # end of an unquiet run is not stuck (the mutants' control seed 148)
        # (its age runs from its last committed step, or from its start: one begun near the end
        # of the run had no patience's worth of time to be stuck in)
        began = max((o.at for o in scenario.operations if o.node == node), default=0)
        if could and (result.quiescent or result.end_time - max(_last_step(result, node), began) > wait):
            out.append(C.liveness("operation stuck", f"{op} on {node} never finished (its barrier could be met)"))
    out.extend(_abandoned(scenario, result, final))
    committed = committed_at(result)
    if not result.quiescent:
        # why the age: an entry committed just before the end has not had time to spread
        # why `reachable`: a node catches up from the CMS (tcm/FetchCMSLog.java's Handler reads
        # the log with DistributedMetadataLogKeyspace.getLogState, a quorum read of the CMS for a
        # consistent fetch) or from a peer holding the entries (PeerLogFetcher); without a live
        # CMS majority only what live nodes hold can reach it (entries held only by nodes dead
        # for good are lost to it: fuzz seed 777002996)
        reachable = result.final_epoch if cms_up else max((n.applied_epoch for n in result.nodes if n.up), default=0)
        behind = [n.id for n in result.nodes if n.up and n.applied_epoch < reachable
                  and result.end_time - committed.get(n.applied_epoch + 1, result.end_time) > wait]
        if behind:
            out.append(C.liveness("live node not applying", f"{', '.join(behind)} behind epoch "
                                  f"{reachable} at the end"))
    # why the age: a request is answered (or given up as info) within its attempts' timeouts;
    # one sent just before the end has not had that time
    stalled = [c for c in result.commits if c.outcome is None and result.end_time - c.invoked > wait]
    if stalled and all(c.restart is not None for c in scenario.crashes):
        out.append(C.liveness("commit never completed", f"{len(stalled)} request(s) open for more than "
                              f"{wait // 1_000_000_000} s at the end"))
    return tuple(out)


def _abandoned(scenario: Scenario, result: Observed, final: ClusterMetadata) -> tuple[Cause, ...]:
    """An operation that its (live) node gave up as failed while its sequence is still in the
    final metadata: nobody drives it on, and its locks hold the ranges for ever (Cassandra
    leaves that to the operator; an operation fails like this only on a wrong view, such as a
    rejection decided at a newer epoch than the node's)."""
    up = {n.id for n in result.nodes if n.up}
    left = {str(s.node) for s in final.in_progress.sequences()}
    target = {o.node: o.target for o in scenario.operations}
    moved = _replaced_elsewhere(scenario)
    out = []
    crashed = {c.node for c in scenario.crashes}
    for ended in result.operations:
        node, op, outcome = ended.node, ended.op, ended.outcome
        seq_node = target.get(node) if op == "remove" else node
        if outcome.startswith(_STREAM_PEER_DOWN) and seq_node in left:
            # Cassandra's streaming fails on a peer that is down and leaves the sequence to the
            # operator (impl/node/streaming.py: RangeStreamer's FailureDetectorSourceFilter,
            # BootstrapAndJoin.bootstrap `halted`, UnbootstrapAndLeave's "Error while
            # decommissioning node"): not a failure when the peer did crash or was cut off from
            # the driver by a partition; a peer convicted without either is named apart (a
            # failure-detector question)
            peers = outcome[len(_STREAM_PEER_DOWN):].removesuffix(" is down").split("/")
            if not all(p in crashed or _cut_off(scenario, node, p) for p in peers):
                out.append(C.liveness("streaming failed on a peer never crashed nor cut off",
                                      f"{op} on {node} ended {outcome!r}"))
        elif outcome.startswith("failed: bootstrap streaming failed") and seq_node in left:
            # Cassandra's bootstrap halts there by design (impl/node/operation.py `elsewhere`),
            # reached only by a replacement in another DC or rack (finding cross-dc-replace);
            # any other operation's plan giving another node a range is new (a planning or
            # streaming bug), so it is named apart
            what = "bootstrap halted on a movement to another node"
            if not (op == "replace" and node in moved):
                what += f" ({op}, not a replacement elsewhere)"
            out.append(C.liveness(what, f"{op} on {node} ended {outcome!r}"))
        elif outcome.startswith("failed") and node in up and seq_node in left:
            out.append(C.liveness("operation abandoned", f"{op} on {node} ended {outcome!r} with its "
                                  "sequence left in the metadata"))
    return tuple(out[:1])


_STREAM_PEER_DOWN = "failed: streaming failed: "
"""impl/node/operation.py's outcome when a stream's peer is down (then "<peer>[/<peer>] is down")."""


def _cms_addition_dead(scenario: Scenario, final: ClusterMetadata) -> bool:
    """Whether the CMS reconfiguration in progress at the end waits to add a node that crashed and
    never restarted: ReconfigureCMS.executeNext returns `blocked` while the member it adds is
    down, so every operation that reconfigures the CMS first (maybeReconfigureCMS before a
    decommission, removenode, replace or assassinate) waits until an operator acts (`nodetool cms
    reconfigure`, or cancels it) — Cassandra's behaviour, the fault's stall. (The sizing policy
    leaves down nodes out, but the deciding node's failure detector lags a crash: fresh seed
    60613183174, a leave 4 s after a crash for good.)"""
    reconfiguration = final.cms.reconfiguration
    if reconfiguration is None:
        return False
    adding = {str(n) for n in final.cms.writes - final.cms.reads} | {
        str(step.node) for step in reconfiguration.remaining if step.kind.value in ("ADD_TO_WRITES", "ADD_TO_READS")}
    dead = {c.node for c in scenario.crashes if c.restart is None}
    return bool(adding & dead)


def _cut_off(scenario: Scenario, a: str, b: str) -> bool:
    """Whether a partition of the scenario ever put `a` and `b` on different sides (as the bus
    does: nodes in no group form one more group together)."""
    for p in scenario.partitions:
        side = {n: i for i, g in enumerate(p.groups) for n in g}
        if side.get(a, len(p.groups)) != side.get(b, len(p.groups)):
            return True
    return False


def _replaced_elsewhere(scenario: Scenario) -> set[str]:
    """The replacing nodes whose DC or rack differs from their replaced node's in the topology."""
    where = {str(n["id"]): (str(n.get("dc", "dc1")), str(n.get("rack", "r1")))
             for n in json.loads(scenario.topology).get("nodes", [])}
    return {o.node for o in scenario.operations if o.op == "replace" and o.location is not None
            and o.target in where and tuple(o.location) != where[o.target]}


def _last_step(result: Observed, node: str) -> int:
    """When a topology step (PREPARE_/START_/MID_/FINISH_) the node submitted last committed."""
    last = 0
    for c in sorted(result.commits, key=lambda c: c.complete_index or 0):
        if c.outcome == "ok" and c.entry_id.startswith(f"{node}:") \
                and c.kind.startswith(("PREPARE_", "START_", "MID_", "FINISH_")):
            last = c.completed or 0
    return last


# --- the evidence ---


def stuck_evidence(observed: Observed) -> Evidence:
    """Each operation in progress at the end: its last step, the barrier it waits at, and the
    nodes down or behind the barrier's epoch."""
    trace = observed.protocol_trace()
    last_step: dict[str, tuple[str, str]] = {}  # driver -> (kind, entry id)
    open_barrier: dict[str, tuple[str, int]] = {}
    committed = {c.entry_id for c in observed.commits if c.outcome == "ok"}
    for e in observed.protocol:
        if isinstance(e, StepSubmit):
            last_step[e.driver] = (e.kind, e.entry_id)
            open_barrier.pop(e.driver, None)
        elif isinstance(e, BarrierStart):
            open_barrier[e.driver] = (e.step, e.wait_for)
        elif isinstance(e, BarrierPass):
            open_barrier.pop(e.driver, None)
    applied = {n.id: (n.up, n.applied_epoch) for n in observed.nodes}
    stuck = []
    for u in observed.unfinished:
        barrier = open_barrier.get(u.node)
        if barrier is not None:
            waiting = tuple(n for n, (up, epoch) in sorted(applied.items()) if not up or epoch < barrier[1])
        else:
            waiting = tuple(n for n, (up, _) in sorted(applied.items()) if not up)
        kind, entry = last_step.get(u.node, (None, None))
        stuck.append(Stuck(node=u.node, op=u.op, last_step=kind, committed=entry in committed, barrier=barrier,
                           waiting_on=waiting, could_finish=u.could_finish))
    first = min((s.t for s in trace.steps), default=0)
    return Evidence(anomaly="liveness", stuck=tuple(stuck),
                    steps=topology_steps(observed.commits, 0, observed.end_time, after_ns=first),
                    final_epoch=observed.final_epoch)


def check(ctx: Context) -> CheckResult:
    causes = liveness(ctx)
    summary = {"liveness": [c.text for c in causes]}
    if not causes:
        return CheckResult(summary=summary)
    evidence = stuck_evidence(ctx.observed) if ctx.observed.unfinished else None
    return CheckResult(causes=causes, evidence=evidence, summary=summary)


CHECK = Check(name="liveness", family="liveness", incremental=False, check=check,
              doc="a run whose faults healed makes progress: operations finish, nodes catch up, "
                  "commit requests are answered")



__all__ = ["CHECK", "liveness", "stuck_evidence"]
