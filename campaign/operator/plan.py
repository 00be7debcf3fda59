"""A topology change planned step by step on a cluster at rest: what Cassandra would do, refuse
and risk, as data (rendered by plan_render.py and plan_html.py).

`make_plan` runs the operation through the spec exactly as `tcmcheck placements/prove --ops`
would (spec.operations.run_operations, operator layer included: Cassandra's refusals and the CMS
reconfiguration its operator paths run first), and for each committed epoch records the ranges
whose read or write replicas change and the progress barrier before it. Alongside, impl's
metadata rules (impl.metadata.execute) take the same transformations, and at the START step the
streaming plan is impl's own (impl.node.streaming.plan / elsewhere: the sources Cassandra's
movement maps pick, and whether its bootstrap halts) — the same code a simulated node runs.
Quorum intersection is proved per keyspace with the prover `tcmcheck prove` uses
(checkers.quorum.z3prover.prove_history) over the same epochs; the overall verdict is assembled
as prove assembles it (the keyspaces' obligations are independent), so the two agree. Known
findings whose conditions hold come from plan_findings.py.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from attrs import evolve, frozen

from campaign.formats.transformations import transformation_json
from campaign.operator.murmur3 import size
from campaign.operator.plan_findings import AppliedFinding, applied_findings
from checkers.quorum.availability import unavailable_ranges, vacuity_warning
from checkers.quorum.from_spec import history_from_states, step_barriers
from checkers.quorum.model import History
from checkers.quorum.verdict import Verdict, verdict_of
from checkers.quorum.z3prover import prove_history
from impl.metadata import Accepted, Metadata
from impl.metadata import execute as impl_execute
from impl.metadata.records import CMSState
from impl.node.streaming import elsewhere
from impl.node.streaming import plan as streaming_plan
from spec import operations as O
from spec.cms import CMSMembership
from spec.consistency import ConsistencyLevel
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId
from spec.placement import ReplicaGroups
from spec.tokens import Range, ring_ranges
from spec.topology import Topology

PHASES = ("PREPARE", "START", "MID", "FINISH")
_OP_KIND = {"bootstrap": "join", "decommission": "leave", "removenode": "remove", "move": "move", "replace": "replace"}


@frozen(kw_only=True)
class RangeChange:
    keyspace: str
    range: Range
    reads_before: frozenset[str]
    reads_after: frozenset[str]
    writes_before: frozenset[str]
    writes_after: frozenset[str]


@frozen(kw_only=True)
class PlanStep:
    epoch: int
    kind: str
    phase: str
    """PREPARE, START, MID, FINISH; CMS for the reconfiguration run first; REGISTER."""
    changes: tuple[RangeChange, ...]
    barrier: tuple[str, ...] | None
    """The replicas the progress barrier before this step waits for (None: no barrier)."""
    states: tuple[tuple[str, str, str], ...]
    """(node, state before, state after) for every node whose state this step changes."""


@frozen(kw_only=True)
class Transfer:
    """One streaming task of impl's plan: `ranges` of `keyspace` to `destination`, from the first
    of `sources` that answers (several only for replace and removenode)."""

    keyspace: str
    destination: str
    sources: tuple[str, ...]
    ranges: tuple[Range, ...]

    @property
    def share(self) -> float:
        return sum(size(r.left, r.right) for r in self.ranges)


@frozen(kw_only=True)
class Movement:
    """What the operation does to one keyspace's ring, start to finish."""

    keyspace: str
    ranges_changed: int
    ring_share: float
    """The share of the ring whose natural replicas change."""
    gained: tuple[tuple[str, float], ...]
    lost: tuple[tuple[str, float], ...]
    """Per node, the share of the ring it gains or loses a replica of."""


@frozen(kw_only=True)
class Proof:
    keyspace: str
    """A keyspace, or "CMS" for the metadata log's read and write sets."""
    verdict: Verdict
    warning: str


@frozen(kw_only=True)
class Refusal:
    epoch: int
    """The epoch the refused step would have made (the last committed one + 1)."""
    kind: str
    reason: str
    by: str
    """"operator" (what nodetool / StorageService / Startup refuse before submitting) or
    "transformation" (what the CMS refuses when it executes the step)."""


