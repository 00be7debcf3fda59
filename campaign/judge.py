"""Judge one simulation of impl/ with the independent checkers, the spec as referee.

The data flow of DESIGN.md: the run's node logs and commit history go to the log checkers
(epochs, agreement, prefixes, a real-time commit order) with the spec injected to justify every
rejection; the commit history goes to the linearizability checker (metadata-log model); and the
committed log is replayed through the spec, which must accept every entry and end with the same
placements as impl. Pure: from a scenario and a run result to a `Judgement`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.history import parse_jsonl
from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from checkers.linearizability.frozen import thaw
from checkers.linearizability.history import Op as HistoryOp
from checkers.linearizability.model import KV, LOG
from checkers.linearizability.verdict import Verdict
from checkers.linearizability.wgl import check
from checkers.logs import CommitAttempt, LogEntry, LogVerdict, LogViolation, NodeLog, check_logs
from impl.cluster import RunResult
from impl.scenario import Scenario
from spec.fixes import execute as spec_execute
from spec.metadata import ClusterMetadata
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
    holdings: tuple[str, ...] = ()
    """Where a node's metadata (at a snapshot install, a restart, the end) differs from the
    spec's replay of the log up to the node's epoch, or a node's applied epoch went backwards."""
    liveness: tuple[str, ...] = ()
    """Stuck runs (safety held, progress did not): an operation that never finished, a live node
    behind the committed log, a commit request never answered, a CMS below its policy's size."""
    stream_losses: tuple[str, ...] = ()
    """Acknowledged client writes a remove or replace did not stream to a new replica (its one
    source lacked them, or nobody held the range): finding `remove-replace-single-source`."""

    @property
    def safe(self) -> bool:
        return (self.logs.valid is True and self.history.valid is not False and not self.refinement
                and (self.clients is None or self.clients.valid is not False) and not self.holdings)

    @property
    def valid(self) -> bool:
        return self.safe and not self.liveness

    def summary(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "logs": {"valid": self.logs.valid,
                     "violations": [_violation_line(v) for v in self.logs.evidence]},
            "history": {"valid": self.history.valid, "cause": self.history.cause},
            "refinement": list(self.refinement),
            "holdings": list(self.holdings),
            "liveness": list(self.liveness),
            **({"stream_losses": list(self.stream_losses)} if self.stream_losses else {}),
            **({} if self.clients is None else {
                "clients": {"valid": self.clients.valid, "cause": self.clients.cause}}),
        }


def _violation_line(v: LogViolation) -> str:
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
    """The spec's metadata after each epoch of one committed log, computed once and kept."""

    def __init__(self, start: ClusterMetadata, log: Sequence[LogEntry], fixes: frozenset[str] = frozenset()):
        self._fixes = fixes  # the proposed fixes (spec/fixes.py) the run had, if any
        self.states: dict[int, ClusterMetadata] = {start.epoch: start}
        self.refused: list[str] = []
        m = start
        for entry in log:
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
        epoch = upto[-1].epoch if upto else min(self.states)
        state = self.states.get(epoch)
        if state is None:  # past a refused entry: the refinement already reports it
            return True
        return isinstance(spec_execute(parse_transformation(thaw(transformation)), state, self._fixes), Rejected)


def node_logs(result: RunResult) -> tuple[NodeLog, ...]:
    def entries(node: Any) -> tuple[LogEntry, ...]:
        return tuple(LogEntry(epoch=e.epoch, entry_id=e.entry_id, kind=e.kind,
                              transformation=json.loads(e.transformation)) for e in node.entries)

    return tuple(NodeLog(node=n.id, entries=entries(n)) for n in result.nodes)


