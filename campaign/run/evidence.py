"""The evidence of a failing simulated run, for a person: which key, which operations, on which
coordinators and replicas at which epochs, beside which topology steps; or which operation was
stuck, where, and what it waited on.

The issue: "Replay prints `clients: not-linearizable` and nothing else: not the key, the read,
the write it missed, the nodes and epochs involved, or the topology step in flight ... A stuck
replace in a hand-written scenario ended with no operation in the summary."

Pure functions from a run's result (impl's client history, protocol trace and commit history)
and the judge's verdicts to one value, `Evidence`: the linearizability checker's smallest
failing sub-history of the key (checkers/linearizability), each of its operations joined to
the protocol trace (impl/protocol.py: the coordinator's plan, its epoch and replicas, the
replicas' answers and their epochs), the stale read and the write it missed, and the topology
steps committed from the oldest epoch involved to the end of the anomaly; for a stuck
operation, its last step, the progress barrier it waited at and the nodes that were down or
behind it; and for durability causes (a lost write, a stale read), with or without a client
anomaly, what became of each acknowledged write involved (campaign/run/write_fate.py). Keys are
named with their keyspace (`kv/k15`). `sim` puts it in each failing outcome; failure files carry it under `evidence`,
`replay` prints `lines()` on stderr beside its JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from campaign.run.calls import completed_calls
from campaign.run.write_fate import WriteFate, write_fates
from checkers.linearizability.history import Operation
from checkers.linearizability.verdict import Verdict
from checkers.protocol.durability import DurabilityReport
from checkers.protocol.events import ProtocolTrace, parse

if TYPE_CHECKING:  # why not at run time: the failure document's value loads with the report, which loads no impl
    from impl.cluster import RunResult

NOT_TOPOLOGY = ("SCHEMA_CHANGE", "TRIGGER_SNAPSHOT")
"""Committed kinds left out of the topology steps shown (they move no range)."""
MAX_STEPS = 16


@frozen(kw_only=True)
class ClientOp:
    """One client operation of the evidence, as the coordinator ran it."""

    process: int
    f: str
    key: str
    """`keyspace/key` (the keyspace from the coordinator's plan; the bare key without one)."""
    value: Any
    """The value written, or the value read (None: nothing)."""
    outcome: str
    """ok, fail or info (unknown)."""
    invoked_ns: int
    completed_ns: int | None
    coordinator: str
    level: str | None = None
    plan_epoch: int | None = None
    """The coordinator's epoch when it planned the request."""
    done_epoch: int | None = None
    """The coordinator's epoch when the request completed."""
    replicas: tuple[str, ...] = ()
    """The replicas the coordinator contacted."""
    answers: tuple[tuple[str, Any, int | None], ...] = ()
    """(replica, value it acknowledged or answered, its epoch when it served) per answer."""

    def line(self) -> str:
        what = f"write {self.value}" if self.f == "write" else f"read -> {self.value}"
        cl = f" at {self.level}" if self.level else ""
        epoch = f", coordinator at epoch {self.plan_epoch}" if self.plan_epoch is not None else ""
        if self.done_epoch is not None and self.done_epoch != self.plan_epoch:
            epoch += f" (epoch {self.done_epoch} at the end)"
        asked = f", replicas {','.join(self.replicas)}" if self.replicas else ""
        answered = ""
        if self.answers:
            answered = "; answered by " + ", ".join(
                f"{r}" + (f" ({v})" if self.f == "read" else "") + (f" at epoch {e}" if e is not None else "")
                for r, v, e in self.answers)
        when = _seconds(self.invoked_ns) + ("-" + _seconds(self.completed_ns) if self.completed_ns is not None else "-?")
        return f"{what} by {self.coordinator}{cl}{epoch}{asked}{answered}: {self.outcome} at {when} s"

    def to_json(self) -> dict[str, Any]:
        return {"process": self.process, "f": self.f, "key": self.key, "value": self.value,
                "outcome": self.outcome, "invoked_ns": self.invoked_ns, "completed_ns": self.completed_ns,
                "coordinator": self.coordinator, "level": self.level, "plan_epoch": self.plan_epoch,
                "done_epoch": self.done_epoch, "replicas": list(self.replicas),
                "answers": [{"replica": r, "value": v, "epoch": e} for r, v, e in self.answers]}


@frozen(kw_only=True)
class Step:
    """A committed topology step (or CMS change)."""

    epoch: int
    kind: str
    node: str | None
    time_ns: int

    def line(self) -> str:
        return f"epoch {self.epoch} {self.kind}" + (f" {self.node}" if self.node else "") + f" ({_seconds(self.time_ns)} s)"

    def to_json(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "kind": self.kind, "node": self.node, "time_ns": self.time_ns}


@frozen(kw_only=True)
class Stuck:
    """An operation still in progress at the end: where it stopped and what it waited on."""

    node: str
    op: str
    last_step: str | None
    """The last step its driver submitted (None: none yet)."""
    committed: bool
    """Whether that step was committed (else its commit request was still unanswered)."""
    barrier: tuple[str, int] | None
    """(the step it waits to take, the epoch the replicas must reach) of a barrier that never passed."""
    waiting_on: tuple[str, ...]
    """Nodes down or behind that epoch at the end."""
    could_finish: bool

    def line(self) -> str:
        where = (f"after {self.last_step}" if self.committed else f"waiting for {self.last_step} to commit") \
            if self.last_step else "before its first step"
        if self.barrier is not None:
            where += f", at the progress barrier before {self.barrier[0]} (epoch {self.barrier[1]})"
        waits = f"; down or behind: {', '.join(self.waiting_on)}" if self.waiting_on else ""
        could = " (the live nodes could meet its barrier)" if self.could_finish else ""
        return f"{self.op} driven by {self.node} stuck {where}{waits}{could}"

    def to_json(self) -> dict[str, Any]:
        return {"node": self.node, "op": self.op, "last_step": self.last_step, "committed": self.committed,
                "barrier": None if self.barrier is None else {"step": self.barrier[0], "epoch": self.barrier[1]},
                "waiting_on": list(self.waiting_on), "could_finish": self.could_finish}


@frozen(kw_only=True)
class Evidence:
    """What a person needs to see a failing run's anomaly without re-simulating it."""

    anomaly: str
    """The verdict it explains (the clients' cause, a durability cause's class, or `liveness`)."""
    key: str | None = None
    """`keyspace/key` of the client anomaly (or of the first write followed)."""
    operations: tuple[ClientOp, ...] = ()
    """The smallest failing sub-history of the key (and the missed write, if outside it)."""
    stale_read: int | None = None
    """Index in `operations` of the read no linearization reaches."""
    missed_write: int | None = None
    """Index in `operations` of the last write acknowledged before that read began, whose value
    it did not return."""
    steps: tuple[Step, ...] = ()
    """Topology steps committed from the oldest epoch the operations acted at to their end."""
    stuck: tuple[Stuck, ...] = ()
    writes: tuple[WriteFate, ...] = ()
    """The acknowledged writes behind the run's durability causes, and where they went
    (campaign/run/write_fate.py)."""
    final_epoch: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"anomaly": self.anomaly, "key": self.key, "operations": [o.to_json() for o in self.operations],
                "stale_read": self.stale_read, "missed_write": self.missed_write,
                "steps": [s.to_json() for s in self.steps], "stuck": [s.to_json() for s in self.stuck],
                "writes": [w.to_json() for w in self.writes], "final_epoch": self.final_epoch}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Evidence:
        """The value `to_json` wrote (a failure file's `evidence`, replay's JSON)."""
        ops = tuple(ClientOp(**{**o, "replicas": tuple(o["replicas"]),
                                "answers": tuple((a["replica"], a["value"], a["epoch"]) for a in o["answers"])})
                    for o in doc.get("operations", []))
        stuck = tuple(Stuck(node=s["node"], op=s["op"], last_step=s["last_step"], committed=s["committed"],
                            barrier=None if s["barrier"] is None else (s["barrier"]["step"], s["barrier"]["epoch"]),
                            waiting_on=tuple(s["waiting_on"]), could_finish=s["could_finish"])
                      for s in doc.get("stuck", []))
        return cls(anomaly=doc["anomaly"], key=doc.get("key"), operations=ops, stale_read=doc.get("stale_read"),
                   missed_write=doc.get("missed_write"), steps=tuple(Step(**s) for s in doc.get("steps", [])),
                   stuck=stuck, writes=tuple(WriteFate.from_json(w) for w in doc.get("writes", [])),
                   final_epoch=doc.get("final_epoch", 0))

    def lines(self) -> list[str]:
        """A few lines for a person (replay prints them on stderr)."""
        out: list[str] = []
        if self.key is not None:
            out.append(f"evidence: key {self.key} ({self.anomaly}); the cluster ended at epoch {self.final_epoch}")
            for i, o in enumerate(self.operations):
                tag = "stale read" if i == self.stale_read else "missed write" if i == self.missed_write else "operation"
                out.append(f"  {tag}: {o.line()}")
            if self.stale_read is not None and self.missed_write is not None:
                read, write = self.operations[self.stale_read], self.operations[self.missed_write]
                assert write.completed_ns is not None
                out.append(f"  the read began {_seconds(read.invoked_ns - write.completed_ns)} s after write "
                           f"{write.value} was acknowledged, and returned {read.value}")
        for s in self.stuck:
            out.append(f"evidence: {s.line()}")
        for i, w in enumerate(self.writes):  # the first in full, the others in a line (all in the JSON)
            first, *rest = w.lines()
            out += [f"evidence: {first}", *(rest if i == 0 else [])]
        if self.steps:
            out.append("  topology steps: " + "; ".join(s.line() for s in self.steps))
        return out


