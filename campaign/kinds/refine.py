"""Run kind `refine`: the spec and impl's metadata rules driven through the same transformations.

The case is `{"topology": TOPOLOGY.json, "transformations": [...]}` in the wire shape of
docs/transformations-json.md, drawn from the run's `random.Random(seed)` while running the spec
(strategies/cases.py proposes each next transformation against the spec's current metadata).
Valid iff spec and `impl.metadata.execute` agree on acceptance, epoch, placements, node states,
tokens, CMS sets and the settled write placement (ClusterMetadata.writePlacementAllSettled) after
every step, the spec's invariants hold after every committed step, and
Z3 proves QUORUM/QUORUM intersection for window 1 over the spec's epochs.
"""

from __future__ import annotations

import random
from typing import Any

from campaign.errors import BadInput
from campaign.formats.fields import lst, obj
from campaign.formats.placements import groups_json, placements_json
from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from campaign.judge import cause as C
from campaign.judge.cause import Cause
from campaign.run.focus import NO_FOCUS, Focus
from campaign.run.operations import operations_of
from campaign.run.record import Outcome, RunSpec
from campaign.run.variants import metadata_execute, metadata_settled
from checkers.quorum.from_spec import history_from_states
from checkers.quorum.z3prover import prove_history
from impl.metadata import Accepted, Metadata
from spec.consistency import ConsistencyLevel
from spec.fixes import execute as spec_fixed
from spec.invariants import violations
from spec.metadata import ClusterMetadata
from spec.settled import write_placement_all_settled
from spec.transformations import Rejected
from strategies.cases import (
    CAMPAIGN_MIX,
    CANCEL_MIX,
    NO_CANCEL_MIX,
    OPERATIONS,
    SMALL_TOKENS,
    next_transformation,
    topology,
)


def generate(rng: random.Random, focus: Focus = NO_FOCUS, *, min_steps: int = 10, max_steps: int = 40
             ) -> dict[str, Any]:
    """A topology and 10-40 transformations, chosen while running the spec so most make sense
    (the operations started of the kinds `focus` names, if any; cancels more often when it names
    cancel).

    Operations are started (REGISTER + PREPARE_*) and driven step by step, interleaved with
    each other (an operation may sit after any step — `until`-style — while others proceed),
    cancelled, and mixed with steps out of order, unknown nodes and schema changes, so both
    the accepting and the rejecting paths of both sides are exercised."""
    topo = topology(rng, token_span=SMALL_TOKENS)
    m = ClusterMetadata.initial(parse_topology(topo))
    out: list[dict[str, Any]] = []
    fresh = 0
    mix = CANCEL_MIX if focus.cancels else NO_CANCEL_MIX if focus.operations else CAMPAIGN_MIX
    operations = focus.operations_for("refine") or OPERATIONS
    for _ in range(rng.randint(min_steps, max_steps)):
        t, fresh = next_transformation(rng, m, fresh, mix, operations)
        out.append(t)
        result = parse_transformation(t).execute(m)
        if not isinstance(result, Rejected):
            m = result.metadata
    return {"topology": topo, "transformations": out}


def done(outcome: Outcome) -> dict[str, Any]:
    """Nothing beyond what the case asked for (sim's counts the paths its run took)."""
    return {}


def parse(case: Any) -> None:
    """BadInput for a case a refine run could not take."""
    case = obj(case, "case")
    if not isinstance(case.get("topology"), dict) or not isinstance(case.get("transformations"), list):
        raise BadInput("a refine case needs a topology object and a transformations list")
    parse_topology(case["topology"], "case.topology")
    for i, t in enumerate(lst(case["transformations"], "case.transformations")):
        parse_transformation(t, f"case.transformations[{i}]")


def size(case: dict[str, Any]) -> int:
    """What shrinking makes smaller: transformations and nodes."""
    return len(case.get("transformations", [])) + len(case.get("topology", {}).get("nodes", []))


def coverage(case: dict[str, Any]) -> dict[str, Any]:
    """The transformation kinds of the case's steps and the operations they start (the report's
    coverage plots)."""
    kinds: dict[str, int] = {}
    for t in case.get("transformations", []):
        name = str(t.get("kind", "?"))
        kinds[name] = kinds.get(name, 0) + 1
    return {"transformations": dict(sorted(kinds.items())), "faults": {},
            "operations": operations_of(case.get("transformations", []))}