def commit_attempts(result: RunResult) -> tuple[CommitAttempt, ...]:
    """invoke/ok/fail/info events paired per process into attempts (times are virtual ns)."""
    open_: dict[int, tuple[int, dict[str, Any]]] = {}
    out: list[CommitAttempt] = []
    for op in result.commit_history:
        value = json.loads(op.value)
        if op.type == "invoke":
            open_[op.process] = (op.time, value)
            continue
        invoked, request = open_.pop(op.process)
        if op.type == "fail" and value.get("aborted"):
            # an election aborted before the metadata saw it (no answer, mismatching views):
            # nothing was decided, so there is no rejection for the log checker to justify
            continue
        t = request["transformation"]
        common = {"entry_id": request["entry_id"], "kind": t["kind"], "transformation": t, "invoked": invoked}
        if op.type == "ok":
            out.append(CommitAttempt(**common, completed=op.time, epoch=value["epoch"]))
        elif op.type == "fail":
            out.append(CommitAttempt(**common, completed=op.time, rejected=value["rejection"], decided_at=value["epoch"]))
        else:
            out.append(CommitAttempt(**common))
    for invoked, request in open_.values():  # never completed: outcome unknown
        out.append(CommitAttempt(entry_id=request["entry_id"], kind=request["transformation"]["kind"],
                                 transformation=request["transformation"], invoked=invoked))
    return tuple(out)


def judge(scenario: Scenario, result: RunResult, *, timeout_s: float = 30.0,
          fixes: frozenset[str] = frozenset()) -> Judgement:
    import time

    logs = node_logs(result)
    attempts = commit_attempts(result)
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
    history = check(LOG, _as_history(result.commit_history), deadline=time.monotonic() + timeout_s)
    clients = None
    losses: tuple[str, ...] = ()
    if result.client_history:
        clients = check(KV, _as_history(result.client_history), deadline=time.monotonic() + timeout_s)
        if clients.valid is False and _reads_at_one_writes_at_all(scenario):
            clients = _regular(scenario, result, clients)
        if clients.valid is False:
            clients, losses = _single_source_losses(scenario, result, clients,
                                                    deadline=time.monotonic() + timeout_s)
        if clients.valid is False and clients.cause != SINGLE_SOURCE_LOSS:
            clients = _relaxed_barrier(scenario, result, clients)
    return Judgement(logs=verdict, history=history, refinement=tuple(replay.refused), clients=clients,
                     holdings=tuple(result.epoch_regressions) + _holdings(result, replay)
                     + _durability(scenario, result) + _stale_reads(scenario, result),
                     liveness=_liveness(scenario, result, replay), stream_losses=losses)


def spec_view(m: ClusterMetadata) -> str:
    """The spec's counterpart of impl.cluster.metadata_view (same canonical JSON)."""
    from campaign.formats.placements import placements_json
    from impl.entry import canonical_json

    nodes = {n.id: [n.state.value, list(m.token_map.tokens_of(n.id))] for n in m.directory}
    return canonical_json({"epoch": m.epoch, "placements": placements_json(m.placements),
                           "nodes": nodes, "cms": [sorted(m.cms.reads), sorted(m.cms.writes)]})


def _holdings(result: RunResult, replay: SpecReplay) -> tuple[str, ...]:
    """Each recorded node view against the spec at the node's epoch (the first difference per
    node and occasion kind; past a refused entry there is nothing to compare with)."""
    out: list[str] = []
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
            out.append(f"{node} at epoch {epoch} ({when}): metadata differs from the spec on "
                       f"{', '.join(parts) or 'epoch'}")
    return tuple(out)


def _durability(scenario: Scenario, result: RunResult) -> tuple[str, ...]:
    """With every client write at ALL, every write replica (pending ones included) acknowledged
    each `ok` write and streaming hands it on, so at a quiet end the live read replicas of a key
    hold the same cell — unless a write of that key ended unknown (`info`, `fail`: applied part
    way, which nothing repairs but a read)."""
    if not result.quiescent or not scenario.clients or any(c.write_cl != ("ALL",) for c in scenario.clients):
        return ()
    unsure = {op.key for op in result.client_history if op.f == "write" and op.type in ("info", "fail")}
    out = []
    for ks, key, cells in result.replica_cells:
        if key in unsure or len({(ts, v) for _, ts, v in cells}) <= 1:
            continue
        held = ", ".join(f"{r}:{v if ts >= 0 else '-'}" for r, ts, v in cells)
        out.append(f"durability: replicas of {ks}/{key} disagree at the end ({held})")
    return tuple(out[:1])