def evidence_lines(doc: dict[str, Any] | None) -> list[str]:
    """The lines of a serialized evidence (none for None)."""
    return [] if doc is None else Evidence.from_json(doc).lines()


def evidence_of(result: RunResult, clients: Verdict | None, liveness: Sequence[Any] = (),
                durability: DurabilityReport | None = None, klasses: Sequence[str] = ()) -> Evidence | None:
    """The evidence of a failing run: the clients' anomaly when their verdict is False, else the
    stuck operations when a liveness check failed; with the writes behind its durability causes
    (`klasses`: the run's cause classes; `durability`: the protocol judgement's report) — alone
    when the client history is linearizable. None when nothing applies."""
    fates = write_fates(result, parse(result.protocol), durability, klasses) if durability is not None else ()
    if clients is not None and clients.valid is False and clients.evidence.key is not None:
        return evolve(client_evidence(result, clients), writes=fates)
    if liveness and result.unfinished:
        return evolve(stuck_evidence(result), writes=fates)
    if fates:
        return Evidence(anomaly=next(k for k in klasses if k.startswith("durability: ")), key=fates[0].key,
                        writes=fates, final_epoch=result.final_epoch)
    return None


def client_evidence(result: RunResult, clients: Verdict) -> Evidence:
    """The key, its smallest failing sub-history joined to the protocol trace, the stale read and
    the write it missed, and the topology steps around them."""
    ev = clients.evidence
    key = str(ev.key)
    trace = parse(result.protocol)
    named = _with_keyspace(trace, key)
    window = list(ev.window) or ([ev.failing_op] if ev.failing_op is not None else [])
    failing = ev.failing_op
    missed = None
    if failing is not None and failing.f == "read" and failing.call_time is not None:
        missed = _missed_write(result, key, failing)
        if missed is not None and all(op.process != missed.process for op in window):
            window.append(missed)
    window += _source_writes(result, key, window)
    window.sort(key=lambda op: (op.call_time or 0, op.id))
    ops = tuple(_client_op(result, trace, op) for op in window)
    stale = next((i for i, op in enumerate(window) if failing is not None and op.process == failing.process), None)
    miss = next((i for i, op in enumerate(window) if missed is not None and op.process == missed.process), None)
    epochs = [e for o in ops for e in (o.plan_epoch, *(a[2] for a in o.answers)) if e is not None]
    since = min(epochs, default=0)
    until = max((o.completed_ns or o.invoked_ns for o in ops), default=0)
    ops = tuple(evolve(o, key=named) for o in ops)
    return Evidence(anomaly=clients.cause, key=named, operations=ops, stale_read=stale if failing is not None else None,
                    missed_write=miss, steps=_steps(result, since, until), final_epoch=result.final_epoch)


