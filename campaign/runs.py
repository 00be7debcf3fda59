"""One fuzzing run: a case generated from (kind, seed), checked, and its record.

Three run kinds:

- `sim`: a generated scenario (campaign/generate.py) run by the simulator (`run_scenario`) and
  judged (`campaign.judge.judge`: log checkers with the spec justifying every rejection,
  linearizability of the commit history, spec replay of the log). Valid iff the judgement is
  valid and the run recorded no conflicting epoch and no apply failure.
- `refine`: a generated topology and transformations fed to both the spec and
  `impl.metadata.execute` (through the JSON wire shape). Valid iff they agree on acceptance,
  epoch, placements, node states, tokens and CMS sets after every step, the spec's invariants
  hold after every committed step, and Z3 proves QUORUM/QUORUM intersection for window 1 over
  the spec's epochs.

- `stateful`: a Hypothesis stateful machine (the system machine over the simulated cluster, or
  the metadata machine over the spec) run from the seed, shrunk by Hypothesis on failure
  (campaign/stateful.py). Valid iff every example passed.

`run_one(kind, seed)` returns a picklable `RunRecord`. A failing run carries `failure`: a
self-contained document (kind, seed, the generated case) that `check_case` re-runs without the
generator — what `tcmcheck replay FILE` does.

Mutants: `mutant=NAME` plants one known-bug switch of impl/bugs.py (e.g. "reject-create-table"
makes impl refuse every CREATE TABLE), so tests and users can see a campaign catch a bug and
replay it. A mutant is part of a run's identity and is recorded in its failure file.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from attrs import frozen

from impl.bugs import NAMES

KINDS = ("sim", "refine", "stateful")
DEFAULT_KINDS = ("sim", "refine")
"""What `tcmcheck fuzz` runs without `--kinds` (docs/stateful.md: why not stateful too)."""
MUTANTS = NAMES  # the known-bug switches (impl/bugs.py)


@frozen(kw_only=True)
class Outcome:
    """The verdict of one run (everything but timing): plain data, picklable."""

    valid: bool
    cause: str | None
    final_epoch: int
    steps: int
    counters: tuple[tuple[str, int], ...]
    details: str
    """JSON text: the judgement summary (sim) or the per-step evidence (refine)."""
    decisions: tuple[tuple[str, int, int], ...] = ()
    """sim: the non-default decisions the run took, when recorded or scripted (schedule
    shrinking, campaign/shrink.py); not part of the verdict."""

    def to_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "cause": self.cause, "final_epoch": self.final_epoch,
                "steps": self.steps, "counters": dict(self.counters),
                "details": json.loads(self.details)}


@frozen(kw_only=True)
class RunRecord:
    run: int
    kind: str
    seed: int
    mutant: str | None
    outcome: Outcome
    duration_s: float
    failure: str | None = None
    """JSON text of the failure document when the run is invalid (see `failure_doc`)."""
    coverage: str = "{}"
    """JSON text: what the case exercised (`coverage`), for the report's coverage plots."""
    fixes: frozenset[str] = frozenset()
    """Proposed fixes (spec/fixes.py) the run was made with: part of its identity, like `mutant`."""

    def row(self, replay: str) -> dict[str, Any]:
        o = self.outcome
        return {"run": self.run, "kind": self.kind, "seed": self.seed, "valid": o.valid,
                "cause": o.cause, "final_epoch": o.final_epoch, "steps": o.steps,
                "counters_json": json.dumps(dict(o.counters), sort_keys=True),
                "coverage_json": self.coverage, "mutant": self.mutant,
                "fix": ",".join(sorted(self.fixes)) or None,
                "replay": replay, "duration_s": self.duration_s}

    def replay(self) -> str:
        """The command that regenerates this run from its seed (it works from any folder)."""
        mutant = f" --mutant {self.mutant}" if self.mutant else ""
        fix = "".join(f" --fix {f}" for f in sorted(self.fixes))
        return f"tcmcheck replay --kind {self.kind} --seed {self.seed}{mutant}{fix}"


