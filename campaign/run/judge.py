"""Judge one simulation of impl/ with the independent checkers, the spec as referee.

The data flow of DESIGN.md: the run's node logs and commit history go to the log checkers
(epochs, agreement, prefixes, a real-time commit order) with the spec injected to justify every
rejection; the commit history goes to the linearizability checker (metadata-log model); the
client reads and writes go to it too (kv model; campaign/run/clients.py tells Cassandra's
documented weaker promises and known findings apart); the committed log is replayed through the
spec, which must accept every entry; every node's metadata is compared with the spec's at its
epoch; and a run that settled must have made progress (campaign/run/liveness.py).

Pure: from a scenario and a run result to a `Judgement`, whose `causes()` are the run's failures
as `Cause` values. Every run that simulates impl is judged here: the `sim` kind, `simulate
--check`, `replay`, shrinking, and (check by check, as it goes) the stateful system machine.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.placements import placements_json
from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from campaign.run import cause as C
from campaign.run.cause import Cause
from campaign.run.clients import client_verdict, durability, stale_reads
from campaign.run.histories import CHECK_TIMEOUT_S, as_history, commit_attempts, node_logs
from campaign.run.liveness import liveness
from campaign.run.trace_checks import ProtocolJudgement, judge_protocol
from checkers.linearizability.frozen import thaw
from checkers.linearizability.model import LOG
from checkers.linearizability.verdict import Verdict
from checkers.linearizability.wgl import check
from checkers.logs import LogEntry, LogVerdict, LogViolation, check_logs
from impl.cluster import RunResult
from impl.entry import canonical_json
from impl.scenario import Scenario
from spec.fixes import execute as spec_execute
from spec.invariants import violations
from spec.metadata import ClusterMetadata
from spec.metadata_keys import CORE_METADATA, diff_keys
from spec.nodes import NodeVersion
from spec.topology import NodeSpec, Topology
from spec.transformations import Rejected


@frozen(kw_only=True)
class Judgement:
    logs: LogVerdict
    history: Verdict
    refinement: tuple[str, ...]
    """Where the spec disagrees with impl about the committed log (empty when it agrees)."""
    clients: Verdict | None = None
    """The client reads and writes under the kv model (None: the run had no client)."""
    holdings: tuple[Cause, ...] = ()
    """Where a node's metadata (at a snapshot install, a restart, the end) differs from the
    spec's replay of the log up to the node's epoch, or a node's applied epoch went backwards;
    and acknowledged writes missing at the end (writes at ALL)."""
    liveness: tuple[Cause, ...] = ()
    """Stuck runs (safety held, progress did not): an operation that never finished, a live node
    behind the committed log, a commit request never answered, a CMS below its policy's size."""
    stream_losses: tuple[str, ...] = ()
    """Acknowledged client writes a remove or replace did not stream to a new replica (its one
    source lacked them, or nobody held the range): finding `remove-replace-single-source`."""
    conflicts: tuple[str, ...] = ()
    """Epochs two nodes applied different entries at (impl noticed it while running)."""
    apply_failures: tuple[tuple[str, int, str], ...] = ()
    """(node, epoch, reason): an entry a node could not apply."""
    protocol: ProtocolJudgement = ProtocolJudgement()
    """The trace invariants (checkers/protocol/) and the stale-versus-lost report."""

    def causes(self) -> tuple[Cause, ...]:
        """Every failed check's cause, most fundamental first (the first is the run's cause)."""
        out: list[Cause] = [C.conflict(c) for c in self.conflicts]
        out += [C.apply_failure(n, e, r) for n, e, r in self.apply_failures]
        if self.logs.valid is not True:
            out += ([C.logs(v.invariant, violation_line(v)) for v in self.logs.evidence[:1]]
                    or [Cause(family="logs", klass=f"logs: {self.logs.valid}", text=f"logs: {self.logs.valid}")])
        if self.history.valid is False:
            out.append(C.history(self.history.cause))
        if self.clients is not None and self.clients.valid is False:
            out.append(C.clients(self.clients.cause))
        out += self.protocol.causes()
        out += [C.spec_replay(r) for r in self.refinement[:1]]
        return (*out, *self.holdings, *self.protocol.durability_causes(), *self.liveness)

    @property
    def safe(self) -> bool:
        return not any(c.family != "liveness" for c in self.causes())

    @property
    def valid(self) -> bool:
        return not self.causes()

    def summary(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "logs": {"valid": self.logs.valid,
                     "violations": [violation_line(v) for v in self.logs.evidence]},
            "history": {"valid": self.history.valid, "cause": self.history.cause},
            "refinement": list(self.refinement),
            "holdings": [c.text for c in self.holdings],
            "liveness": [c.text for c in self.liveness],
            "conflicts": list(self.conflicts),
            "apply_failures": [list(f) for f in self.apply_failures],
            **({"stream_losses": list(self.stream_losses)} if self.stream_losses else {}),
            **({} if self.clients is None else {
                "clients": {"valid": self.clients.valid, "cause": self.clients.cause}}),
            **self.protocol.summary(),
        }


