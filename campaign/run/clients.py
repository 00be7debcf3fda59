"""The client history's verdict, as far as Cassandra promises it, and the end-of-run durability
checks of the client writes.

The kv model checks every read (linearizability); a violation is then told apart from what
Cassandra documents or what a known finding explains, each with a cause of its own:
- writes at ALL and reads at ONE promise a regular register, not linearizability (`REGULAR`);
- a remove or replace streams each range from one source (`SINGLE_SOURCE_LOSS`: finding
  `remove-replace-single-source`);
- a progress barrier relaxed below its first level by the operator's setting (`RELAXED_BARRIER`:
  finding `relaxed-progress-barrier`);
- reads served to a coordinator behind their read group's last change (`STALE_COORDINATOR_READ`:
  finding `stale-coordinator-read`);
- reads that returned a failed write a pending replica missed, repairing nothing
  (`UNREPAIRED_PAST_PENDING`: finding `monotonic-read-across-movement`).
With every write at ALL, acknowledged writes must be on every replica at a quiet end and seen
by every later read (`durability`, `stale_reads`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from attrs import evolve

from campaign.run import cause as C
from campaign.run.calls import completed_calls
from campaign.run.cause import (
    REGULAR,
    RELAXED_BARRIER,
    SINGLE_SOURCE_LOSS,
    STALE_COORDINATOR_READ,
    UNREPAIRED_PAST_PENDING,
    Cause,
)
from campaign.run.histories import CHECK_TIMEOUT_S, as_history, check_clients
from checkers.linearizability.model import KV
from checkers.linearizability.verdict import Verdict
from checkers.linearizability.wgl import check
from impl.cluster import RunResult
from impl.node.progress_barrier import CHAIN
from impl.scenario import Scenario


def client_verdict(scenario: Scenario, result: RunResult, *, timeout_s: float = CHECK_TIMEOUT_S,
                   reads_behind: frozenset[tuple[str, str, int]] = frozenset(),
                   reads_past_pending: frozenset[tuple[str, str, int]] = frozenset()
                   ) -> tuple[Verdict | None, tuple[str, ...]]:
    """The clients' verdict (None: the run had no client) and the single-source stream losses
    that explain it, if any. `reads_behind`: (coordinator, key, completion time) of the reads a
    replica served to a coordinator behind the read group's last change; `reads_past_pending`:
    those that returned a value a pending replica lacked, repairing nothing (campaign/run/
    trace_checks.py)."""
    if not result.client_history:
        return None, ()
    clients = check_clients(result.client_history, timeout_s=timeout_s)
    losses: tuple[str, ...] = ()
    if clients.valid is False and _reads_at_one_writes_at_all(scenario):
        clients = regular(scenario, result, clients)
    if clients.valid is False:
        clients, losses = _single_source_losses(scenario, result, clients,
                                                deadline=time.monotonic() + timeout_s)
    if clients.valid is False and clients.cause != SINGLE_SOURCE_LOSS:
        clients = _relaxed_barrier(scenario, result, clients)
    explained = (SINGLE_SOURCE_LOSS, RELAXED_BARRIER)
    # Finding stale-coordinator-read: Cassandra's ReadCommandVerbHandler checks a read's routing
    # only, and a coordinator's catch-up on a successful response is asynchronous
    # (ResponseVerbHandler.maybeFetchLogs), so a read can complete from a quorum that mixes a
    # replica that moved past it with one still behind.
    if clients.valid is False and clients.cause not in explained and reads_behind:
        clients = _explained_by_reads(result, clients, reads_behind, STALE_COORDINATOR_READ,
                                      deadline=time.monotonic() + timeout_s)
    # Finding monotonic-read-across-movement: a read repairs only on a digest mismatch
    # (AbstractReadExecutor.awaitResponses), so a failed write it returns may be missing from a
    # pending replica, which serves the later reads once the movement finishes.
    if clients.valid is False and clients.cause not in (*explained, STALE_COORDINATOR_READ) and reads_past_pending:
        clients = _explained_by_reads(result, clients, reads_past_pending, UNREPAIRED_PAST_PENDING,
                                      deadline=time.monotonic() + timeout_s)
    return clients, losses


def _explained_by_reads(result: RunResult, clients: Verdict, reads: frozenset[tuple[str, str, int]],
                        cause: str, *, deadline: float) -> Verdict:
    """`clients` with `cause` when the given reads (coordinator, key, completion time) explain the
    non-linearizable history — without them (their invoke and completion) it is linearizable;
    else `clients` unchanged."""
    drop = {op.process for op in result.client_history
            if op.f == "read" and op.type != "invoke" and (op.node, op.key, op.time) in reads}
    if not drop:
        return clients
    kept = [op for op in result.client_history if op.process not in drop]
    again = check(KV, as_history(kept), deadline=deadline)
    return evolve(clients, cause=cause) if again.valid is True else clients


def durability(scenario: Scenario, result: RunResult) -> tuple[Cause, ...]:
    """With every client write at ALL, every write replica (pending ones included) acknowledged
    each `ok` write and streaming hands it on, so at a quiet end the live read replicas of a key
    hold the same cell — unless a write of that key ended unknown (`info`, `fail`: applied part
    way, which nothing repairs but a read)."""
    if not result.quiescent or not _judged(scenario):
        return ()
    unsure = {op.key for op in result.client_history if op.f == "write" and op.type in ("info", "fail")}
    judged = _judged_keys(scenario)
    out: list[Cause] = []
    for ks, key, cells in result.replica_cells:
        if key in unsure or key not in judged or len({(ts, v) for _, ts, v in cells}) <= 1:
            continue
        held = ", ".join(f"{r}:{v if ts >= 0 else '-'}" for r, ts, v in cells)
        out.append(C.durability(f"replicas of {ks}/{key} disagree at the end ({held})"))
    return tuple(out[:1])


def stale_reads(scenario: Scenario, result: RunResult) -> tuple[Cause, ...]:
    """With every client write at ALL (W + R > RF for any read level), a read that starts after
    a write of its key was acknowledged must return that write or a later one: a read returning
    nothing, or the value of a write acknowledged before that one began, lost it. Weaker than
    linearizability on purpose: a write still in flight may be seen by one read at ONE and not
    by a later one (reads at ONE repair nothing), which is Cassandra's semantics. Last write
    wins by the coordinator's clock, so not with clock skew."""
    if not _judged(scenario) or scenario.clock_skew:
        return ()
    writes: dict[str, list[tuple[int, int | None, int]]] = {}  # key -> (invoked, acked, value)
    reads: list[tuple[str, int, Any]] = []  # (key, invoked, value)
    for start, op in completed_calls(result.client_history):
        if op.key is None:
            continue
        if op.f == "write":
            writes.setdefault(op.key, []).append(
                (start.time, op.time if op.type == "ok" else None, json.loads(start.value)))
        elif op.type == "ok":
            reads.append((op.key, start.time, json.loads(op.value)))
    judged = _judged_keys(scenario)
    for key, at, value in reads:
        if key not in judged:
            continue
        done = [w for w in writes.get(key, []) if w[1] is not None and w[1] < at]
        if not done:
            continue
        if value is None:
            return (C.stale_read(f"stale read of {key}: nothing, after write {done[-1][2]} was acknowledged"),)
        source = next((w for w in writes.get(key, []) if w[2] == value), None)
        if source is None or source[1] is None:
            continue
        newer = next((w for w in done if source[1] < w[0]), None)
        if newer is not None:
            return (C.stale_read(f"stale read of {key}: {value}, after write {newer[2]} (begun once "
                                 f"{value} was acknowledged) was acknowledged"),)
    return ()




