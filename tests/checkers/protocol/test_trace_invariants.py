"""The trace invariants on hand-written protocol traces: X joins a ring A(100) B(200) C(300) at
RF 3; token 120's groups are ABC, then at epoch 3 (START_JOIN) writes ABCX (X pending), at 4
(MID_JOIN) reads BCX, writes ABCX (A pending), at 5 (FINISH_JOIN) BCX."""

from __future__ import annotations

from typing import Any

import pytest

from checkers.protocol import (
    BarrierSettings,
    Placements,
    check_barrier,
    check_durability,
    check_fencing,
    check_quorum,
    check_streaming,
)
from checkers.protocol.barrier import allowed_level
from observed import protocol as events
from observed.cells import KeyCells, ReplicaCell, StoredHint
from spec.operations import Join
from spec.replication import SimpleStrategy
from tests.calls import client_calls
from tests.spec.helpers import node, ring, run

RUN = run(ring(node("A", 100), node("B", 200), node("C", 300), replication=SimpleStrategy(replication_factor=3),
               keyspace="kv"), Join(node=node("X", 150)))
STATES = {m.epoch: m for m in RUN.states}
LOG = {m.epoch: (t.kind, str(getattr(t, "node", "")), f"e{m.epoch}")
       for m, t in zip(RUN.states[1:], RUN.transformations[1:], strict=True) if t is not None}
T = 120  # a token of (100, 150]
P = Placements(STATES)


KIND = {"apply": events.Applied, "step_submit": events.StepSubmit, "write_plan": events.WritePlan,
        "write_ack": events.WriteAck, "write_done": events.WriteDone, "read_plan": events.ReadPlan,
        "read_resp": events.ReadResp, "read_resolve": events.ReadResolve, "read_repair": events.ReadRepair,
        "read_repair_ack": events.ReadRepairAck, "read_done": events.ReadDone, "serve": events.Serve,
        "store": events.Store}
"""The rows below name each event's kind and give its fields in order (docs/simulate.md)."""


def trace(*rows: tuple[Any, ...]) -> events.ProtocolTrace:
    return events.ProtocolTrace.of(
        KIND[r[0]](**dict(zip(events.field_names(KIND[r[0]]), r[1:], strict=True))) for r in rows)


def cells(*held: tuple[str, int, int, bool, bool]) -> list[KeyCells]:
    return [KeyCells(keyspace="kv", key="k", cells=tuple(
        ReplicaCell(replica=r, timestamp=ts, value=v, up=up, read_replica=rd) for r, ts, v, up, rd in held))]


ACKED = client_calls((1, "invoke", "write", 9, 0), (1, "ok", "write", 9, 3))
"""The write of value 9 (as `write(...)` plans it), acknowledged at 3."""


def test_the_placements_follow_the_join() -> None:
    assert P.groups(3, "kv", T) == (frozenset("ABC"), frozenset("ABCX"))
    assert P.groups(4, "kv", T) == (frozenset("BCX"), frozenset("ABCX"))
    assert P.last_modified(4, "kv", T, writes=True) == 3
    assert P.last_modified(4, "kv", T, writes=False) == 4
    assert LOG[3][:2] == ("START_JOIN", "X") and LOG[4][0] == "MID_JOIN"


def serve(replica: str, verb: str, sender_epoch: int, replica_epoch: int, answer: str = "ok") -> tuple[Any, ...]:
    return ("serve", 10, replica, verb, "C", sender_epoch, replica_epoch, "kv", T, answer, 1)


def test_fencing_a_mutation_from_behind_the_write_groups_last_change() -> None:
    assert check_fencing(trace(serve("A", "mutation", 3, 4)), P).valid
    assert check_fencing(trace(serve("A", "mutation", 2, 4, "CoordinatorBehind")), P).valid
    bad = check_fencing(trace(serve("A", "mutation", 2, 4)), P)
    assert not bad.valid and "behind the write group's last change at e3" in bad.violations[0].detail
    # a replica behind the coordinator serves at once (Cassandra catches up asynchronously)
    assert check_fencing(trace(serve("A", "read_repair", 5, 3)), P).valid


def test_fencing_reads_are_checked_for_routing_only() -> None:
    assert check_fencing(trace(serve("A", "read", 1, 3)), P).valid  # no lastModified for reads
    bad = check_fencing(trace(serve("A", "read", 5, 4)), P)  # A left the read group at MID
    assert not bad.valid and "not in its read group" in bad.violations[0].detail


def test_fencing_a_hint_applied_outside_the_write_group() -> None:
    assert check_fencing(trace(serve("A", "hint", 0, 4)), P).valid
    assert check_fencing(trace(serve("A", "hint", 0, 5, "rehinted")), P).valid
    assert not check_fencing(trace(serve("A", "hint", 0, 5)), P).valid