def stuck_evidence(result: RunResult) -> Evidence:
    """Each operation in progress at the end: its last step, the barrier it waits at, and the
    nodes down or behind the barrier's epoch."""
    last_step: dict[str, tuple[str, str]] = {}  # driver -> (kind, entry id)
    open_barrier: dict[str, tuple[str, int]] = {}
    committed = {json.loads(h.value).get("entry_id") for h in result.commit_history if h.type == "ok"}
    for row in result.protocol:
        if row[0] == "step_submit":
            last_step[row[2]] = (str(row[5]), str(row[6]))
            open_barrier.pop(row[2], None)
        elif row[0] == "barrier_start":
            open_barrier[row[2]] = (str(row[4]), int(row[5]))
        elif row[0] == "barrier_pass":
            open_barrier.pop(row[2], None)
    applied = {n.id: (n.up, n.applied_epoch) for n in result.nodes}
    stuck = []
    for node, op, could in result.unfinished:
        barrier = open_barrier.get(node)
        waiting: tuple[str, ...] = ()
        if barrier is not None:
            waiting = tuple(n for n, (up, epoch) in sorted(applied.items()) if not up or epoch < barrier[1])
        else:
            waiting = tuple(n for n, (up, _) in sorted(applied.items()) if not up)
        kind, entry = last_step.get(node, (None, None))
        stuck.append(Stuck(node=node, op=op, last_step=kind, committed=entry in committed, barrier=barrier,
                           waiting_on=waiting, could_finish=could))
    first = min((t for row in result.protocol if row[0] == "step_submit" for t in (row[1],)), default=0)
    return Evidence(anomaly="liveness", stuck=tuple(stuck), steps=_steps(result, 0, result.end_time, after_ns=first),
                    final_epoch=result.final_epoch)