@frozen(kw_only=True)
class OperationPlan:
    command: str
    node: str
    detail: str
    """How the operation was read (tokens allocated, the replacement's location, ...)."""
    cms_before: tuple[str, ...]
    cms_after: tuple[str, ...]
    cms_note: str
    """What Cassandra may do to the CMS that the plan does not show (ensureCMSPlacement)."""
    steps: tuple[PlanStep, ...]
    refusal: Refusal | None
    halts: str | None
    """Why Cassandra's streaming halts the operation with START applied (impl's `elsewhere`)."""
    transfers: tuple[Transfer, ...]
    unstreamed: tuple[tuple[str, str, Range], ...]
    """(keyspace, node, range): a range a node gains that no transfer brings it (no replica left)."""
    movement: tuple[Movement, ...]
    proofs: tuple[Proof, ...]
    overall: Verdict
    """Every keyspace's and the CMS's obligations together: `tcmcheck prove`'s verdict."""
    findings: tuple[AppliedFinding, ...]
    not_applying: tuple[tuple[str, str], ...]
    preconditions: tuple[str, ...]
    read_cl: ConsistencyLevel
    write_cl: ConsistencyLevel
    window: int

    @property
    def outcome(self) -> str:
        if self.refusal is not None:
            return "refused"
        if self.halts is not None:
            return "halts"
        return {True: "proved", False: "counterexample", "unknown": "unknown"}[self.overall.valid]


@frozen(kw_only=True)
class Levels:
    read_cl: ConsistencyLevel = ConsistencyLevel.QUORUM
    write_cl: ConsistencyLevel = ConsistencyLevel.QUORUM
    window: int = 1
    read_dc: str | None = None
    write_dc: str | None = None
    barrier_min_cl: ConsistencyLevel = ConsistencyLevel.EACH_QUORUM


def initial_metadata(topology: Topology, cms: Sequence[NodeId] | None) -> ClusterMetadata:
    """Epoch 0 as every command starts it, with the CMS members given (default: the first node)."""
    m = ClusterMetadata.initial(topology)
    if cms is None:
        return m
    members = frozenset(cms)
    return evolve(m, cms=CMSMembership(reads=members, writes=members))


def make_plan(topology: Topology, topology_doc: dict[str, Any], operation: O.Operation, *, command: str,
              node: str, detail: str = "", cms: Sequence[NodeId] | None = None, levels: Levels = Levels(),
              refused_before: str | None = None) -> OperationPlan:
    """The plan of `operation` (one OPS.json operation) on `topology` (`topology_doc`, its
    TOPOLOGY.json, seeds impl's metadata). `refused_before`: a refusal found before the spec
    runs (Cassandra's token allocation)."""
    start = initial_metadata(topology, cms)
    run = O.run_operations(start, () if refused_before else (operation,))
    refusal = None
    if refused_before is not None:
        refusal = Refusal(epoch=start.epoch + 1, kind="PREPARE_JOIN", reason=refused_before, by="operator")
    elif run.rejection is not None:
        kind = run.rejected.kind if run.rejected is not None else "?"
        operator = kind == O.OperatorRefusal.kind
        reason = run.rejection.removeprefix("operator check: ")
        refusal = Refusal(epoch=run.final.epoch + 1, kind=kind, reason=reason, by="operator" if operator else "transformation")
    steps = _steps(run)
    transfers, halts = _streaming(run, topology_doc, start, command, node)
    proofs, overall = _proofs(history_from_states(run.states), levels)  # every epoch that commits
    movement = _movement(run.states[0], run.final) if refusal is None else ()
    unstreamed = _unstreamed(run.states[0], run.final, transfers) if refusal is None else ()
    findings, not_applying = applied_findings(
        command=command, node=node, operation=operation, start=start, run=run, refused=refusal is not None,
        transfers=len(transfers), no_source=len(unstreamed), halts=halts, barrier_min_cl=levels.barrier_min_cl,
        read_cl=levels.read_cl)
    return OperationPlan(command=command, node=node, detail=detail, cms_before=tuple(sorted(start.cms.members)),
                cms_after=tuple(sorted(run.final.cms.members)), cms_note=_cms_note(command, refusal is not None), steps=steps, refusal=refusal, halts=halts,
                transfers=transfers, unstreamed=unstreamed, movement=movement, proofs=proofs, overall=overall, findings=findings,
                not_applying=not_applying, preconditions=_preconditions(command, node),
                read_cl=levels.read_cl, write_cl=levels.write_cl, window=levels.window)


def _phase(kind: str) -> str:
    if "CMS_RECONFIGURATION" in kind:
        return "CMS"
    for phase in PHASES:
        if kind.startswith(phase + "_"):
            return phase
    return kind