def violation_line(v: LogViolation) -> str:
    """A log violation in one line: the invariant, then where."""
    detail = dict(v.detail)
    if "entry_id" in detail:  # duplicate-entry-id: name the request and both epochs
        return f"{v.invariant} {detail['entry_id']} at epochs {detail.get('first_epoch')} and {v.epoch}"
    return f"{v.invariant} at epoch {v.epoch}" + (f" on {v.node}" if v.node else "")


def spec_start(scenario: Scenario) -> ClusterMetadata:
    """The spec's metadata before the first entry: the scenario's topology, or its gossip-era
    cluster (versions applied) when the scenario initializes the CMS."""
    topology = parse_topology(json.loads(scenario.topology), "scenario topology")
    init = scenario.initialize
    if init is None:
        return ClusterMetadata.initial(topology)
    versions = dict(init.versions)
    nodes = tuple(NodeSpec(id=n.id, location=n.location, tokens=n.tokens,
                           version=NodeVersion(release=versions.get(n.id, n.version.release)))
                  for n in topology.nodes)
    return ClusterMetadata.initial(Topology(nodes=nodes, keyspaces=topology.keyspaces), cms_initialized=False)


class SpecReplay:
    """The spec's metadata after each epoch of one committed log, computed once and kept;
    `extend` replays further entries (the stateful machine replays the log as it grows)."""

    def __init__(self, start: ClusterMetadata, log: Sequence[LogEntry] = (),
                 fixes: frozenset[str] = frozenset()) -> None:
        self._fixes = fixes  # the proposed fixes (spec/fixes.py) the run had, if any
        self.start = start
        self.states: dict[int, ClusterMetadata] = {start.epoch: start}
        self.refused: list[str] = []
        self.final = start
        self.extend(log)

    def extend(self, log: Iterable[LogEntry]) -> None:
        """Replay entries after `final` (nothing more once one was refused)."""
        m = self.final
        for entry in log:
            if self.refused:
                break
            if entry.epoch != m.epoch + 1:
                self.refused.append(f"epoch {entry.epoch}: log skips from {m.epoch}")
                break
            result = spec_execute(parse_transformation(thaw(entry.transformation), f"epoch {entry.epoch}"), m,
                                  self._fixes)
            if isinstance(result, Rejected):
                self.refused.append(f"epoch {entry.epoch}: impl committed {entry.kind} ({entry.entry_id}) "
                                    f"that the spec rejects: {result.reason}")
                break
            m = result.metadata
            self.states[m.epoch] = m
        self.final = m

    def justify(self, upto: tuple[LogEntry, ...], transformation: Any, reason: str) -> bool:
        """A rejection decided at the metadata of `upto` is right iff the spec rejects it too."""
        epoch = upto[-1].epoch if upto else self.start.epoch
        state = self.states.get(epoch)
        if state is None:  # past a refused entry: the refinement already reports it
            return True
        return isinstance(spec_execute(parse_transformation(thaw(transformation)), state, self._fixes), Rejected)


def spec_view(m: ClusterMetadata) -> str:
    """The spec's counterpart of impl.cluster.metadata_view (same canonical JSON)."""
    nodes = {n.id: [n.state.value, list(m.token_map.tokens_of(n.id))] for n in m.directory}
    return canonical_json({"epoch": m.epoch, "placements": placements_json(m.placements),
                           "nodes": nodes, "cms": [sorted(m.cms.reads), sorted(m.cms.writes)]})