def _missed_write(result: RunResult, key: str, read: Operation) -> Operation | None:
    """The last write of `key` acknowledged before `read` began, if the read did not return it."""
    if read.call_time is None:
        return None
    writes = [op for op in result.client_history if op.key == key and op.f == "write"]
    acked = [(start, op) for start, op in completed_calls(writes) if op.type == "ok" and op.time < read.call_time]
    if not acked:
        return None
    start, done = max(acked, key=lambda pair: pair[1].time)  # (the first of equal times)
    value = json.loads(start.value)
    if value == read.output:
        return None
    return Operation(id=-1, process=done.process, f="write", key=key, input=value, output=value, call=-1, ret=-1,
                     call_time=start.time, ret_time=done.time)


def _source_writes(result: RunResult, key: str, window: Sequence[Operation]) -> list[Operation]:
    """The writes of the values the window's reads returned, where the window leaves them out
    (a minimal failing window need not hold them; a reader of the evidence wants to see where a
    value came from — a write that failed or timed out above all)."""
    shown = {op.input for op in window if op.f == "write"}
    wanted = {op.output for op in window if op.f == "read" and op.output is not None} - shown
    out: list[Operation] = []
    writes = [op for op in result.client_history if op.key == key and op.f == "write"]
    for start, op in completed_calls(writes):
        value = json.loads(start.value)
        if value in wanted:
            wanted.discard(value)
            out.append(Operation(id=-1, process=op.process, f="write", key=key, input=value, output=value,
                                 call=-1, ret=-1, call_time=start.time, ret_time=op.time))
    return out