def _steps(run: O.OperationRun) -> tuple[PlanStep, ...]:
    barriers = {b.epoch: b for b in step_barriers(run.states, run.transformations)}
    out = []
    for prev, m, kind in zip(run.states[:-1], run.states[1:], run.kinds[1:], strict=True):
        b = barriers.get(m.epoch)
        waits = tuple(sorted({n for r in b.ranges for n in r.participants})) if b is not None else None
        ids = sorted({n.id for n in prev.directory} | {n.id for n in m.directory})
        states = tuple((str(i), _state(prev, i), _state(m, i)) for i in ids if _state(prev, i) != _state(m, i))
        out.append(PlanStep(epoch=m.epoch, kind=kind, phase=_phase(kind), changes=_changes(prev, m), barrier=waits,
                        states=states))
    return tuple(out)


def _state(m: ClusterMetadata, node: NodeId) -> str:
    """The node's state name; "-" when the directory no longer holds it (FINISH_REPLACE)."""
    state = m.directory.state(node)
    return state.name if state is not None else "-"


def _refined(*groupings: ReplicaGroups) -> list[tuple[Range, tuple[frozenset[str], ...]]]:
    """The common refinement of groupings of the ring, with each grouping's replicas per piece."""
    first = groupings[0].ranges
    if all(g.ranges == first for g in groupings[1:]):
        return [(r, tuple(frozenset(g.entries[i][1]) for g in groupings)) for i, r in enumerate(first)]
    rights = [[r.right for r, _ in g] for g in groupings]

    def at(g: ReplicaGroups, rs: list[int], token: int) -> frozenset[str]:
        i = bisect_left(rs, token)
        return frozenset(g.entries[i if i < len(rs) else 0][1])

    cuts = tuple(set().union(*rights))
    return [(p, tuple(at(g, rs, p.right) for g, rs in zip(groupings, rights, strict=True))) for p in ring_ranges(cuts)]


def _aligned(a: ReplicaGroups, b: ReplicaGroups) -> list[tuple[Range, frozenset[str], frozenset[str]]]:
    return [(r, x, y) for r, (x, y) in _refined(a, b)]


def _changes(prev: ClusterMetadata, m: ClusterMetadata) -> tuple[RangeChange, ...]:
    out: list[RangeChange] = []
    for keyspace in sorted(set(prev.placements.keyspaces()) & set(m.placements.keyspaces())):
        before, after = prev.placements.get(keyspace), m.placements.get(keyspace)
        if before == after:
            continue
        for r, (rb, ra, wb, wa) in _refined(before.reads, after.reads, before.writes, after.writes):
            if rb != ra or wb != wa:
                out.append(RangeChange(keyspace=keyspace, range=r, reads_before=rb, reads_after=ra,
                                       writes_before=wb, writes_after=wa))
    return tuple(out)


def _streaming(run: O.OperationRun, topology_doc: dict[str, Any], start: ClusterMetadata, command: str,
               node: str) -> tuple[tuple[Transfer, ...], str | None]:
    """impl's streaming plan at the START step (the metadata a node streams with), and its halt."""
    impl_m = evolve(Metadata.from_topology(topology_doc),
                    cms=CMSState(reads=frozenset(start.cms.reads), writes=frozenset(start.cms.writes)))
    op = _OP_KIND[command]
    for t in run.transformations[1:]:
        assert t is not None
        result = impl_execute(impl_m, transformation_json(t))
        # impl and the spec agree step for step (the refine campaign's property); a refusal here is a bug
        assert isinstance(result, Accepted), (t.kind, getattr(result, "reason", None))
        impl_m = result.metadata
        if t.kind.startswith("START_"):
            seq_node = str(getattr(t, "node"))  # noqa: B009  # every sequence step names its node
            excluded = node if op in ("replace", "remove") else None
            tasks = streaming_plan(impl_m, seq_node, excluded)
            transfers = tuple(Transfer(keyspace=ks, destination=dest, sources=tuple(sources),
                                       ranges=tuple(sorted((Range(lo, hi) for lo, hi in ranges), key=lambda r: r.right)))
                              for ks, dest, sources, ranges in tasks)
            return transfers, elsewhere(op, seq_node, tasks)
    return (), None


def _movement(first: ClusterMetadata, last: ClusterMetadata) -> tuple[Movement, ...]:
    out = []
    for keyspace in sorted(set(first.placements.keyspaces()) & set(last.placements.keyspaces())):
        gained: dict[str, float] = {}
        lost: dict[str, float] = {}
        changed, share = 0, 0.0
        for r, before, after in _aligned(first.placements.get(keyspace).reads, last.placements.get(keyspace).reads):
            if before == after:
                continue
            s = size(r.left, r.right)
            changed += 1
            share += s
            for n in after - before:
                gained[n] = gained.get(n, 0.0) + s
            for n in before - after:
                lost[n] = lost.get(n, 0.0) + s
        out.append(Movement(keyspace=keyspace, ranges_changed=changed, ring_share=share,
                            gained=tuple(sorted(gained.items())), lost=tuple(sorted(lost.items()))))
    return tuple(out)