def _stale_reads(scenario: Scenario, result: RunResult) -> tuple[str, ...]:
    """With every client write at ALL (W + R > RF for any read level), a read that starts after
    a write of its key was acknowledged must return that write or a later one: a read returning
    nothing, or the value of a write acknowledged before that one began, lost it. Weaker than
    linearizability on purpose: a write still in flight may be seen by one read at ONE and not
    by a later one (reads at ONE repair nothing), which is Cassandra's semantics. Last write
    wins by the coordinator's clock, so not with clock skew."""
    if not scenario.clients or any(c.write_cl != ("ALL",) for c in scenario.clients) or scenario.clock_skew:
        return ()
    invoked: dict[int, Any] = {}
    writes: dict[str, list[tuple[int, int | None, int]]] = {}  # key -> (invoked, acked, value)
    reads: list[tuple[str, int, Any]] = []  # (key, invoked, value)
    for op in result.client_history:
        if op.type == "invoke":
            invoked[op.process] = op
            continue
        start = invoked.pop(op.process, None)
        if start is None or op.key is None:
            continue
        if op.f == "write":
            writes.setdefault(op.key, []).append(
                (start.time, op.time if op.type == "ok" else None, json.loads(start.value)))
        elif op.type == "ok":
            reads.append((op.key, start.time, json.loads(op.value)))
    for key, at, value in reads:
        done = [w for w in writes.get(key, []) if w[1] is not None and w[1] < at]
        if not done:
            continue
        if value is None:
            return (f"durability: stale read of {key}: nothing, after write {done[-1][2]} was acknowledged",)
        source = next((w for w in writes.get(key, []) if w[2] == value), None)
        if source is None or source[1] is None:
            continue
        newer = next((w for w in done if source[1] < w[0]), None)
        if newer is not None:
            return (f"durability: stale read of {key}: {value}, after write {newer[2]} (begun once "
                    f"{value} was acknowledged) was acknowledged",)
    return ()


REGULAR = "regular: every read at ONE saw each write completed before it began"
"""The clients' cause for writes at ALL and reads at ONE that are not linearizable but regular."""


def _reads_at_one_writes_at_all(scenario: Scenario) -> bool:
    return bool(scenario.clients) and all(c.read_cl == ("ONE",) and c.write_cl == ("ALL",)
                                          for c in scenario.clients)


def _regular(scenario: Scenario, result: RunResult, clients: Verdict) -> Verdict:
    """Writes at ALL with reads at ONE promise no linearizability: a read at ONE answers from one
    replica, with no blocking read repair, so while a write is in flight one read can see it and a
    later read, on a replica it has not reached yet, not (Cassandra's semantics). What they do
    promise is a regular register: a read returns the value of a write that was not overwritten
    before the read began, i.e. no write completed before the read began and was invoked after
    the read value's write completed (LWW timestamps follow real time without clock skew). A
    history that keeps that is valid with cause `REGULAR`; one that does not keeps the
    linearizability verdict (a read missed a completed write)."""
    from attrs import evolve

    if any(skew for _, skew in scenario.clock_skew):
        return clients  # timestamps need not follow real time: no claim either way
    writes: dict[str, list[tuple[Any, int, int | None]]] = {}  # key -> (value, invoked, ok)
    reads: list[tuple[str, Any, int]] = []  # (key, value, invoked) of every ok read
    opened: dict[int, Any] = {}
    for op in result.client_history:
        if op.type == "invoke":
            opened[op.process] = op
            continue
        inv = opened.pop(op.process, None)
        if inv is None:
            continue
        if op.f == "write":
            writes.setdefault(str(op.key), []).append(
                (json.loads(inv.value), inv.time, op.time if op.type == "ok" else None))
        elif op.type == "ok":
            reads.append((str(op.key), json.loads(op.value), inv.time))
    for key, value, invoked in reads:
        of_key = writes.get(key, [])
        source = [w for w in of_key if w[0] == value]
        if value is not None and not source:
            return clients  # a value nobody wrote
        done_before = [w for w in of_key if w[2] is not None and w[2] < invoked]
        if value is None:
            if done_before:
                return clients
            continue
        _, _, source_ok = source[0]
        if source_ok is not None and any(w[1] > source_ok for w in done_before):
            return clients  # overwritten by a write that completed before this read began
    return evolve(clients, valid=True, cause=REGULAR)