# ---------------------------------------------------------------- one run


def generate_case(kind: str, seed: int) -> dict[str, Any]:
    """The run's input, regenerated from its seed alone."""
    from campaign import generate

    rng = random.Random(seed)
    if kind == "sim":
        return generate.scenario(rng)
    if kind == "refine":
        return generate.refine_case(rng)
    if kind == "stateful":
        return generate.stateful_case(rng)
    raise ValueError(f"unknown run kind {kind!r}")


def check_case(kind: str, case: dict[str, Any], seed: int, *, mutant: str | None = None,
               fixes: frozenset[str] = frozenset(), record_decisions: bool = False) -> Outcome:
    """Run and judge one case (the generated document, or one read back from a failure file);
    `fixes` names proposed fixes (spec/fixes.py) to run spec and impl with."""
    if kind == "sim":
        return _check_sim(case, seed, mutant, fixes, record_decisions)
    if kind == "refine":
        return _check_refine(case, mutant, fixes)
    if kind == "stateful":
        from campaign.stateful import check_stateful

        outcome: Outcome = check_stateful(case, seed, mutant, fixes)
        return outcome
    raise ValueError(f"unknown run kind {kind!r}")


def checked(kind: str, case: dict[str, Any], seed: int, *, mutant: str | None = None,
            fixes: frozenset[str] = frozenset(), record_decisions: bool = False) -> Outcome:
    """`check_case`, with an exception inside spec, impl or a checker turned into a failing
    outcome (cause `crash: TYPE: message`, the traceback in details): a crash is a finding,
    and one run's crash must not end the campaign. Bad input (`BadInput`, impl's
    `InvalidTopology`) still raises: that is the case's fault, not the code's."""
    import traceback

    from campaign.errors import BadInput
    from impl.metadata import InvalidTopology

    try:
        return check_case(kind, case, seed, mutant=mutant, fixes=fixes,
                          record_decisions=record_decisions)
    except (BadInput, InvalidTopology):
        raise
    except Exception as e:  # noqa: BLE001 (any crash is the verdict)
        message = str(e).splitlines()[0] if str(e) else ""
        return Outcome(valid=False, cause=f"crash: {type(e).__name__}: {message}"[:300], final_epoch=0,
                       steps=len(case.get("transformations", case.get("submissions", []))), counters=(),
                       details=json.dumps({"traceback": traceback.format_exc()}))


def generated(kind: str, seed: int) -> tuple[dict[str, Any], Outcome | None]:
    """The run's case, or ({}, a failing outcome) when the generator itself crashed: the generator
    runs the spec, so a spec exception while generating is a found bug, replayed from the seed
    (`tcmcheck replay --kind K --seed N`; there is no case to write to a failure file)."""
    import traceback

    try:
        return generate_case(kind, seed), None
    except Exception as e:  # noqa: BLE001 (any crash is the verdict)
        message = str(e).splitlines()[0] if str(e) else ""
        return {}, Outcome(valid=False, cause=f"crash: {type(e).__name__}: {message}"[:300], final_epoch=0,
                           steps=0, counters=(), details=json.dumps({"traceback": traceback.format_exc()}))


def run_one(kind: str, seed: int, *, run: int = 0, mutant: str | None = None,
            fixes: frozenset[str] = frozenset()) -> RunRecord:
    started = time.monotonic()  # wall clock only for the duration column, never for a verdict
    case, crashed = generated(kind, seed)
    if crashed is not None:
        return RunRecord(run=run, kind=kind, seed=seed, mutant=mutant, outcome=crashed,
                         duration_s=round(time.monotonic() - started, 4), fixes=fixes)
    try:
        outcome = checked(kind, case, seed, mutant=mutant, fixes=fixes)
    except Exception as e:  # noqa: BLE001 (a generated case the parsers refuse is a generator bug)
        outcome = Outcome(valid=False, cause=f"crash: generated bad input: {e}"[:300], final_epoch=0, steps=0,
                          counters=(), details=json.dumps({"error": str(e)}))
    failure = None if outcome.valid else json.dumps(failure_doc(kind, seed, case, outcome, mutant, fixes),
                                                    sort_keys=True, indent=1)
    return RunRecord(run=run, kind=kind, seed=seed, mutant=mutant, outcome=outcome,
                     duration_s=round(time.monotonic() - started, 4), failure=failure,
                     coverage=json.dumps(coverage(kind, case), sort_keys=True), fixes=fixes)