def _judged(scenario: Scenario) -> bool:
    """Every client write at ALL — leaving out write-only workloads at ANY on keys of their
    own (`key_prefix`; a write at ANY promises nothing a read could check)."""
    return bool(_reading(scenario)) and all(c.write_cl == ("ALL",) for c in _reading(scenario))


def _reading(scenario: Scenario) -> list[Any]:
    """The client workloads but those writing at ANY only, on keys no other workload uses."""
    def apart(c: Any) -> bool:
        return c.write_cl == ("ANY",) and c.writes == 1.0 and sum(
            1 for o in scenario.clients if o.key_prefix == c.key_prefix) == 1

    return [c for c in scenario.clients if not apart(c)]


def _judged_keys(scenario: Scenario) -> frozenset[str]:
    """The keys of the workloads `_reading` keeps (writes at ANY on keys of their own left out)."""
    return frozenset(f"{c.key_prefix}{i}" for c in _reading(scenario) for i in range(c.keys))


def _reads_at_one_writes_at_all(scenario: Scenario) -> bool:
    return _judged(scenario) and all(c.read_cl == ("ONE",) for c in _reading(scenario))


def regular(scenario: Scenario, result: RunResult, clients: Verdict) -> Verdict:
    """Writes at ALL with reads at ONE promise no linearizability: a read at ONE answers from one
    replica, with no blocking read repair, so while a write is in flight one read can see it and a
    later read, on a replica it has not reached yet, not (Cassandra's semantics). What they do
    promise is a regular register: a read returns the value of a write that was not overwritten
    before the read began, i.e. no write completed before the read began and was invoked after
    the read value's write completed (LWW timestamps follow real time without clock skew). A
    history that keeps that is valid with cause `REGULAR`; one that does not keeps the
    linearizability verdict (a read missed a completed write)."""
    if any(skew for _, skew in scenario.clock_skew):
        return clients  # timestamps need not follow real time: no claim either way
    writes: dict[str, list[tuple[Any, int, int | None]]] = {}  # key -> (value, invoked, ok)
    reads: list[tuple[str, Any, int]] = []  # (key, value, invoked) of every ok read
    for inv, op in completed_calls(result.client_history):
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