SINGLE_SOURCE_LOSS = "not-linearizable: acknowledged writes lost by a single-source remove/replace stream"
"""The clients' cause when finding `remove-replace-single-source` explains every violation."""


def _single_source_losses(scenario: Scenario, result: RunResult, clients: Verdict, *,
                          deadline: float) -> tuple[Verdict, tuple[str, ...]]:
    """Whether a non-linearizable client history is finding `remove-replace-single-source`.

    Evidence (`RunResult.streams`): a write acknowledged before a remove or replace finished
    streaming a range, held by some node then, yet not by the new replica after it received the
    range from its one source — a replica of the range before the operation other than the
    removed/replaced node (Cassandra's candidates) — or from nobody (no other replica: RF 1).
    The failure is that finding only if the history with those writes taken out (and the reads
    that returned them) is linearizable: anything else fails as before. A stream from any other
    node (a bug, e.g. switch stream-from-non-replica) or from several sources is no evidence."""
    from attrs import evolve

    keyspaces = {c.keyspace for c in scenario.clients}
    acked: dict[tuple[str, Any], tuple[int, int]] = {}  # (key, value) -> (invoked, ok) times
    written: dict[tuple[str, Any], int] = {}  # every write: (key, value) -> invoked
    pending: dict[int, Any] = {}
    for op in result.client_history:
        if op.f != "write":
            continue
        if op.type == "invoke":
            pending[op.process] = op
            written[(str(op.key), json.loads(op.value))] = op.time
        elif op.type == "ok" and op.process in pending:
            inv = pending.pop(op.process)
            acked[(str(op.key), json.loads(inv.value))] = (inv.time, op.time)
    lost: set[tuple[str, Any]] = set()
    why: list[str] = []
    for rec in result.streams:
        if rec.keyspace not in keyspaces or not rec.faithful or len(rec.sources) > 1:
            continue
        for key, dest_cell, cells in rec.cells:
            on_disk = {value: ts for ts, value in cells}
            dest_write = acked.get((key, dest_cell[1])) if dest_cell is not None else None
            # acknowledged writes, and writes that ended unknown (read before the stream lost
            # them, or overwritten by a write it lost)
            candidates = [(value, times) for (k, value), times in acked.items() if k == key and times[1] <= rec.time]
            candidates += [(value, (at, rec.time)) for (k, value), at in written.items()
                           if k == key and (k, value) not in acked and at <= rec.time]
            for value, times in candidates:
                if not _newer(value, times, dest_cell, on_disk, dest_write):
                    continue
                if (key, value) not in lost:
                    lost.add((key, value))
                    source = f"from {rec.sources[0]} only" if rec.sources else "from nobody"
                    why.append(f"{rec.keyspace}/{key}={value} {'acknowledged' if (key, value) in acked else 'written'}, not on {rec.destination} after "
                               f"{rec.op} of {rec.excluded} streamed ({rec.left}, {rec.right}] {source}")
    if not lost:
        return clients, ()
    drop = set()
    opened: dict[int, Any] = {}
    for op in result.client_history:
        if op.type == "invoke":
            opened[op.process] = op
            continue
        inv = opened.get(op.process)
        value = json.loads(inv.value if inv is not None and op.f == "write" else op.value)
        if (str(op.key), value) in lost and (op.f == "write" or op.type == "ok"):
            drop.add(op.process)
    kept = [op for op in result.client_history if op.process not in drop]
    again = check(KV, _as_history(kept), deadline=deadline)
    if again.valid is not True:
        return clients, tuple(why)
    return evolve(clients, cause=SINGLE_SOURCE_LOSS), tuple(why)