def error_record(run: int, kind: str, seed: int, mutant: str | None, cause: str,
                 duration_s: float, fixes: frozenset[str] = frozenset()) -> RunRecord:
    """A run that gave no verdict: its worker died or it ran past its time limit. It is still a
    failing row with a failure file (the case regenerated from the seed), so that it is replayed
    like any other failure: a hang or an out-of-memory is a finding too."""
    case, crashed = generated(kind, seed)
    outcome = Outcome(valid=False, cause=cause, final_epoch=0, steps=0, counters=(),
                      details=json.dumps({"error": cause}))
    if crashed is not None:
        return RunRecord(run=run, kind=kind, seed=seed, mutant=mutant, outcome=crashed,
                         duration_s=round(duration_s, 4), fixes=fixes)
    return RunRecord(run=run, kind=kind, seed=seed, mutant=mutant, outcome=outcome,
                     duration_s=round(duration_s, 4),
                     failure=json.dumps(failure_doc(kind, seed, case, outcome, mutant, fixes),
                                        sort_keys=True, indent=1),
                     coverage=json.dumps(coverage(kind, case), sort_keys=True), fixes=fixes)


def coverage(kind: str, case: dict[str, Any]) -> dict[str, Any]:
    """What a case exercises, counted from the case alone (deterministic): transformation kinds
    (refine: the steps; sim: the topology submissions and schema ops), and for sim the fault kinds
    present. The report plots these to show what a campaign covered."""
    kinds: dict[str, int] = {}
    faults: dict[str, int] = {}
    if kind == "refine":
        steps = case.get("transformations", [])
    else:
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
    return {"transformations": dict(sorted(kinds.items())), "faults": dict(sorted(faults.items()))}


def failure_doc(kind: str, seed: int, case: dict[str, Any], outcome: Outcome,
                mutant: str | None, fixes: frozenset[str] = frozenset()) -> dict[str, Any]:
    doc: dict[str, Any] = {"tcmcheck_failure": 1, "kind": kind, "seed": seed, "case": case,
                           "verdict": outcome.to_json()}
    if mutant is not None:
        doc["mutant"] = mutant
    if fixes:
        doc["fixes"] = sorted(fixes)
    return doc


# ---------------------------------------------------------------- kind "sim"


class _FixedEngine:
    """impl.metadata with proposed fixes (impl/metadata/fixes.py)."""

    def __init__(self, fixes: frozenset[str]) -> None:
        from impl.engine import MetadataEngine

        self._real = MetadataEngine()
        self._fixes = fixes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def execute(self, metadata: Any, transformation: dict[str, Any]) -> Any:
        from impl.metadata.fixes import execute

        return execute(metadata, transformation, self._fixes)


def _mutant_execute(execute: Callable[[Any, dict[str, Any]], Any], mutant: str | None) -> Callable[[Any, dict[str, Any]], Any]:
    if mutant is None:
        return execute
    from impl.bugs import check_names, mutant_execute

    return mutant_execute(execute, check_names([mutant]))


