"""Fuzzing campaigns: many runs, each a pure function of (kind, seed), judged by the checkers.

Two run kinds:

- `sim`: a generated scenario (campaign/generate.py) run by the simulator (`run_scenario`) and
  judged (`campaign.judge.judge`: log checkers with the spec justifying every rejection,
  linearizability of the commit history, spec replay of the log). Valid iff the judgement is
  valid and the run recorded no conflicting epoch and no apply failure.
- `refine`: a generated topology and transformations fed to both the spec and
  `impl.metadata.execute` (through the JSON wire shape). Valid iff they agree on acceptance,
  epoch, placements, node states, tokens and CMS sets after every step, the spec's invariants
  hold after every committed step, and Z3 proves QUORUM/QUORUM intersection for window 1 over
  the spec's epochs.

`run_one(kind, seed)` returns a picklable `RunRecord`; `run_campaign` maps it over a process
pool. A failing run carries `failure`: a self-contained document (kind, seed, the generated
case) that `check_case` re-runs without the generator — what `tcmcheck replay FILE` does.

Mutants: `mutant="reject-create-table"` makes impl refuse every CREATE TABLE (a deliberate
engine bug), so tests and users can see a campaign catch a bug and replay it. A mutant is part
of a run's identity and is recorded in its failure file.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from attrs import frozen

KINDS = ("sim", "refine")
MUTANTS = ("reject-create-table",)
SEED_STRIDE = 1_000_003
"""Run i of a campaign with seed S has seed S * SEED_STRIDE + i (a prime stride: campaigns with
neighbouring seeds do not share runs for the first million runs)."""

COLUMNS = ("run", "kind", "seed", "valid", "cause", "final_epoch", "steps", "counters_json",
           "replay", "duration_s")


def run_seed(campaign_seed: int, run: int) -> int:
    return campaign_seed * SEED_STRIDE + run


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

    def row(self, replay: str) -> dict[str, Any]:
        o = self.outcome
        return {"run": self.run, "kind": self.kind, "seed": self.seed, "valid": o.valid,
                "cause": o.cause, "final_epoch": o.final_epoch, "steps": o.steps,
                "counters_json": json.dumps(dict(o.counters), sort_keys=True),
                "replay": replay, "duration_s": self.duration_s}


# ---------------------------------------------------------------- one run


def generate_case(kind: str, seed: int) -> dict[str, Any]:
    """The run's input, regenerated from its seed alone."""
    from campaign import generate

    rng = random.Random(seed)
    if kind == "sim":
        return generate.scenario(rng)
    if kind == "refine":
        return generate.refine_case(rng)
    raise ValueError(f"unknown run kind {kind!r}")


def check_case(kind: str, case: dict[str, Any], seed: int, *, mutant: str | None = None) -> Outcome:
    """Run and judge one case (the generated document, or one read back from a failure file)."""
    if kind == "sim":
        return _check_sim(case, seed, mutant)
    if kind == "refine":
        return _check_refine(case, mutant)
    raise ValueError(f"unknown run kind {kind!r}")


def checked(kind: str, case: dict[str, Any], seed: int, *, mutant: str | None = None) -> Outcome:
    """`check_case`, with an exception inside spec, impl or a checker turned into a failing
    outcome (cause `crash: TYPE: message`, the traceback in details): a crash is a finding,
    and one run's crash must not end the campaign. Bad input (`BadInput`, impl's
    `InvalidTopology`) still raises: that is the case's fault, not the code's."""
    import traceback

    from campaign.errors import BadInput
    from impl.metadata import InvalidTopology

    try:
        return check_case(kind, case, seed, mutant=mutant)
    except (BadInput, InvalidTopology):
        raise
    except Exception as e:  # noqa: BLE001 (any crash is the verdict)
        message = str(e).splitlines()[0] if str(e) else ""
        return Outcome(valid=False, cause=f"crash: {type(e).__name__}: {message}"[:300], final_epoch=0,
                       steps=len(case.get("transformations", case.get("submissions", []))), counters=(),
                       details=json.dumps({"traceback": traceback.format_exc()}))


def run_one(kind: str, seed: int, *, run: int = 0, mutant: str | None = None) -> RunRecord:
    started = time.monotonic()  # wall clock only for the duration column, never for a verdict
    case = generate_case(kind, seed)
    try:
        outcome = checked(kind, case, seed, mutant=mutant)
    except Exception as e:  # noqa: BLE001 (a generated case the parsers refuse is a generator bug)
        outcome = Outcome(valid=False, cause=f"crash: generated bad input: {e}"[:300], final_epoch=0, steps=0,
                          counters=(), details=json.dumps({"error": str(e)}))
    failure = None if outcome.valid else json.dumps(failure_doc(kind, seed, case, outcome, mutant), sort_keys=True, indent=1)
    return RunRecord(run=run, kind=kind, seed=seed, mutant=mutant, outcome=outcome,
                     duration_s=round(time.monotonic() - started, 4), failure=failure)