RELAXED_BARRIER = "not-linearizable after a progress barrier relaxed below its first level"
"""The clients' cause in a run where an operation stepped past a relaxed progress barrier:
finding `relaxed-progress-barrier`."""


def _relaxed_barrier(scenario: Scenario, result: RunResult, clients: Verdict) -> Verdict:
    """A non-linearizable client history in a run whose settings let the progress barrier relax
    (`barrier_min_consistency` below `barrier_consistency`: Cassandra's
    progress_barrier_min_consistency_level below its default) and where a barrier did relax:
    an operation stepped past replicas that had not seen its previous step, so quorums of the
    old placement can lag together, which is what the relaxation allows (finding
    `relaxed-progress-barrier`). Only such runs: with the default settings nothing relaxes."""
    from attrs import evolve

    from impl.node.progress_barrier import CHAIN

    s = scenario.settings
    if CHAIN.index(s.barrier_min_consistency) <= CHAIN.index(s.barrier_consistency) \
            or not dict(result.counters).get("barrier_relaxations", 0):
        return clients
    return evolve(clients, cause=RELAXED_BARRIER)


def _newer(value: Any, this: tuple[int, int], dest_cell: tuple[int, int] | None,
           on_disk: dict[Any, int], dest_write: tuple[int, int] | None) -> bool:
    """Whether the acknowledged write of `value` (invoked, ok at `this`) is missing on a
    destination holding `dest_cell`: it holds nothing, or a cell older by timestamp (both still
    on some disk), or, for a write overwritten everywhere, one whose write was not invoked after
    this one completed (not shown newer)."""
    if dest_cell is None:
        return True
    if dest_cell[1] == value:
        return False
    if value in on_disk:
        return (on_disk[value], value) > (dest_cell[0], dest_cell[1])
    return dest_write is None or dest_write[0] <= this[1]


def _liveness(scenario: Scenario, result: RunResult, replay: SpecReplay) -> tuple[str, ...]:
    """Progress failures of a run whose faults all healed (the generated ones always do)."""
    out: list[str] = []
    if any(p.heal is None for p in scenario.partitions):
        return ()  # a node cut off for good may rightly stop progress (a down node is not cut off)
    # why: a scripted REGISTER makes a node that is no process (it never answers); an operation
    # that needs it (a barrier, a stream source) rightly waits for ever
    processes = {n.id for n in result.nodes}
    ghosts = [n.id for n in replay.final.directory if n.id not in processes and n.state.value != "LEFT"]
    s = scenario.settings
    patience = s.submit_timeout_ns * (s.max_submit_attempts + 1)
    # why a CMS majority up: without one nothing commits, so no operation can take a step
    # (a CMS of two with a member dead for good); that stall is the fault's, not a bug
    final_cms = replay.final.cms.reads
    cms_up = len(final_cms & {n.id for n in result.nodes if n.up}) * 2 > len(final_cms)
    for node, op, could in () if ghosts or not cms_up else result.unfinished:
        # why the age: under lasting loss each step may wait out lost commit answers (the
        # driver's watchdog is this patience), so a slow operation still taking steps near the
        # end of an unquiet run is not stuck (the mutants' control seed 148)
        if could and (result.quiescent or result.end_time - _last_step(result, node) > patience):
            out.append(f"liveness: operation stuck: {op} on {node} never finished (its barrier could be met)")
    out.extend(_abandoned(scenario, result, replay))
    committed_at = {json.loads(h.value).get("epoch"): h.time for h in result.commit_history if h.type == "ok"}
    if not result.quiescent:
        # why the age: an entry committed just before the end has not had time to spread
        behind = [n.id for n in result.nodes if n.up and n.applied_epoch < result.final_epoch
                  and result.end_time - committed_at.get(n.applied_epoch + 1, result.end_time) > patience]
        if behind:
            out.append(f"liveness: live node not applying: {', '.join(behind)} behind epoch "
                       f"{result.final_epoch} at the end")
    # why the age: a request is answered (or given up as info) within its attempts' timeouts;
    # one sent just before the end has not had that time
    open_: dict[int, int] = {}
    for h in result.commit_history:
        if h.type == "invoke":
            open_[h.process] = h.time
        else:
            open_.pop(h.process, None)
    stalled = [t for t in open_.values() if result.end_time - t > patience]
    if stalled and all(c.restart is not None for c in scenario.crashes):
        out.append(f"liveness: commit never completed: {len(stalled)} request(s) open for more than "
                   f"{patience // 1_000_000_000} s at the end")
    if scenario.cms_size is None and scenario.cms_members is None:
        out.extend(_cms_undersized(result, replay, committed_at, patience))
    return tuple(out)