def _check_sim(doc: dict[str, Any], seed: int, mutant: str | None, fixes: frozenset[str] = frozenset(),
               record_decisions: bool = False) -> Outcome:
    from campaign.formats.scenario import parse_scenario
    from campaign.judge import judge
    from impl.cluster import run_scenario

    scenario = parse_scenario(doc)
    engine: Any = None
    if mutant is not None:
        from attrs import evolve

        from impl.bugs import BY_NAME, MutantEngine, check_names

        names = check_names([mutant]) | scenario.settings.mutants
        scenario = evolve(scenario, settings=evolve(scenario.settings, mutants=names))
        if any(BY_NAME[n].engine for n in names):
            engine = MutantEngine(names, fixes)
    elif scenario.settings.mutants:
        from impl.bugs import BY_NAME, MutantEngine

        if any(BY_NAME[n].engine for n in scenario.settings.mutants):
            engine = MutantEngine(scenario.settings.mutants, fixes)
    if fixes and engine is None:
        engine = _FixedEngine(fixes)
    from spec.fixes import DATA_PATH_FIXES

    if fixes & DATA_PATH_FIXES:  # the data-path fixes act in the nodes
        from attrs import evolve

        scenario = evolve(scenario, settings=evolve(scenario.settings, fixes=fixes & DATA_PATH_FIXES))
    result = run_scenario(scenario, seed, engine=engine, record_decisions=record_decisions)
    judgement = judge(scenario, result, fixes=fixes) if fixes else judge(scenario, result)
    summary = judgement.summary()
    summary["conflicts"] = list(result.conflicts)
    summary["apply_failures"] = [list(f) for f in result.apply_failures]
    summary["quiescent"] = result.quiescent
    summary["trace_hash"] = result.trace_hash
    cause = None
    if result.conflicts:
        cause = f"conflict: {result.conflicts[0]}"
    elif result.apply_failures:
        node, epoch, reason = result.apply_failures[0]
        cause = f"apply failure: {node} refused epoch {epoch}: {reason}"
    elif judgement.logs.valid is not True:
        first = summary["logs"]["violations"][:1]
        cause = f"logs: {first[0] if first else judgement.logs.valid}"
    elif judgement.history.valid is False:
        cause = f"history: {judgement.history.cause}"
    elif judgement.clients is not None and judgement.clients.valid is False:
        cause = f"clients: {judgement.clients.cause}"
    elif judgement.refinement:
        cause = f"spec replay: {judgement.refinement[0]}"
    elif judgement.holdings:
        first = judgement.holdings[0]
        cause = first if first.startswith("durability:") else f"holdings: {first}"
    elif judgement.liveness:
        cause = judgement.liveness[0]
    invokes = sum(1 for op in result.commit_history if op.type == "invoke")
    return Outcome(valid=cause is None, cause=cause, final_epoch=result.final_epoch, steps=invokes,
                   counters=result.counters, details=json.dumps(summary, sort_keys=True),
                   decisions=result.decisions)


# ---------------------------------------------------------------- kind "refine"