def judge(scenario: Scenario, result: RunResult, *, timeout_s: float = CHECK_TIMEOUT_S,
          fixes: frozenset[str] = frozenset()) -> Judgement:
    logs = node_logs(result)
    attempts = commit_attempts(result.commit_history)
    try:
        start = spec_start(scenario)
    except BadInput as e:
        raise BadInput(f"cannot judge this scenario with the spec: {e}") from None
    reference = max(logs, key=lambda log: (log.entries[-1].epoch if log.entries else -1, len(log.entries)),
                    default=None)
    full = reference is not None and (not reference.entries or reference.entries[0].epoch == start.epoch + 1)
    replay = SpecReplay(start, reference.entries if reference is not None and full else (), fixes)
    verdict = check_logs(logs, attempts, justify_rejection=replay.justify if full else None,
                         initial_epoch=start.epoch)
    history = check(LOG, as_history(result.commit_history), deadline=time.monotonic() + timeout_s)
    whole = full and not replay.refused and reference is not None
    protocol = judge_protocol(scenario, result, replay.states if whole else None,
                              reference.entries if reference is not None else (),
                              replay.final if whole else None, fixes)
    clients, losses = client_verdict(scenario, result, timeout_s=timeout_s,
                                     reads_behind=protocol.reads_behind,
                                     reads_past_pending=protocol.reads_past_pending)
    return Judgement(logs=verdict, history=history, refinement=tuple(replay.refused), clients=clients,
                     protocol=protocol,
                     holdings=tuple(C.epoch_regression(r) for r in result.epoch_regressions)
                     + _holdings(result, replay) + _install_keys(result, replay) + _final_invariants(replay, full)
                     + durability(scenario, result) + stale_reads(scenario, result),
                     liveness=liveness(scenario, result, replay.final, replay.states), stream_losses=losses,
                     conflicts=tuple(result.conflicts), apply_failures=tuple(result.apply_failures))


FINAL_INVARIANTS = ("cms_is_consistent", "cms_additions_in_directory", "cms_members_have_not_left",
                    "sequences_name_registered_nodes", "at_rest_matches_from_scratch", "reads_have_replication_factor")
"""The spec invariants the final state of a simulated run's log is checked against: those
Cassandra's own rules can break (the findings replace-cms-member, leave-while-joining-cms,
unregister-prepared-join, nts-rack-composition, cross-dc-replace), so that a run reaching one says so by the same cause
class as a refine run."""


def _install_keys(result: RunResult, replay: SpecReplay) -> tuple[Cause, ...]:
    """Each snapshot install's reported modified keys against MetadataKeys.diffKeys of the
    node's metadata before it and the snapshot (ForceSnapshot.execute since CASSANDRA-19128).
    Cassandra's diffKeys compares values whose equals includes their lastModified epoch, which
    every transformation that modified the value moves (ClusterMetadata.Transformer.build): a
    key is modified when the spec's state changed it at any epoch in (before, after], even if
    its content ends equal. Installs whose span the spec did not replay whole are skipped."""
    step: dict[int, tuple[str, ...]] = {}
    for node, before, after, keys in result.installs:
        if any(e not in replay.states for e in range(before, after + 1)):
            continue
        changed: set[str] = set()
        for e in range(before + 1, after + 1):
            if e not in step:
                step[e] = diff_keys(replay.states[e - 1], replay.states[e])
            changed.update(step[e])
        want = tuple(k for k in CORE_METADATA if k in changed)
        if tuple(keys) != want:
            return (C.install_keys(node, before, after, tuple(keys), want),)
    return ()


def _final_invariants(replay: SpecReplay, full: bool) -> tuple[Cause, ...]:
    if not full or replay.refused:
        return ()
    for name, what in violations(replay.final):
        if name in FINAL_INVARIANTS:
            return (C.spec_invariant(name, what),)
    return ()


def _holdings(result: RunResult, replay: SpecReplay) -> tuple[Cause, ...]:
    """Each recorded node view against the spec at the node's epoch (the first difference per
    node and occasion kind; past a refused entry there is nothing to compare with)."""
    out: list[Cause] = []
    seen: set[tuple[str, str]] = set()
    memo: dict[int, str] = {}
    for node, epoch, when, view in result.holdings:
        state = replay.states.get(epoch)
        if state is None or (node, when) in seen:
            continue
        if epoch not in memo:
            memo[epoch] = spec_view(state)
        if view != memo[epoch]:
            seen.add((node, when))
            have, want = json.loads(view), json.loads(memo[epoch])
            parts = [k for k in ("placements", "nodes", "cms") if have.get(k) != want.get(k)]
            out.append(C.metadata_differs(node, epoch, when, ", ".join(parts) or "epoch"))
    return tuple(out)


__all__ = ["Judgement", "SpecReplay", "judge", "spec_start", "spec_view", "violation_line"]
