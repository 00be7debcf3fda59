"""The evidence of a failing simulated run, for a person: which key, which operations, on which
coordinators and replicas at which epochs, beside which topology steps; or which operation was
stuck, where, and what it waited on; and what became of the acknowledged writes behind a
durability cause.

The values here are what failure files carry under `evidence` (`to_json`, `from_json`), what
`replay` prints (`lines()`) and what the report draws; they load no simulator. Each check of the
judge builds the evidence of what it found (campaign/judge/checks/: the clients' anomaly joined
to the protocol trace, the stuck operations, the followed writes), and `merged` makes the run's
one evidence of them. Keys are named with their keyspace (`kv/k15`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from attrs import frozen

from campaign.judge.write_fate import WriteFate
from observed.calls import CommitCall
from observed.protocol import ProtocolTrace

NOT_TOPOLOGY = ("SCHEMA_CHANGE", "TRIGGER_SNAPSHOT")
"""Committed kinds left out of the topology steps shown (they move no range)."""
MAX_STEPS = 16


@frozen(kw_only=True)
class TracedCall:
    """One client operation of the evidence, as its coordinator ran it (its call joined to the
    protocol trace)."""

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
class TopologyStep:
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
    operations: tuple[TracedCall, ...] = ()
    """The smallest failing sub-history of the key (and the missed write, if outside it)."""
    stale_read: int | None = None
    """Index in `operations` of the read no linearization reaches."""
    missed_write: int | None = None
    """Index in `operations` of the last write acknowledged before that read began, whose value
    it did not return."""
    steps: tuple[TopologyStep, ...] = ()
    """Topology steps committed from the oldest epoch the operations acted at to their end."""
    stuck: tuple[Stuck, ...] = ()
    writes: tuple[WriteFate, ...] = ()
    """The acknowledged writes behind the run's durability causes, and where they went
    (campaign/judge/write_fate.py)."""
    final_epoch: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"anomaly": self.anomaly, "key": self.key, "operations": [o.to_json() for o in self.operations],
                "stale_read": self.stale_read, "missed_write": self.missed_write,
                "steps": [s.to_json() for s in self.steps], "stuck": [s.to_json() for s in self.stuck],
                "writes": [w.to_json() for w in self.writes], "final_epoch": self.final_epoch}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Evidence:
        """The value `to_json` wrote (a failure file's `evidence`, replay's JSON)."""
        ops = tuple(TracedCall(**{**o, "replicas": tuple(o["replicas"]),
                                "answers": tuple((a["replica"], a["value"], a["epoch"]) for a in o["answers"])})
                    for o in doc.get("operations", []))
        stuck = tuple(Stuck(node=s["node"], op=s["op"], last_step=s["last_step"], committed=s["committed"],
                            barrier=None if s["barrier"] is None else (s["barrier"]["step"], s["barrier"]["epoch"]),
                            waiting_on=tuple(s["waiting_on"]), could_finish=s["could_finish"])
                      for s in doc.get("stuck", []))
        return cls(anomaly=doc["anomaly"], key=doc.get("key"), operations=ops, stale_read=doc.get("stale_read"),
                   missed_write=doc.get("missed_write"), steps=tuple(TopologyStep(**s) for s in doc.get("steps", [])),
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


def with_keyspace(trace: ProtocolTrace, key: str) -> str:
    """`keyspace/key`: the client history names keys without their keyspace; the coordinators'
    plans of that key name it (the bare key when no plan does)."""
    ks = next((p.keyspace for p in trace.write_plans if p.key == key),
              next((p.keyspace for p in trace.read_plans if p.key == key), None))
    return key if ks is None else f"{ks}/{key}"


def topology_steps(commits: Iterable[CommitCall], since_epoch: int, until_ns: int, *,
                   after_ns: int = 0) -> tuple[TopologyStep, ...]:
    """Committed topology steps after epoch `since_epoch`, committed by `until_ns` (and from
    `after_ns` on), the last `MAX_STEPS` of them."""
    seen: dict[int, TopologyStep] = {}
    for c in sorted(commits, key=lambda c: c.complete_index or 0):
        if c.outcome != "ok" or c.completed is None or c.completed > until_ns or c.completed < after_ns:
            continue
        epoch = c.epoch
        if epoch is None or epoch <= since_epoch or c.kind in NOT_TOPOLOGY or epoch in seen:
            continue
        node: Any = c.transformation.get("node")
        node = node.get("id") if hasattr(node, "get") else node  # REGISTER names a new node's spec
        seen[epoch] = TopologyStep(epoch=epoch, kind=c.kind, node=node if isinstance(node, str) else None,
                                   time_ns=c.completed)
    return tuple(seen[e] for e in sorted(seen))[-MAX_STEPS:]


def merged(found: Sequence[Evidence]) -> Evidence | None:
    """One evidence of a run from its failed checks' (in the judge's order): the first that shows
    operations (a client anomaly, stuck operations), else the first, with every check's
    followed writes (campaign/judge/write_fate.py) after its own."""
    if not found:
        return None
    lead = next((e for e in found if e.operations or e.stuck), found[0])
    writes = tuple(w for e in (lead, *(e for e in found if e is not lead)) for w in e.writes)
    return Evidence(anomaly=lead.anomaly, key=lead.key, operations=lead.operations, stale_read=lead.stale_read,
                    missed_write=lead.missed_write, steps=lead.steps, stuck=lead.stuck, writes=writes,
                    final_epoch=lead.final_epoch)


def _seconds(ns: int) -> str:
    return f"{ns / 1e9:.3f}"


__all__ = ["MAX_STEPS", "Evidence", "Stuck", "TopologyStep", "TracedCall", "evidence_lines", "merged",
           "topology_steps", "with_keyspace"]