def failure_doc(kind: str, seed: int, case: dict[str, Any], outcome: Outcome,
                mutant: str | None) -> dict[str, Any]:
    doc: dict[str, Any] = {"tcmcheck_failure": 1, "kind": kind, "seed": seed, "case": case,
                           "verdict": outcome.to_json()}
    if mutant is not None:
        doc["mutant"] = mutant
    return doc


# ---------------------------------------------------------------- kind "sim"


class _RejectCreateTable:
    """The mutant engine: impl.metadata, except that every CREATE TABLE is refused."""

    def __init__(self) -> None:
        from impl.engine import MetadataEngine

        self._real = MetadataEngine()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def execute(self, metadata: Any, transformation: dict[str, Any]) -> Any:
        return _mutant_execute(self._real.execute, "reject-create-table")(metadata, transformation)


def _mutant_execute(execute: Callable[[Any, dict[str, Any]], Any], mutant: str | None) -> Callable[[Any, dict[str, Any]], Any]:
    if mutant is None:
        return execute
    if mutant == "reject-create-table":
        from impl.metadata import Rejected as ImplRejected

        def mutated(metadata: Any, t: dict[str, Any]) -> Any:
            if t.get("kind") == "SCHEMA_CHANGE" and t.get("change", {}).get("op") == "CREATE_TABLE":
                return ImplRejected("mutant: CREATE TABLE refused")
            return execute(metadata, t)

        return mutated
    raise ValueError(f"unknown mutant {mutant!r}")


def _check_sim(doc: dict[str, Any], seed: int, mutant: str | None) -> Outcome:
    from campaign.formats.scenario import parse_scenario
    from campaign.judge import judge
    from impl.cluster import run_scenario

    scenario = parse_scenario(doc)
    engine = _RejectCreateTable() if mutant == "reject-create-table" else None
    if mutant is not None and engine is None:
        raise ValueError(f"unknown mutant {mutant!r}")
    result = run_scenario(scenario, seed, engine=engine)
    judgement = judge(scenario, result)
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
    elif judgement.refinement:
        cause = f"spec replay: {judgement.refinement[0]}"
    invokes = sum(1 for op in result.history if op.type == "invoke")
    return Outcome(valid=cause is None, cause=cause, final_epoch=result.final_epoch, steps=invokes,
                   counters=result.counters, details=json.dumps(summary, sort_keys=True))


# ---------------------------------------------------------------- kind "refine"


def _check_refine(case: dict[str, Any], mutant: str | None) -> Outcome:
    from campaign.formats.placements import placements_json
    from campaign.formats.topology import parse_topology
    from campaign.formats.transformations import parse_transformation
    from checkers.quorum.from_spec import history_from_states
    from checkers.quorum.z3prover import prove_history
    from impl.metadata import Accepted, Metadata, execute
    from spec.consistency import ConsistencyLevel
    from spec.invariants import check_invariants
    from spec.metadata import ClusterMetadata
    from spec.transformations import Rejected

    impl_execute = _mutant_execute(execute, mutant)
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
        spec_r = t.execute(spec_m)
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


# ---------------------------------------------------------------- shrinking


def cause_class(cause: str | None) -> str:
    """A cause without its run-specific details (ranges, epochs, step numbers): two failures
    of one class are taken to be the same bug, for grouping and while shrinking."""
    if cause is None:
        return ""
    if cause.startswith("crash: "):
        return cause.split(":", 2)[0] + ":" + cause.split(":", 2)[1]
    head = cause.split(" in ", 1)[0] if cause.startswith("quorum:") else cause
    if cause.startswith("step "):
        head = cause.split(": ", 1)[-1]
    elif cause.startswith("logs: "):
        head = cause.split(" at epoch", 1)[0]
    elif cause.startswith(("apply failure", "conflict", "spec replay")):
        head = cause.split(":", 1)[0]
    across = cause.rsplit("(across ", 1)
    return head + (f" (across {across[1]}" if len(across) == 2 else "")


