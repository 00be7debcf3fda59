"""Run kind `sim`: a generated scenario run by the simulator and judged.

The case is a scenario document (docs/simulate.md) drawn from the run's `random.Random(seed)`
(campaign/kinds/sim_generator.py): 3-12 nodes, racing schema workloads, client load beside
topology operations driven by the nodes (or, in a few runs, steps submitted as scripted
transformations), random network faults, partitions, crashes, repairs. The
simulator (`impl.cluster.run_scenario`) runs it with the run's seed; the judge
(campaign/run/judge.py) checks the logs, histories, metadata and progress; the run is valid iff
the judgement has no cause.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from campaign.formats.scenario import parse_scenario
from campaign.kinds.sim_generator import generate
from campaign.run.evidence import evidence_of
from campaign.run.judge import judge
from campaign.run.operations import operations_of
from campaign.run.record import Outcome, RunSpec
from campaign.run.variants import planted
from impl.cluster import run_scenario


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
    invokes = sum(1 for op in result.commit_history if op.type == "invoke")
    return Outcome(valid=not causes, cause=causes[0] if causes else None, causes=causes,
                   final_epoch=result.final_epoch, steps=invokes,
                   counters=tuple(sorted((*result.counters, *operation_counters(result.operations).items()))),
                   details=json.dumps(summary, sort_keys=True), decisions=result.decisions,
                   evidence=evidence_of(result, judgement.clients, judgement.liveness, judgement.protocol.durability,
                                        [c.klass for c in causes]) if causes else None)


OPERATION_COUNTER = "operation "
"""The prefix of the counters of the operations the nodes ended, by kind and outcome
(`operation replace completed`, `operation remove refused`): what the report counts as started."""


def operation_counters(ended: Sequence[tuple[str, str, str]]) -> dict[str, int]:
    """How the run's operations ended ((node, op, outcome) as impl records them), counted by
    kind and the outcome's first word (`completed`, `cancelled`, `refused`, `rejected`,
    `failed`, `skipped`)."""
    out: dict[str, int] = {}
    for _, op, outcome in ended:
        key = f"{OPERATION_COUNTER}{op} {outcome.split(':')[0].split(' ')[0]}"
        out[key] = out.get(key, 0) + 1
    return out


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


__all__ = ["OPERATION_COUNTER", "check", "coverage", "generate", "operation_counters", "parse", "size", "steps"]