def write(epoch: int, acks: str, *, cl: str = "QUORUM", answered: int | None = None) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = [("write_plan", 1, "C", 7, "kv", "k", T, cl, epoch, "dc1", tuple("ABCX"), (), 5, 9)]
    rows += [("write_ack", 2, "C", 7, r, "ack") for r in acks]
    rows.append(("write_done", 3, "C", 7, "ok", epoch if answered is None else answered))
    return rows


def test_quorum_a_write_must_count_the_pending_replica() -> None:
    assert check_quorum(trace(*write(3, "ABC")), P).valid  # 3 of ABCX: QUORUM + 1 pending
    bad = check_quorum(trace(*write(3, "AB")), P)
    assert not bad.valid and "short of the level over the write group at e3" in bad.violations[0].detail
    assert check_quorum(trace(*write(2, "AB")), P).valid  # before START: 2 of ABC
    # planned before START, answered after it: the answer epoch needs the pending replica too
    assert not check_quorum(trace(*write(2, "AB", answered=3)), P).valid
    assert check_quorum(trace(*write(2, "AB", answered=3)), P, gossip=True).valid


def read(responses: dict[str, tuple[int, int | None]], answer: tuple[int, int | None],
         repaired: str = "") -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = [("read_plan", 1, "C", 8, "kv", "k", T, "QUORUM", 3, "dc1", tuple(responses))]
    rows += [("read_resp", 2, "C", 8, r, ts, v) for r, (ts, v) in responses.items()]
    rows.append(("read_resolve", 3, "C", 8, 3, tuple(sorted(responses)), *answer))
    if repaired:
        rows.append(("read_repair", 3, "C", 8, 3, tuple("ABCX"), tuple(repaired)))
        rows += [("read_repair_ack", 4, "C", 8, r) for r in repaired]
    rows.append(("read_done", 5, "C", 8, "ok", *answer, 3))
    return rows


def test_quorum_a_repaired_read_answers_once_its_value_meets_the_write_level() -> None:
    agree = {"A": (5, 9), "B": (5, 9)}
    assert check_quorum(trace(*read(agree, (5, 9))), P).valid  # a digest match: nothing to repair
    split = {"A": (5, 9), "B": (1, 2)}
    bad = check_quorum(trace(*read(split, (5, 9))), P)
    assert not bad.valid and "blocking read repair" in bad.violations[0].detail
    assert not check_quorum(trace(*read(split, (5, 9), repaired="B")), P).valid  # 2 of ABCX: short
    assert check_quorum(trace(*read(split, (5, 9), repaired="BX")), P).valid  # 3 of ABCX
    assert not check_quorum(trace(*read(split, (1, 2), repaired="BX")), P).valid  # not the newest


def applies(**at: int) -> list[tuple[Any, ...]]:
    return [("apply", t, n, 3) for n, t in at.items()]


def test_barrier_a_step_submitted_before_the_barrier_replicas_applied_the_previous_step() -> None:
    mid = ("step_submit", 100, "X", "X", "join", "MID_JOIN", "e4")
    settings = BarrierSettings()
    assert check_barrier(trace(*applies(A=10, B=20, C=30, X=5), mid), STATES, LOG, settings).valid
    bad = check_barrier(trace(*applies(A=10, B=200, C=300, X=5), mid), STATES, LOG, settings)
    assert not bad.valid and "short of EACH_QUORUM" in bad.violations[0].detail
    start = ("step_submit", 1, "X", "X", "join", "START_JOIN", "e3")  # ProgressBarrier.immediate
    assert check_barrier(trace(start), STATES, LOG, settings).valid
    relaxed = BarrierSettings(minimum="ONE", timeout=30)
    assert allowed_level(relaxed, 95) == "ONE" and allowed_level(settings, 10**12) == "EACH_QUORUM"
    assert check_barrier(trace(*applies(A=10, B=200, C=300, X=5), mid), STATES, LOG, relaxed).valid