def case_size(kind: str, case: dict[str, Any]) -> int:
    """What shrinking makes smaller: transformations and nodes (refine); nodes, requests and
    faults (sim)."""
    if kind == "refine":
        return len(case.get("transformations", [])) + len(case.get("topology", {}).get("nodes", []))
    faults = case.get("faults", {})
    return (len(case.get("topology", {}).get("nodes", [])) + len(case.get("submissions", []))
            + sum(int(w.get("count", 100)) for w in case.get("workloads", []))
            + len(faults.get("crashes", [])) + len(faults.get("partitions", []))
            + sum(1 for k in ("loss", "duplicate", "reorder") if faults.get(k)))


def shrink_case(kind: str, case: dict[str, Any], seed: int, *, mutant: str | None = None,
                max_checks: int = 2000) -> tuple[dict[str, Any], Outcome, int]:
    """Greedy minimization: apply the first smaller variant that still fails with the same
    cause class, and start over from it, until none does (or `max_checks` runs were spent).

    Returns the smallest failing case found, its outcome and the number of runs spent. The
    case must fail to begin with (ValueError otherwise)."""
    from campaign.errors import BadInput

    outcome = checked(kind, case, seed, mutant=mutant)
    if outcome.valid:
        raise ValueError("the case does not fail: nothing to shrink")
    target = cause_class(outcome.cause)
    checks = 1
    improved = True
    while improved and checks < max_checks:
        improved = False
        for candidate in _variants(kind, case):
            if checks >= max_checks:
                break
            checks += 1
            try:
                o = checked(kind, candidate, seed, mutant=mutant)
            except (BadInput, ValueError, KeyError):  # a variant that no longer parses
                continue
            if not o.valid and cause_class(o.cause) == target:
                case, outcome, improved = candidate, o, True
                break
    return case, outcome, checks