def _unstreamed(first: ClusterMetadata, last: ClusterMetadata, transfers: Sequence[Transfer]
                ) -> tuple[tuple[str, str, Range], ...]:
    """Pieces of the ring a node gains (start to finish) that no streaming task covers."""
    covered: dict[tuple[str, str], list[Range]] = {}
    for t in transfers:
        covered.setdefault((t.keyspace, t.destination), []).extend(t.ranges)
    rights: dict[tuple[str, str], list[int]] = {}
    for key, ranges in covered.items():
        ranges.sort(key=lambda r: r.right)
        rights[key] = [x.right for x in ranges]
    out = []
    for keyspace in sorted(set(first.placements.keyspaces()) & set(last.placements.keyspaces())):
        for r, before, after in _aligned(first.placements.get(keyspace).reads, last.placements.get(keyspace).reads):
            for n in sorted(after - before):
                ranges = covered.get((keyspace, n), [])
                i = bisect_left(rights.get((keyspace, n), []), r.right)
                near = {j % len(ranges) for j in (i - 1, i, i + 1, 0, -1)} if ranges else set()
                if not any(ranges[j].contains(r) for j in near):
                    out.append((keyspace, n, r))
    return tuple(out)


def _only(history: History, keyspace: str | None) -> History:
    """The history of one keyspace (no CMS sets), or of the CMS sets alone (`keyspace` None)."""
    epochs = tuple(evolve(e, keyspaces=tuple(k for k in e.keyspaces if k.keyspace == keyspace),
                          cms_reads=e.cms_reads if keyspace is None else frozenset(),
                          cms_writes=e.cms_writes if keyspace is None else frozenset())
                   for e in history.epochs)
    return evolve(history, epochs=epochs)


def _proofs(history: History, levels: Levels) -> tuple[tuple[Proof, ...], Verdict]:
    names = sorted({k.keyspace for e in history.epochs for k in e.keyspaces})
    proofs = []
    for keyspace in [*names, None]:
        part = _only(history, keyspace)
        verdict = prove_history(part, read_cl=levels.read_cl, write_cl=levels.write_cl, window=levels.window,
                                read_dc=levels.read_dc, write_dc=levels.write_dc)
        warning = ""
        if verdict.valid is True and keyspace is not None:
            warning = vacuity_warning(unavailable_ranges(part, read_cl=levels.read_cl, write_cl=levels.write_cl,
                                                         read_dc=levels.read_dc, write_dc=levels.write_dc),
                                      part, levels.read_cl, levels.write_cl)
        proofs.append(Proof(keyspace=keyspace or "CMS", verdict=verdict, warning=warning))
    overall = verdict_of([c for p in proofs for c in p.verdict.counterexamples],
                         checked=sum(p.verdict.checked for p in proofs),
                         solver_calls=sum(p.verdict.solver_calls for p in proofs),
                         unknown=any(p.verdict.valid == "unknown" for p in proofs))
    return tuple(proofs), overall


def _cms_note(command: str, refused: bool) -> str:
    """ClusterMetadataService.ensureCMSPlacement runs after the FINISH of a join, a replace and a
    move (docs/faithfulness.md, "CMS reconfiguration triggers"); the spec proposes none."""
    if refused or command not in ("bootstrap", "replace", "move"):
        return ""
    return ("after FINISH Cassandra runs ClusterMetadataService.ensureCMSPlacement, which reconfigures the CMS if its "
            "placement (nodetool cms describe: Replication factor) now calls for other members; not planned here")


def _preconditions(command: str, node: str) -> tuple[str, ...]:
    """What Cassandra checks at run time on the node that runs the command (its failure detector),
    in its own words (impl/node/operator_checks.py), which a plan from nodetool output cannot decide."""
    if command == "removenode":
        return (f"the node running nodetool removenode must see {node} down, else: \"Node {node} is alive and owns "
                "this ID. Use decommission command to remove it from the ring\"",)
    if command == "replace":
        return (f"the replacement must see {node} down (-Dcassandra.replace_address={node}), else: \"Cannot replace a "
                "live node... \"",)
    if command in ("decommission", "move"):
        return (f"run nodetool {command} on {node} itself, which must be up and Normal",)
    return ()


__all__ = ["PHASES", "Levels", "Movement", "OperationPlan", "Proof", "RangeChange", "Refusal", "PlanStep", "Transfer",
           "initial_metadata", "make_plan"]