def _client_op(result: RunResult, trace: ProtocolTrace, op: Operation) -> ClientOp:
    """`op` joined to impl's events (its coordinator) and the protocol trace (the plan made when
    it was invoked, on that coordinator, for that key; the answers of the same request id)."""
    invoke = next((h for h in result.client_history if h.process == op.process and h.type == "invoke"), None)
    done = next((h for h in result.client_history if h.process == op.process and h.type != "invoke"), None)
    coord = invoke.node if invoke is not None else "?"
    value = op.input if op.f == "write" else op.output
    base = {"process": int(str(op.process)), "f": op.f, "key": str(op.key), "value": value,
            "outcome": done.type if done is not None else "info",
            "invoked_ns": op.call_time or 0, "completed_ns": op.ret_time, "coordinator": coord}
    if op.f == "write":
        plan = next((p for p in trace.write_plans if p.coord == coord and p.key == op.key and p.t == op.call_time), None)
        if plan is None:
            return ClientOp(**base)
        end = next((d for d in trace.write_dones if (d.coord, d.rid) == (coord, plan.rid)), None)
        served = {s.replica: s.replica_epoch for s in trace.serves
                  if s.verb == "mutation" and s.sender == coord and s.rid == plan.rid}
        acks = tuple((a.replica, value, served.get(a.replica)) for a in trace.write_acks
                     if (a.coord, a.rid) == (coord, plan.rid))
        return ClientOp(**base, level=plan.cl, plan_epoch=plan.epoch, done_epoch=end.epoch if end else None,
                        replicas=tuple(plan.contacts), answers=acks)
    rplan = next((p for p in trace.read_plans if p.coord == coord and p.key == op.key and p.t == op.call_time), None)
    if rplan is None:
        return ClientOp(**base)
    rend = next((d for d in trace.read_dones if (d.coord, d.rid) == (coord, rplan.rid)), None)
    served = {s.replica: s.replica_epoch for s in trace.serves if s.verb == "read" and s.sender == coord
              and s.rid == rplan.rid}
    answers = tuple((r.replica, r.value, served.get(r.replica)) for r in trace.read_resps
                    if (r.coord, r.rid) == (coord, rplan.rid))
    return ClientOp(**base, level=rplan.cl, plan_epoch=rplan.epoch, done_epoch=rend.epoch if rend else None,
                    replicas=tuple(rplan.contacts), answers=answers)


def _with_keyspace(trace: ProtocolTrace, key: str) -> str:
    """`keyspace/key`: the client history names keys without their keyspace; the coordinators'
    plans of that key name it (the bare key when no plan does)."""
    ks = next((p.keyspace for p in trace.write_plans if p.key == key),
              next((p.keyspace for p in trace.read_plans if p.key == key), None))
    return key if ks is None else f"{ks}/{key}"


def _steps(result: RunResult, since_epoch: int, until_ns: int, *, after_ns: int = 0) -> tuple[Step, ...]:
    """Committed topology steps after epoch `since_epoch`, committed by `until_ns` (and from
    `after_ns` on), the last `MAX_STEPS` of them."""
    seen: dict[int, Step] = {}
    for h in result.commit_history:
        if h.type != "ok" or h.time > until_ns or h.time < after_ns:
            continue
        v = json.loads(h.value)
        t = v.get("transformation", {})
        epoch = v.get("epoch")
        if not isinstance(epoch, int) or epoch <= since_epoch or t.get("kind") in NOT_TOPOLOGY or epoch in seen:
            continue
        node = t.get("node")
        node = node.get("id") if isinstance(node, dict) else node  # REGISTER names a new node's spec
        seen[epoch] = Step(epoch=epoch, kind=str(t.get("kind")), node=node if isinstance(node, str) else None,
                           time_ns=h.time)
    return tuple(seen[e] for e in sorted(seen))[-MAX_STEPS:]


def _seconds(ns: int) -> str:
    return f"{ns / 1e9:.3f}"


__all__ = ["ClientOp", "Evidence", "Step", "Stuck", "client_evidence", "evidence_lines", "evidence_of",
           "stuck_evidence"]