def test_streaming_a_mid_that_leaves_an_acknowledged_write_below_its_level() -> None:
    mid = ("step_submit", 100, "X", "X", "join", "MID_JOIN", "e4")

    def stored(*nodes: str, via: str = "mutation", at: int = 1) -> list[tuple[Any, ...]]:
        return [("store", at, n, "kv", "k", 5, 9, via) for n in nodes]

    # acknowledged by A and B before START; A gives (100, 150] up and streams it to X
    assert check_streaming(trace(*write(2, "AB"), *stored("A", "B"), *stored("X", via="stream", at=50), mid),
                           P, LOG).valid
    # no stream: of the new read group BCX only B holds it, below QUORUM
    lost = check_streaming(trace(*write(2, "AB"), *stored("A", "B"), mid), P, LOG)
    assert not lost.valid and "below its level" in lost.violations[0].detail
    # acknowledged by B and C (A, the strict source, missed it): X needs nothing, B and C are
    # a quorum of BCX — the literal wording ("every new replica holds every write")
    # would call this correct Cassandra behaviour a failure
    assert check_streaming(trace(*write(2, "BC"), *stored("B", "C"), mid), P, LOG).valid
    # replace and remove are judged only with the fix (single source: a known finding)
    remove = ("step_submit", 100, "B", "X", "remove", "MID_JOIN", "e4")
    assert check_streaming(trace(*write(2, "AB"), *stored("A", "B"), remove), P, LOG).valid
    assert not check_streaming(trace(*write(2, "AB"), *stored("A", "B"), remove), P, LOG, all_sources=True).valid


@pytest.mark.parametrize(("final", "hints", "lost"), [
    ((("n1", 5, 9, True, True),), (), False),
    ((("n1", 1, 2, True, True), ("n2", -1, -1, False, True)), (), True),
    ((("n1", 1, 2, True, True),), (("h", "n1", "kv", "k", 5, 9),), False),
    ((("n1", 6, 3, True, True),), (), False),  # a newer cell overwrote it
])
def test_durability_lost_means_no_replica_holds_it_and_no_hint_carries_it(
        final: tuple[Any, ...], hints: tuple[Any, ...], lost: bool) -> None:
    t = trace(*write(2, "AB"))
    report = check_durability(t, ACKED, cells(*final), [StoredHint(holder=h[0], target=h[1], keyspace=h[2], key=h[3],
                                                             timestamp=h[4], value=h[5]) for h in hints],
                              frozenset({"n1", "n2"}))
    assert bool(report.lost) is lost


def test_durability_a_read_that_missed_a_write_is_stale_and_says_how_it_healed() -> None:
    t = trace(*write(2, "AB"), ("store", 50, "n2", "kv", "k", 5, 9, "hint"))
    final = cells(("n1", 5, 9, True, True), ("n2", 5, 9, True, True))
    missed = client_calls((1, "invoke", "write", 9, 0), (1, "ok", "write", 9, 3),
                          (2, "invoke", "read", None, 10), (2, "ok", "read", None, 20))
    report = check_durability(t, missed, final, (), frozenset({"n1", "n2"}))
    (stale,) = report.stale
    assert stale.missed_value == 9 and stale.healed_by == ("hint",) and not stale.still_stale
    seen = client_calls((1, "invoke", "write", 9, 0), (1, "ok", "write", 9, 3),
                        (2, "invoke", "read", None, 10), (2, "ok", "read", 9, 20))
    assert check_durability(t, seen, final, (), frozenset()).stale == ()


def _read(value: int | None, epoch: int, *, repaired: bool = False, t: int = 50) -> list[tuple[Any, ...]]:
    """A read of k (token T) by coordinator C at `epoch`, resolved at time `t` to cell (7, value)."""
    rows: list[tuple[Any, ...]] = [
        ("read_plan", t - 10, "C", 1, "kv", "k", T, "QUORUM", epoch, "dc1", ("A", "B")),
        ("read_resolve", t, "C", 1, epoch, ("A", "B"), 7, value)]
    if repaired:
        rows.append(("read_repair", t, "C", 1, epoch, ("A", "B", "X"), ("X",)))
    return rows


def test_reads_past_pending_are_the_unrepaired_reads_of_a_value_a_pending_replica_lacks() -> None:
    from checkers.protocol.pending import reads_past_pending

    stored = [("store", 20, n, "kv", "k", 7, 5, "mutation") for n in "AB"]
    # epoch 3: X is a pending replica of T and holds nothing: the read repaired nothing
    assert reads_past_pending(trace(*stored, *_read(5, 3)), P) == {("C", 1)}
    # ... unless it started a read repair (a digest mismatch, or the fix)
    assert reads_past_pending(trace(*stored, *_read(5, 3, repaired=True)), P) == frozenset()
    # ... or X held the value (or a newer cell) by then — not if it got it only later
    got = ("store", 30, "X", "kv", "k", 7, 5, "hint")
    assert reads_past_pending(trace(*stored, got, *_read(5, 3)), P) == frozenset()
    assert reads_past_pending(trace(*stored, got, *_read(5, 3, t=25)), P) == {("C", 1)}
    # epoch 2 (no pending replica) and epoch 5 (the join finished): nothing to miss
    assert reads_past_pending(trace(*stored, *_read(5, 2)), P) == frozenset()
    assert reads_past_pending(trace(*stored, *_read(5, 5)), P) == frozenset()
    # a read that returned nothing returned no write
    assert reads_past_pending(trace(*_read(None, 3)), P) == frozenset()