def check(spec: RunSpec, record_decisions: bool = False) -> Outcome:
    """Drive spec and impl through the case's transformations, comparing them after every step,
    then prove quorum intersection over the spec's epochs (`record_decisions`: no schedule here)."""
    assert spec.case is not None
    impl_execute = metadata_execute(spec.mutant, spec.fixes)
    impl_settled = metadata_settled(spec.mutant)
    topo_doc = spec.case["topology"]
    spec_m = ClusterMetadata.initial(parse_topology(topo_doc, "case topology"))
    impl_m = Metadata.from_topology(topo_doc)
    states = [spec_m]
    committed: dict[int, dict[str, Any]] = {}
    accepted = rejected = 0
    evidence: dict[str, Any] = {}
    cause: Cause | None = None
    transformations = spec.case["transformations"]
    if impl_m.placements_json() != placements_json(spec_m.placements):
        cause = C.initial_placements_differ()
    for i, t_json in enumerate(transformations if cause is None else ()):
        t = parse_transformation(t_json, f"transformations[{i}]")
        spec_r = spec_fixed(t, spec_m, spec.fixes)
        impl_r = impl_execute(impl_m, t_json)
        where = f"step {i} ({t.kind} at epoch {spec_m.epoch})"
        spec_ok, impl_ok = not isinstance(spec_r, Rejected), isinstance(impl_r, Accepted)
        if spec_ok != impl_ok:
            evidence = {"step": i, "transformation": t_json,
                        "spec": getattr(spec_r, "reason", "accepted"), "impl": getattr(impl_r, "reason", "accepted")}
            cause = C.refine_step(where, f"spec {'accepts' if spec_ok else 'rejects'}, "
                                         f"impl {'accepts' if impl_ok else 'rejects'}")
            break
        if not spec_ok:
            rejected += 1
            continue
        accepted += 1
        assert not isinstance(spec_r, Rejected) and isinstance(impl_r, Accepted)
        spec_m, impl_m = spec_r.metadata, impl_r.metadata
        states.append(spec_m)
        committed[spec_m.epoch] = t_json
        differs = _first_difference(spec_m, impl_m) or _settled_difference(spec_m, impl_m, impl_settled)
        if differs is not None:
            evidence = {"step": i, "transformation": t_json, "differs": differs}
            cause = C.refine_step(where, f"spec and impl disagree on {differs}")
            break
        broken = violations(spec_m)
        if broken:
            evidence = {"step": i, "transformation": t_json, "violations": [f"{n}: {v}" for n, v in broken]}
            name, what = broken[0]
            cause = C.refine_step(where, f"invariant {name}: {what}", invariant=name)
            break
    segments = _same_replication_segments(states)
    checks = 0
    if cause is None:
        cause, checks, evidence = _prove(segments, committed)
    counters = (("accepted", accepted), ("prover_checks", checks), ("rejected", rejected),
                ("replication_changes", len(segments) - 1))
    return Outcome(valid=cause is None, cause=cause, causes=() if cause is None else (cause,),
                   final_epoch=spec_m.epoch, steps=len(transformations), counters=counters,
                   details=evidence)


def _prove(segments: list[list[ClusterMetadata]], committed: dict[int, dict[str, Any]]
           ) -> tuple[Cause | None, int, dict[str, Any]]:
    """QUORUM/QUORUM intersection over each segment's consecutive epochs: the first
    counterexample's cause, the checks made, and the evidence (up to 5 counterexamples)."""
    checks = 0
    found: list[Any] = []
    for segment in segments:
        verdict = prove_history(history_from_states(segment), read_cl=ConsistencyLevel.QUORUM,
                                write_cl=ConsistencyLevel.QUORUM, window=1)
        checks += verdict.checked
        if verdict.valid is not True:
            found.append(verdict)
    if not found:
        return None, checks, {}
    verdict = found[0]
    ces = [{"keyspace": c.keyspace, "range": [c.range.left, c.range.right],
            "read_epoch": c.read_epoch, "write_epoch": c.write_epoch,
            "read_quorum": list(c.read_quorum), "write_quorum": list(c.write_quorum)}
           for c in verdict.counterexamples[:5]]
    evidence: dict[str, Any] = {"prover": verdict.cause, "counterexamples": ces}
    if not ces:
        return C.quorum(verdict.cause), checks, evidence
    first = ces[0]
    later = max(first["read_epoch"], first["write_epoch"])
    across = committed.get(later, {}).get("kind", "?") if first["read_epoch"] != first["write_epoch"] else None
    evidence["across"] = committed.get(later)
    detail = (f"{first['keyspace']} {tuple(first['range'])}, read at epoch {first['read_epoch']}, "
              f"write at epoch {first['write_epoch']}")
    return C.quorum(verdict.cause, detail, across), checks, evidence


def _same_replication_segments(states: list[Any]) -> list[list[Any]]:
    """Consecutive spec states cut wherever a keyspace's replication changes (ALTER KEYSPACE).

    why: a new replication factor takes effect in one epoch in the spec (and in Cassandra,
    which asks for a repair afterwards), so quorums across that one epoch pair cannot be
    expected to intersect; the prover checks each side of the change on its own."""
    segments: list[list[Any]] = [[states[0]]]
    for prev, m in zip(states, states[1:], strict=False):
        names = set(prev.schema.names()) & set(m.schema.names())
        if any(prev.schema.replication(n) != m.schema.replication(n) for n in names):
            segments.append([m])
        else:
            segments[-1].append(m)
    return segments


def _settled_difference(spec_m: ClusterMetadata, impl_m: Metadata, impl_settled: Any) -> str | None:
    """ClusterMetadata.writePlacementAllSettled on both sides (CASSANDRA-19193's property)."""
    mine = write_placement_all_settled(spec_m)
    want = None if mine is None else {ks: groups_json(g) for ks, g in mine.items()}
    if want != impl_settled(impl_m):
        return "the settled write placement"
    return None


def _first_difference(spec_m: ClusterMetadata, impl_m: Metadata) -> str | None:
    if impl_m.epoch != spec_m.epoch:
        return f"epoch ({spec_m.epoch} vs {impl_m.epoch})"
    if impl_m.placements_json() != placements_json(spec_m.placements):
        return "placements"
    spec_nodes = {str(n.id): (n.state.value, spec_m.token_map.tokens_of(n.id)) for n in spec_m.directory}
    impl_nodes = {n: (impl_m.node_state(n).value, impl_m.tokens_of(n)) for n in impl_m.directory}
    if spec_nodes != impl_nodes:
        bad = sorted(n for n in set(spec_nodes) | set(impl_nodes) if spec_nodes.get(n) != impl_nodes.get(n))
        return f"node states or tokens of {', '.join(bad)}"
    if (tuple(sorted(spec_m.cms.reads)), tuple(sorted(spec_m.cms.writes))) != (impl_m.cms_members(), impl_m.cms_write_members()):
        return "CMS read/write sets"
    return None


__all__ = ["done", "check", "coverage", "generate", "parse", "size"]