def _abandoned(scenario: Scenario, result: RunResult, replay: SpecReplay) -> tuple[str, ...]:
    """An operation that its (live) node gave up as failed while its sequence is still in the
    final metadata: nobody drives it on, and its locks hold the ranges for ever (Cassandra
    leaves that to the operator; an operation fails like this only on a wrong view, such as a
    rejection decided at a newer epoch than the node's)."""
    up = {n.id for n in result.nodes if n.up}
    left = {str(s.node) for s in replay.final.in_progress.sequences()}
    target = {o.node: o.target for o in scenario.operations}
    out = []
    for node, op, outcome in result.operations:
        seq_node = target.get(node) if op == "remove" else node
        if outcome.startswith("failed") and node in up and seq_node in left:
            out.append(f"liveness: operation abandoned: {op} on {node} ended {outcome!r} with its "
                       f"sequence left in the metadata")
    return tuple(out[:1])


def _cms_undersized(result: RunResult, replay: SpecReplay, committed_at: dict[Any, int],
                    patience: int) -> tuple[str, ...]:
    """With the CMS sizing policy and enough joined nodes up to meet it, a run that settled
    (quiescent, or nothing committed for a submission's whole patience although a majority of
    the CMS read members is up) with
    fewer joined CMS read members than the policy wants: the CMS lost a member it did not
    replace (a member that left keeps its seat), or a reconfiguration waits for ever on a node
    it should not have chosen (a down one)."""
    from impl.cms.reconfiguration import policy_size

    final = replay.final
    if not final.cms.initialized:
        return ()
    joined = {n.id for n in final.directory if n.state.value == "JOINED"}
    wanted = min(policy_size(len(joined)), len(joined))
    members = sorted(final.cms.reads & joined)
    if not joined or len(members) >= wanted:
        return ()
    up = {n.id for n in result.nodes if n.up}
    last = max(committed_at.values(), default=0)
    # why a majority of the read members up: a CMS that lost its majority rightly stops (the
    # stall is the fault's, not the policy's); a down node only in the write set is a joining
    # member the reconfiguration chose
    majority = len(final.cms.reads & up) * 2 > len(final.cms.reads)
    stalled = result.end_time - last > patience and majority
    # why enough joined nodes up: the policy leaves down nodes out (and a scripted REGISTER
    # makes a joined node that is no process), so fewer live candidates rightly mean fewer members
    if not (result.quiescent or stalled) or len(joined & up) < wanted:
        return ()
    return (f"liveness: CMS undersized: {len(members)} joined members, the policy wants "
            f"{policy_size(len(joined))} of {len(joined)} joined nodes",)


def _last_step(result: RunResult, node: str) -> int:
    """When a topology step (PREPARE_/START_/MID_/FINISH_) the node submitted last committed."""
    last = 0
    for h in result.commit_history:
        if h.type == "ok":
            value = json.loads(h.value)
            if str(value.get("entry_id", "")).startswith(f"{node}:") and str(
                    value.get("transformation", {}).get("kind", "")).startswith(("PREPARE_", "START_", "MID_", "FINISH_")):
                last = h.time
    return last


def _as_history(ops: Sequence[Any]) -> tuple[HistoryOp, ...]:
    """DESIGN's JSONL shape, read back by the checker's own parser (one path for files and runs)."""
    text = "\n".join(json.dumps(op.to_json(), sort_keys=True) for op in ops)
    return parse_jsonl(text).ops


__all__ = ["Judgement", "SpecReplay", "commit_attempts", "judge", "node_logs", "spec_start"]
