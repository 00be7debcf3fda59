"""Run kind `sim`: a generated scenario run by the simulator and judged.

The case is a scenario document (docs/simulate.md) drawn from the run's `random.Random(seed)`
(campaign/kinds/sim_generator.py): 3-12 nodes, racing schema workloads, client load beside
topology operations driven by the nodes (or, in a few runs, steps submitted as scripted
transformations), random network faults, partitions, crashes, repairs. The
simulator (`impl.cluster.run_scenario`) runs it with the run's seed; the judge's checks
(campaign/judge/) read what it observed; the run is valid iff the judgement has no cause. A sim
outcome's payload (`SimPayload`) carries the schedule the run took and its failure's evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import frozen

from campaign.formats.scenario import parse_scenario
from campaign.judge.evidence import Evidence
from campaign.judge.judgement import judge
from campaign.kinds.sim_generator import generate
from campaign.run.operations import operations_of
from campaign.run.paths import paths
from campaign.run.record import Outcome, RunSpec
from campaign.run.variants import planted
from impl.cluster import run_scenario
from observed.run import OperationEnd


@frozen(kw_only=True)
class SimPayload:
    """What a sim outcome carries besides its verdict."""

    decisions: tuple[tuple[str, int, int], ...] = ()
    """The non-default decisions the run took, when recorded or scripted (schedule shrinking,
    campaign/shrink/)."""
    evidence: Evidence | None = None
    """What a person needs to see the failure (campaign/judge/evidence.py): the key, the
    operations, coordinators, replicas and epochs of a client anomaly, where an operation was
    stuck, what became of the writes behind a durability cause."""

    def to_doc(self) -> dict[str, Any]:
        return {} if self.evidence is None else {"evidence": self.evidence.to_json()}


def payload(outcome: Outcome) -> SimPayload:
    """A sim outcome's payload (an empty one for an outcome that failed before judging)."""
    return outcome.payload if isinstance(outcome.payload, SimPayload) else SimPayload()


def check(spec: RunSpec, record_decisions: bool = False) -> Outcome:
    """Simulate the case with the run's seed (and its switch or fixes) and judge the run."""
    assert spec.case is not None
    scenario, engine = planted(parse_scenario(dict(spec.case)), spec.mutant, spec.fixes)
    result = run_scenario(scenario, spec.seed, engine=engine, record_decisions=record_decisions)
    judgement = judge(scenario, result, fixes=spec.fixes)
    summary = judgement.summary()
    summary["quiescent"] = result.quiescent
    summary["trace_hash"] = result.trace_hash
    causes = judgement.causes()
    return Outcome(valid=not causes, cause=causes[0] if causes else None, causes=causes,
                   final_epoch=result.final_epoch, steps=len(result.commits),
                   counters=tuple(sorted((*result.counters, *operation_counters(result.operations).items()))),
                   details=summary, payload=SimPayload(decisions=result.decisions,
                                                       evidence=judgement.evidence() if causes else None))


OPERATION_COUNTER = "operation "
"""The prefix of the counters of the operations the nodes ended, by kind and outcome
(`operation replace completed`, `operation remove refused`): what the report counts as started."""


def operation_counters(ended: Sequence[OperationEnd]) -> dict[str, int]:
    """How the run's operations ended, counted by kind and the outcome's first word
    (`completed`, `cancelled`, `refused`, `rejected`, `failed`, `skipped`)."""
    out: dict[str, int] = {}
    for e in ended:
        key = f"{OPERATION_COUNTER}{e.op} {e.outcome.split(':')[0].split(' ')[0]}"
        out[key] = out.get(key, 0) + 1
    return out


def done(outcome: Outcome) -> dict[str, Any]:
    """What the run did, not only what its case asked for: the protocol paths it took
    (campaign/run/paths.py) and how its operations ended."""
    return {"paths": paths(outcome.counters),
            "operations_ended": {name[len(OPERATION_COUNTER):]: n for name, n in outcome.counters
                                 if name.startswith(OPERATION_COUNTER)}}


def parse(case: Any) -> None:
    """BadInput for a case the simulator could not take."""
    parse_scenario(case)


def steps(case: dict[str, Any]) -> int:
    """A sim case's steps: its scenario items — submissions (given and generated), client
    operations, topology operations, cancels, crashes, partitions, CMS changes, a CMS
    initialization, and each random network fault that is on (loss, duplication, reordering)."""
    faults = case.get("faults", {})

    def kept(w: dict[str, Any], default: int) -> int:
        return len(w["only"]) if "only" in w else int(w.get("count", default))

    return (len(case.get("submissions", [])) + sum(kept(w, 100) for w in case.get("workloads", []))
            + sum(kept(c, 200) for c in case.get("clients", [])) + len(case.get("operations", []))
            + len(case.get("cancels", [])) + len(case.get("cms_changes", [])) + len(case.get("repairs", []))
            + (1 if case.get("initialize") else 0)
            + len(faults.get("crashes", [])) + len(faults.get("partitions", []))
            + sum(1 for k in ("loss", "duplicate", "reorder") if faults.get(k)))


def size(case: dict[str, Any]) -> int:
    """What shrinking makes smaller: nodes and steps."""
    return len(case.get("topology", {}).get("nodes", [])) + steps(case)


def coverage(case: dict[str, Any]) -> dict[str, Any]:
    """What a case exercises, counted from the case alone (deterministic): the transformation
    kinds of its submissions and schema workloads, the operations it starts (`operations`: the
    kinds the nodes drive and the PREPAREs submitted, cancels as `cancel`), and the fault kinds
    present. The report plots these to show what a campaign covered."""
    kinds: dict[str, int] = {}
    faults: dict[str, int] = {}
    steps = [s.get("transformation", {}) for s in case.get("submissions", [])]
    f = case.get("faults", {})
    for name in ("loss", "duplicate", "reorder"):
        if f.get(name):
            faults[name] = 1
    for p in f.get("partitions", []):
        key = "partition (isolate)" if "isolate" in p else "partition (split)"
        faults[key] = faults.get(key, 0) + 1
    if f.get("crashes"):
        faults["crash"] = len(f["crashes"])
    for w in case.get("workloads", []):
        kinds["SCHEMA_CHANGE"] = kinds.get("SCHEMA_CHANGE", 0) + int(w.get("count", 0))
    for t in steps:
        name = str(t.get("kind", "?"))
        kinds[name] = kinds.get(name, 0) + 1
    ops: dict[str, int] = {}
    for o in case.get("operations", []):
        ops[str(o.get("op"))] = ops.get(str(o.get("op")), 0) + 1
    if case.get("cancels"):
        ops["cancel"] = ops.get("cancel", 0) + len(case["cancels"])
    for name, n in operations_of(steps).items():
        ops[name] = ops.get(name, 0) + n
    return {"transformations": dict(sorted(kinds.items())), "faults": dict(sorted(faults.items())),
            "operations": dict(sorted(ops.items()))}


__all__ = ["OPERATION_COUNTER", "SimPayload", "check", "done", "payload", "coverage", "generate", "operation_counters", "parse", "size", "steps"]