def _check_refine(case: dict[str, Any], mutant: str | None, fixes: frozenset[str] = frozenset()) -> Outcome:
    from campaign.formats.placements import placements_json
    from campaign.formats.topology import parse_topology
    from campaign.formats.transformations import parse_transformation
    from checkers.quorum.from_spec import history_from_states
    from checkers.quorum.z3prover import prove_history
    from impl.metadata import Accepted, Metadata, execute
    from impl.metadata.fixes import execute as impl_fixed
    from spec.consistency import ConsistencyLevel
    from spec.fixes import execute as spec_fixed
    from spec.invariants import check_invariants
    from spec.metadata import ClusterMetadata
    from spec.transformations import Rejected

    impl_execute = _mutant_execute(execute, mutant)
    if fixes:
        impl_execute = lambda m, t: impl_fixed(m, t, fixes)  # noqa: E731  # (no mutant with fixes)
    topo_doc = case["topology"]
    spec_m = ClusterMetadata.initial(parse_topology(topo_doc, "case topology"))
    impl_m = Metadata.from_topology(topo_doc)
    states = [spec_m]
    committed: dict[int, dict[str, Any]] = {}
    accepted = rejected = 0
    evidence: dict[str, Any] = {}
    cause: str | None = None
    transformations = case["transformations"]
    if impl_m.placements_json() != placements_json(spec_m.placements):
        cause = "initial placements differ"
    for i, t_json in enumerate(transformations if cause is None else ()):
        t = parse_transformation(t_json, f"transformations[{i}]")
        spec_r = spec_fixed(t, spec_m, fixes)
        impl_r = impl_execute(impl_m, t_json)
        where = f"step {i} ({t.kind} at epoch {spec_m.epoch})"
        spec_ok, impl_ok = not isinstance(spec_r, Rejected), isinstance(impl_r, Accepted)
        if spec_ok != impl_ok:
            evidence = {"step": i, "transformation": t_json,
                        "spec": getattr(spec_r, "reason", "accepted"), "impl": getattr(impl_r, "reason", "accepted")}
            cause = (f"{where}: spec {'accepts' if spec_ok else 'rejects'}, "
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
        differs = _first_difference(spec_m, impl_m, placements_json)
        if differs is not None:
            evidence = {"step": i, "transformation": t_json, "differs": differs}
            cause = f"{where}: spec and impl disagree on {differs}"
            break
        violations = check_invariants(spec_m)
        if violations:
            evidence = {"step": i, "transformation": t_json, "violations": list(violations)}
            cause = f"{where}: invariant {violations[0]}"
            break
    checks = 0
    segments = _same_replication_segments(states)
    if cause is None:
        found: list[Any] = []
        for segment in segments:
            verdict = prove_history(history_from_states(segment), read_cl=ConsistencyLevel.QUORUM,
                                    write_cl=ConsistencyLevel.QUORUM, window=1)
            checks += verdict.checked
            if verdict.valid is not True:
                found.append(verdict)
        if found:
            verdict = found[0]
            ces = [{"keyspace": c.keyspace, "range": [c.range.left, c.range.right],
                    "read_epoch": c.read_epoch, "write_epoch": c.write_epoch,
                    "read_quorum": list(c.read_quorum), "write_quorum": list(c.write_quorum)}
                   for c in verdict.counterexamples[:5]]
            evidence = {"prover": verdict.cause, "counterexamples": ces}
            cause = f"quorum: {verdict.cause}"
            if ces:
                first = ces[0]
                later = max(first["read_epoch"], first["write_epoch"])
                across = committed.get(later, {}).get("kind", "?") if first["read_epoch"] != first["write_epoch"] else None
                evidence["across"] = committed.get(later)
                cause += (f" in {first['keyspace']} {tuple(first['range'])}, read at epoch {first['read_epoch']}, "
                          f"write at epoch {first['write_epoch']}" + (f" (across {across})" if across else ""))
    counters = (("accepted", accepted), ("prover_checks", checks), ("rejected", rejected),
                ("replication_changes", len(segments) - 1))
    return Outcome(valid=cause is None, cause=cause, final_epoch=spec_m.epoch, steps=len(transformations),
                   counters=counters, details=json.dumps(evidence, sort_keys=True))


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


def _first_difference(spec_m: Any, impl_m: Any, placements_json: Callable[[Any], Any]) -> str | None:
    if impl_m.epoch != spec_m.epoch:
        return f"epoch ({spec_m.epoch} vs {impl_m.epoch})"
    if impl_m.placements_json() != placements_json(spec_m.placements):
        return "placements"
    spec_nodes = {n.id: (n.state.value, spec_m.token_map.tokens_of(n.id)) for n in spec_m.directory}
    impl_nodes = {n: (impl_m.node_state(n).value, impl_m.tokens_of(n)) for n in impl_m.directory}
    if spec_nodes != impl_nodes:
        bad = sorted(n for n in set(spec_nodes) | set(impl_nodes) if spec_nodes.get(n) != impl_nodes.get(n))
        return f"node states or tokens of {', '.join(bad)}"
    if (tuple(sorted(spec_m.cms.reads)), tuple(sorted(spec_m.cms.writes))) != (impl_m.cms_members(), impl_m.cms_write_members()):
        return "CMS read/write sets"
    return None