def _single_source_losses(scenario: Scenario, result: RunResult, clients: Verdict, *,
                          deadline: float) -> tuple[Verdict, tuple[str, ...]]:
    """Whether a non-linearizable client history is finding `remove-replace-single-source`:
    some writes were lost by a single-source stream (`stream_losses`), and the history with
    those writes taken out (and the reads that returned them) is linearizable; anything else
    fails as before."""
    lost, why = stream_losses(scenario, result)
    if not lost:
        return clients, ()
    drop = set()
    for inv, op in completed_calls(result.client_history):
        value = json.loads(inv.value if op.f == "write" else op.value)
        if (str(op.key), value) in lost and (op.f == "write" or op.type == "ok"):
            drop.add(op.process)
    kept = [op for op in result.client_history if op.process not in drop]
    again = check(KV, as_history(kept), deadline=deadline)
    if again.valid is not True:
        return clients, tuple(why)
    return evolve(clients, cause=SINGLE_SOURCE_LOSS), tuple(why)




def stream_losses(scenario: Scenario, result: RunResult) -> tuple[set[tuple[str, Any]], list[str]]:
    """(key, value) of the client writes a remove or replace did not stream to a new replica,
    with a line each saying how (past the 60-line guideline: gathering the writes and matching
    them to the stream records are one argument, best read in one piece).

    Evidence (`RunResult.streams`): a write acknowledged before a remove or replace finished
    streaming a range, held by some node then, yet not by the new replica after it received the
    range from its one source — a replica of the range before the operation other than the
    removed/replaced node (Cassandra's candidates) — or from nobody (no other replica: RF 1).
    A stream from any other node (a bug, e.g. switch stream-from-non-replica) or from several
    sources is no evidence."""
    keyspaces = {c.keyspace for c in scenario.clients}
    writes = [op for op in result.client_history if op.f == "write"]
    # every write, completed or not: (key, value) -> invoked
    written = {(str(op.key), json.loads(op.value)): op.time for op in writes if op.type == "invoke"}
    acked = {(str(op.key), json.loads(inv.value)): (inv.time, op.time)  # (key, value) -> (invoked, ok) times
             for inv, op in completed_calls(writes) if op.type == "ok"}
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
    return lost, why


def _relaxed_barrier(scenario: Scenario, result: RunResult, clients: Verdict) -> Verdict:
    """A non-linearizable client history in a run whose settings let the progress barrier relax
    (`barrier_min_consistency` below `barrier_consistency`: Cassandra's
    progress_barrier_min_consistency_level below its default) and where a barrier did relax:
    an operation stepped past replicas that had not seen its previous step, so quorums of the
    old placement can lag together, which is what the relaxation allows (finding
    `relaxed-progress-barrier`). Only such runs: with the default settings nothing relaxes."""
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



__all__ = ["client_verdict", "durability", "regular", "stale_reads"]
