"""Check `clients`: the client reads and writes under the kv model (linearizability, a register
per key), as far as Cassandra promises it.

A violation is then told apart from what Cassandra documents or what a known finding explains,
each with a cause of its own:
- writes at ALL and reads at ONE promise a regular register, not linearizability (`REGULAR`);
- a remove or replace streams each range from one source (`SINGLE_SOURCE_LOSS`: finding
  `remove-replace-single-source`);
- a progress barrier relaxed below its first level by the operator's setting (`RELAXED_BARRIER`:
  finding `relaxed-progress-barrier`);
- reads served to a coordinator behind their read group's last change (`STALE_COORDINATOR_READ`:
  finding `stale-coordinator-read`);
- reads that returned a failed write a pending replica missed, repairing nothing
  (`UNREPAIRED_PAST_PENDING`: finding `monotonic-read-across-movement`).
Its evidence: the key, the smallest failing sub-history joined to the protocol trace, the stale
read and the write it missed, and the topology steps around them.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from attrs import evolve

from campaign.judge import cause as C
from campaign.judge.cause import (
    REGULAR,
    RELAXED_BARRIER,
    SINGLE_SOURCE_LOSS,
    STALE_COORDINATOR_READ,
    UNREPAIRED_PAST_PENDING,
)
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.evidence import Evidence, TracedCall, topology_steps, with_keyspace
from campaign.judge.promises import reads_at_one_writes_at_all
from checkers.linearizability.history import Operation
from checkers.linearizability.model import KV
from checkers.linearizability.verdict import Verdict
from checkers.linearizability.wgl import check as linearizable
from impl.node.progress_barrier import CHAIN
from observed.calls import ClientCall, completed, history_of
from observed.protocol import ProtocolTrace
from observed.run import Observed


def client_verdict(ctx: Context) -> tuple[Verdict | None, tuple[str, ...]]:
    """The clients' verdict (None: the run had no client), and the single-source stream losses
    that were asked to explain it, if any."""
    observed = ctx.observed
    if not observed.clients:
        return None, ()
    clients = linearizable(KV, observed.client_history, deadline=time.monotonic() + ctx.timeout_s)
    if clients.valid is False and reads_at_one_writes_at_all(ctx.scenario):
        clients = regular(ctx, clients)
    losses: tuple[str, ...] = ()
    if clients.valid is False and ctx.stream_losses.lost:
        losses = ctx.stream_losses.why
        clients = _single_source(ctx, clients)
    if clients.valid is False and clients.cause != SINGLE_SOURCE_LOSS:
        clients = _relaxed_barrier(ctx, clients)
    explained = (SINGLE_SOURCE_LOSS, RELAXED_BARRIER)
    # Finding stale-coordinator-read: Cassandra's ReadCommandVerbHandler checks a read's routing
    # only, and a coordinator's catch-up on a successful response is asynchronous
    # (ResponseVerbHandler.maybeFetchLogs), so a read can complete from a quorum that mixes a
    # replica that moved past it with one still behind.
    if clients.valid is False and clients.cause not in explained and ctx.reads_behind:
        clients = _explained_by_reads(ctx, clients, ctx.reads_behind, STALE_COORDINATOR_READ)
    # Finding monotonic-read-across-movement: a read repairs only on a digest mismatch
    # (AbstractReadExecutor.awaitResponses), so a failed write it returns may be missing from a
    # pending replica, which serves the later reads once the movement finishes.
    if clients.valid is False and clients.cause not in (*explained, STALE_COORDINATOR_READ) \
            and ctx.reads_past_pending:
        clients = _explained_by_reads(ctx, clients, ctx.reads_past_pending, UNREPAIRED_PAST_PENDING)
    return clients, losses


def _without(ctx: Context, clients: Verdict, drop: set[int], cause: str) -> Verdict:
    """`clients` with `cause` when the history without the calls of `drop` is linearizable."""
    if not drop:
        return clients
    kept = history_of(c for c in ctx.observed.clients if c.process not in drop)
    again = linearizable(KV, kept, deadline=time.monotonic() + ctx.timeout_s)
    return evolve(clients, cause=cause) if again.valid is True else clients


def _explained_by_reads(ctx: Context, clients: Verdict, reads: frozenset[tuple[str, str, int]],
                        cause: str) -> Verdict:
    """`clients` with `cause` when the given reads (coordinator, key, completion time) explain the
    non-linearizable history — without them it is linearizable; else `clients` unchanged."""
    drop = {c.process for c in ctx.observed.clients if c.f == "read" and c.complete_index is not None
            and (c.coordinator, c.key, c.completed) in reads}
    return _without(ctx, clients, drop, cause)


def _single_source(ctx: Context, clients: Verdict) -> Verdict:
    """Whether a non-linearizable client history is finding `remove-replace-single-source`: the
    history without the writes a single-source stream lost (and the reads that returned them)
    is linearizable."""
    lost = ctx.stream_losses.lost
    drop = {c.process for c in completed(ctx.observed.clients)
            if (c.key, c.value if c.f == "write" else c.read) in lost and (c.f == "write" or c.outcome == "ok")}
    return _without(ctx, clients, drop, SINGLE_SOURCE_LOSS)


def regular(ctx: Context, clients: Verdict) -> Verdict:
    """Writes at ALL with reads at ONE promise no linearizability: a read at ONE answers from one
    replica, with no blocking read repair, so while a write is in flight one read can see it and a
    later read, on a replica it has not reached yet, not (Cassandra's semantics). What they do
    promise is a regular register: a read returns the value of a write that was not overwritten
    before the read began, i.e. no write completed before the read began and was invoked after
    the read value's write completed (LWW timestamps follow real time without clock skew). A
    history that keeps that is valid with cause `REGULAR`; one that does not keeps the
    linearizability verdict (a read missed a completed write)."""
    if any(skew for _, skew in ctx.scenario.clock_skew):
        return clients  # timestamps need not follow real time: no claim either way
    calls = completed(ctx.observed.clients)
    writes: dict[str, list[ClientCall]] = {}
    for c in calls:
        if c.f == "write":
            writes.setdefault(c.key, []).append(c)
    for read in (c for c in calls if c.f == "read" and c.outcome == "ok"):
        of_key = writes.get(read.key, [])
        source = [w for w in of_key if w.value == read.value]
        if read.value is not None and not source:
            return clients  # a value nobody wrote
        done_before = [w for w in of_key if w.outcome == "ok" and (w.completed or 0) < read.invoked]
        if read.value is None:
            if done_before:
                return clients
            continue
        first = source[0]
        if first.outcome == "ok" and any(w.invoked > (first.completed or 0) for w in done_before):
            return clients  # overwritten by a write that completed before this read began
    return evolve(clients, valid=True, cause=REGULAR)


def _relaxed_barrier(ctx: Context, clients: Verdict) -> Verdict:
    """A non-linearizable client history in a run whose settings let the progress barrier relax
    (`barrier_min_consistency` below `barrier_consistency`: Cassandra's
    progress_barrier_min_consistency_level below its default) and where a barrier did relax:
    an operation stepped past replicas that had not seen its previous step, so quorums of the
    old placement can lag together, which is what the relaxation allows (finding
    `relaxed-progress-barrier`). Only such runs: with the default settings nothing relaxes."""
    s = ctx.scenario.settings
    if CHAIN.index(s.barrier_min_consistency) <= CHAIN.index(s.barrier_consistency) \
            or not ctx.observed.counter("barrier_relaxations"):
        return clients
    return evolve(clients, cause=RELAXED_BARRIER)


# --- the evidence ---


def client_evidence(observed: Observed, clients: Verdict) -> Evidence:
    """The key, its smallest failing sub-history joined to the protocol trace, the stale read and
    the write it missed, and the topology steps around them."""
    ev = clients.evidence
    key = str(ev.key)
    trace = observed.protocol_trace()
    named = with_keyspace(trace, key)
    of_key = [c for c in observed.clients if c.key == key]
    window = list(ev.window) or ([ev.failing_op] if ev.failing_op is not None else [])
    failing = ev.failing_op
    missed = None
    if failing is not None and failing.f == "read" and failing.call_time is not None:
        missed = _missed_write(of_key, failing)
        if missed is not None and all(op.process != missed.process for op in window):
            window.append(missed)
    window += _source_writes(of_key, window)
    window.sort(key=lambda op: (op.call_time or 0, op.id))
    by_process = {c.process: c for c in of_key}
    ops = tuple(_traced(by_process.get(int(str(op.process))), trace, op, named) for op in window)
    stale = next((i for i, op in enumerate(window) if failing is not None and op.process == failing.process), None)
    miss = next((i for i, op in enumerate(window) if missed is not None and op.process == missed.process), None)
    epochs = [e for o in ops for e in (o.plan_epoch, *(a[2] for a in o.answers)) if e is not None]
    since = min(epochs, default=0)
    until = max((o.completed_ns or o.invoked_ns for o in ops), default=0)
    return Evidence(anomaly=clients.cause, key=named, operations=ops, stale_read=stale if failing is not None else None,
                    missed_write=miss, steps=topology_steps(observed.commits, since, until),
                    final_epoch=observed.final_epoch)


def _as_operation(c: ClientCall) -> Operation:
    return Operation(id=-1, process=c.process, f="write", key=c.key, input=c.value, output=c.value, call=-1, ret=-1,
                     call_time=c.invoked, ret_time=c.completed)


def _missed_write(of_key: Sequence[ClientCall], read: Operation) -> Operation | None:
    """The last write of the key acknowledged before `read` began, if the read did not return it."""
    if read.call_time is None:
        return None
    acked = [c for c in completed(of_key) if c.f == "write" and c.outcome == "ok"
             and (c.completed or 0) < read.call_time]
    if not acked:
        return None
    last = max(acked, key=lambda c: c.completed or 0)  # (the first of equal times)
    return None if last.value == read.output else _as_operation(last)


def _source_writes(of_key: Sequence[ClientCall], window: Sequence[Operation]) -> list[Operation]:
    """The writes of the values the window's reads returned, where the window leaves them out
    (a minimal failing window need not hold them; a reader of the evidence wants to see where a
    value came from — a write that failed or timed out above all)."""
    shown = {op.input for op in window if op.f == "write"}
    wanted = {op.output for op in window if op.f == "read" and op.output is not None} - shown
    out: list[Operation] = []
    for c in completed(of_key):
        if c.f == "write" and c.value in wanted:
            wanted.discard(c.value)
            out.append(_as_operation(c))
    return out


def _traced(call: ClientCall | None, trace: ProtocolTrace, op: Operation, named: str) -> TracedCall:
    """`op` joined to its call (its coordinator, its outcome) and to the protocol trace (the plan
    made when it was invoked, on that coordinator, for that key; the answers of that request)."""
    coord = call.coordinator if call is not None else "?"
    value = op.input if op.f == "write" else op.output
    outcome = call.outcome if call is not None and call.outcome is not None else "info"
    base = TracedCall(process=int(str(op.process)), f=op.f, key=named, value=value, outcome=outcome,
                      invoked_ns=op.call_time or 0, completed_ns=op.ret_time, coordinator=coord)
    plans: Iterable[tuple[int, str, str, int, str, int, tuple[str, ...]]] = (
        (p.rid, p.coord, p.key, p.t, p.cl, p.epoch, p.contacts)
        for p in (trace.write_plans if op.f == "write" else trace.read_plans))
    plan = next((p for p in plans if p[1] == coord and p[2] == op.key and p[3] == op.call_time), None)
    if plan is None:
        return base
    rid, _, _, _, level, epoch, contacts = plan
    verb = "mutation" if op.f == "write" else "read"
    served = {s.replica: s.replica_epoch for s in trace.serves if s.verb == verb and s.sender == coord and s.rid == rid}
    if op.f == "write":
        end_epoch = next((d.epoch for d in trace.write_dones if (d.coord, d.rid) == (coord, rid)), None)
        answers = tuple((a.replica, value, served.get(a.replica)) for a in trace.write_acks
                        if (a.coord, a.rid) == (coord, rid))
    else:
        end_epoch = next((d.epoch for d in trace.read_dones if (d.coord, d.rid) == (coord, rid)), None)
        answers = tuple((r.replica, r.value, served.get(r.replica)) for r in trace.read_resps
                        if (r.coord, r.rid) == (coord, rid))
    return evolve(base, level=level, plan_epoch=epoch, done_epoch=end_epoch, replicas=tuple(contacts),
                  answers=answers)


# --- the check ---


def check(ctx: Context) -> CheckResult:
    clients, losses = client_verdict(ctx)
    if clients is None:
        return CheckResult()
    summary: dict[str, Any] = {"clients": {"valid": clients.valid, "cause": clients.cause}}
    if losses:
        summary["stream_losses"] = list(losses)
    if clients.valid is not False:
        return CheckResult(summary=summary)
    evidence = client_evidence(ctx.observed, clients) if clients.evidence.key is not None else None
    return CheckResult(causes=(C.clients(clients.cause),), evidence=evidence, summary=summary)


CHECK = Check(name="clients", family="clients", incremental=True, check=check,
              doc="client reads and writes are linearizable per key, but for what Cassandra documents "
                  "or a known finding explains")

__all__ = ["CHECK", "client_evidence", "client_verdict", "regular"]