def _variants(kind: str, case: dict[str, Any]) -> Iterable[dict[str, Any]]:
    import copy

    def edit(fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        c = copy.deepcopy(case)
        fn(c)
        return c

    if kind == "refine":
        ts = case["transformations"]
        size = len(ts) // 2
        while size >= 1:  # drop chunks, biggest first, latest first
            for start in range(len(ts) - size, -1, -size):
                yield {**case, "transformations": ts[:start] + ts[start + size:]}
            size //= 2
        for i in range(len(case["topology"]["nodes"])):
            if len(case["topology"]["nodes"]) > 1:
                yield edit(lambda c, i=i: c["topology"]["nodes"].pop(i))
        for i, n in enumerate(case["topology"]["nodes"]):
            if len(n["tokens"]) > 1:
                yield edit(lambda c, i=i: c["topology"]["nodes"][i].__setitem__("tokens", c["topology"]["nodes"][i]["tokens"][:1]))
        if len(case["topology"].get("keyspaces", [])) > 1:
            for i in range(len(case["topology"]["keyspaces"])):
                yield edit(lambda c, i=i: c["topology"]["keyspaces"].pop(i))
        return
    faults = case.get("faults", {})
    for key in ("crashes", "partitions"):
        for i in range(len(faults.get(key, []))):
            yield edit(lambda c, key=key, i=i: c["faults"][key].pop(i))
    for key in ("loss", "duplicate", "reorder"):
        if faults.get(key):
            yield edit(lambda c, key=key: c["faults"].__setitem__(key, 0.0))
    subs = case.get("submissions", [])
    size = len(subs) // 2
    while size >= 1:
        for start in range(len(subs) - size, -1, -size):
            yield {**case, "submissions": subs[:start] + subs[start + size:]}
        size //= 2
    for i, w in enumerate(case.get("workloads", [])):
        yield edit(lambda c, i=i: c["workloads"].pop(i))
        count = int(w.get("count", 100))
        for smaller in sorted({count // 2, count - 1} - {0, count}):
            yield edit(lambda c, i=i, smaller=smaller: c["workloads"][i].__setitem__("count", smaller))
    nodes = [n["id"] for n in case["topology"]["nodes"]]
    if len(nodes) > 1:
        for node in reversed(nodes):
            yield edit(lambda c, node=node: _drop_node(c, node))


def _drop_node(c: dict[str, Any], node: str) -> None:
    """The scenario without `node` and every reference to it."""
    c["topology"]["nodes"] = [n for n in c["topology"]["nodes"] if n["id"] != node]
    c["submissions"] = [s for s in c.get("submissions", []) if s["node"] != node]
    for w in c.get("workloads", []):
        if "nodes" in w:
            w["nodes"] = [n for n in w["nodes"] if n != node]
            if not w["nodes"]:
                del w["nodes"]
    faults = c.get("faults", {})
    faults["crashes"] = [x for x in faults.get("crashes", []) if x["node"] != node]
    parts = []
    for p in faults.get("partitions", []):
        if "isolate" in p:
            p["isolate"] = [n for n in p["isolate"] if n != node]
            keep = bool(p["isolate"])
        else:
            p["groups"] = [[n for n in g if n != node] for g in p["groups"]]
            p["groups"] = [g for g in p["groups"] if g]
            keep = bool(p["groups"])
        if keep:
            parts.append(p)
    faults["partitions"] = parts
    cms = c.get("cms", {})
    if "members" in cms:
        cms["members"] = [n for n in cms["members"] if n != node]
    if "size" in cms:
        cms["size"] = min(cms["size"], len(c["topology"]["nodes"]))


# ---------------------------------------------------------------- a campaign


def plan(runs: int, campaign_seed: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
    """(run, kind, seed) for every run: kinds alternate, seeds derive from (S, i)."""
    ks = tuple(kinds)
    return [(i, ks[i % len(ks)], run_seed(campaign_seed, i)) for i in range(runs)]


def _work(args: tuple[int, str, int, str | None]) -> RunRecord:
    run, kind, seed, mutant = args
    return run_one(kind, seed, run=run, mutant=mutant)


def run_campaign(runs: int, campaign_seed: int, *, kinds: Iterable[str] = KINDS, workers: int = 1,
                 max_seconds: float | None = None, fail_fast: bool = False, mutant: str | None = None,
                 on_record: Callable[[RunRecord], None] | None = None) -> list[RunRecord]:
    """Every run of the plan (or those finished before `max_seconds` / the first failure with
    `fail_fast`), sorted by run index. `workers == 1` runs in this process."""
    todo = [(run, kind, seed, mutant) for run, kind, seed in plan(runs, campaign_seed, kinds)]
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    records: list[RunRecord] = []

    def keep(rec: RunRecord) -> bool:
        records.append(rec)
        if on_record is not None:
            on_record(rec)
        stop = (fail_fast and not rec.outcome.valid) or (deadline is not None and time.monotonic() > deadline)
        return not stop

    if workers <= 1:
        for args in todo:
            if not keep(_work(args)):
                break
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # why a bounded window instead of submitting everything: stopping early (fail-fast,
            # max-seconds) then wastes at most a window of runs, not the whole campaign
            pending: set[Future[RunRecord]] = set()
            queue = iter(todo)
            going = True
            while going:
                while len(pending) < 2 * workers:
                    nxt = next(queue, None)
                    if nxt is None:
                        break
                    pending.add(pool.submit(_work, nxt))
                if not pending:
                    break
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: f.result().run):
                    going = keep(fut.result()) and going
            for fut in pending:
                fut.cancel()
    return sorted(records, key=lambda r: r.run)


# ---------------------------------------------------------------- files


def failure_path(out: Path, rec: RunRecord) -> Path:
    return out / "failures" / f"{rec.kind}-{rec.seed}.json"


def replay_command(out: Path, rec: RunRecord) -> str:
    if rec.failure is not None:
        return f"tcmcheck replay {failure_path(out, rec)}"
    mutant = f" --mutant {rec.mutant}" if rec.mutant else ""
    return f"tcmcheck replay --kind {rec.kind} --seed {rec.seed}{mutant}"


def write_outputs(out: Path, records: list[RunRecord]) -> Path:
    """`out/runs.parquet` (one row per run, COLUMNS) and `out/failures/<kind>-<seed>.json`.

    Failure files of an earlier campaign in the same directory are removed first, so the
    directory describes this campaign only."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    failures = out / "failures"
    failures.mkdir(parents=True, exist_ok=True)
    for old in failures.glob("*.json"):
        old.unlink()
    for rec in records:
        if rec.failure is not None:
            failure_path(out, rec).write_text(rec.failure + "\n")
    rows = [rec.row(replay_command(out, rec)) for rec in records]
    schema = pa.schema([("run", pa.int64()), ("kind", pa.string()), ("seed", pa.int64()),
                        ("valid", pa.bool_()), ("cause", pa.string()), ("final_epoch", pa.int64()),
                        ("steps", pa.int64()), ("counters_json", pa.string()), ("replay", pa.string()),
                        ("duration_s", pa.float64())])
    table = pa.Table.from_pylist(rows, schema=schema)
    path = out / "runs.parquet"
    pq.write_table(table, path)
    return path


def read_runs(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


__all__ = ["COLUMNS", "KINDS", "MUTANTS", "Outcome", "RunRecord", "case_size", "cause_class", "check_case", "checked", "failure_doc",
           "generate_case", "plan", "read_runs", "run_campaign", "run_one", "run_seed", "shrink_case",
           "write_outputs"]
