"""The data-path components' own promises (checkers/protocol/: repair.py, hints.py,
read_repair.py, failure_detector.py), each on a small trace that keeps it and on the same trace
with one event as a broken component would emit it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import checkers.protocol.failure_detector as fd_check
from checkers.protocol.failure_detector import SAMPLE_SIZE, DetectorSettings, check_failure_detector
from checkers.protocol.hints import check_hints
from checkers.protocol.read_repair import check_read_repair
from checkers.protocol.repair import check_repair
from observed.cells import StoredHint
from observed.protocol import (
    Event,
    FdAlive,
    FdArrivals,
    FdConvict,
    FdStart,
    FdStatusCheck,
    HintApply,
    HintDeliver,
    HintStore,
    ReadDone,
    ReadPlan,
    ReadRepair,
    ReadRepairAck,
    ReadRepairWrite,
    ReadResolve,
    ReadResp,
    RepairSessionDone,
    RepairSessionStart,
    Store,
    SyncApply,
    SyncTask,
    WritePlan,
)

S = 10**9
RING = ((0, 0),)  # the whole ring as one range


def _store(t: int, node: str, key: str, ts: int, value: int, via: str = "mutation") -> Store:
    return Store(t=t, node=node, keyspace="kv", key=key, token=5, timestamp=ts, value=value, via=via)


def _repair(*, sync_both_ways: bool = True, written_during: bool = False) -> list[Event]:
    """n1 holds k=7 and n2 nothing; a session of n1 and n2 syncs it (both ways, or n2 -> n1
    only, as a one-way RepairJob would)."""
    events: list[Event] = [
        _store(1, "n1", "k", 10, 7),
        RepairSessionStart(t=2, coord="n1", session=1, keyspace="kv", ranges=RING, participants=(("n1", "n2"),),
                           epoch=1)]
    if written_during:
        events.append(_store(3, "n2", "k", 5, 3))
    pairs = [("n1", "n2"), ("n2", "n1")] if sync_both_ways else [("n2", "n1")]
    events += [SyncTask(t=4, coord="n1", session=1, src=s, dst=d, keyspace="kv", keys=("k",)) for s, d in pairs]
    for s, d in pairs:
        rows = (("k", 10, 7),) if s == "n1" else ()
        events.append(SyncApply(t=5, coord="n1", session=1, src=s, dst=d, keyspace="kv", rows=rows))
        events += [_store(5, d, k, ts, v, "repair") for k, ts, v in rows]
    events.append(RepairSessionDone(t=6, coord="n1", session=1, keyspace="kv", outcome="completed"))
    return events


def test_a_completed_repair_leaves_its_participants_agreeing() -> None:
    verdict = check_repair(_repair())
    assert verdict.valid and dict(verdict.judged)["keys compared"] == 1


def test_a_completed_repair_that_synced_one_way_fails_with_both_cells() -> None:
    [v] = check_repair(_repair(sync_both_ways=False)).violations
    assert v.invariant == "repair" and "n2 holds an older cell than 7@10" in v.detail
    assert ("at the end", "n1:7@10, n2:nothing") in v.evidence


def test_a_key_written_during_the_session_may_differ_but_not_fall_behind_its_start() -> None:
    """n2's own write of k during the session (older than n1's) excuses a difference, not n2
    ending without the cell n1 held when the session started."""
    [v] = check_repair(_repair(sync_both_ways=False, written_during=True)).violations
    assert "older cell than 7@10" in v.detail and ("written during it", "yes") in v.evidence


def test_a_session_reported_completed_before_its_syncs_arrived_fails() -> None:
    events = [e for e in _repair() if not (isinstance(e, SyncApply | Store) and e.t == 5)]
    [v] = check_repair(events).violations
    assert "before the rows of its sync task n1->n2 reached n2" in v.detail


def test_a_session_left_without_an_outcome_at_a_quiet_end_fails_unless_its_coordinator_is_down() -> None:
    events = _repair()[:-1]
    assert not check_repair(events, up_at_quiet_end=frozenset({"n1", "n2"})).valid
    assert check_repair(events, up_at_quiet_end=frozenset({"n2"})).valid
    assert check_repair(events).valid  # not a quiet end: it may still complete


def _hints(*, applied_as: tuple[int, int] = (10, 7), delete_early: bool = False) -> list[Event]:
    events: list[Event] = [
        WritePlan(t=1, coord="c", rid=1, keyspace="kv", key="k", token=5, cl="ONE", epoch=1, coord_dc="dc1",
                  contacts=("n1",), down=("n2",), timestamp=10, value=7),
        HintStore(t=1, coord="c", target="n2", keyspace="kv", key="k", timestamp=10, value=7, reason="down")]
    deliver = HintDeliver(t=3, holder="c", target="n2", keyspace="kv", key="k", timestamp=10, value=7)
    if delete_early:
        events.append(deliver)
    events += [HintApply(t=2, node="n2", holder="c", keyspace="kv", key="k", token=5, timestamp=10, value=7,
                         epoch=1, answer="applied"),
               _store(2, "n2", "k", *applied_as, via="hint")]
    if not delete_early:
        events.append(deliver)
    return events


def test_a_replayed_hint_applies_its_write_and_is_deleted_once_received() -> None:
    verdict = check_hints(_hints(), held=())
    assert verdict.valid and dict(verdict.judged)["hints deleted"] == 1


def test_a_hint_applied_with_another_timestamp_fails() -> None:
    [v] = check_hints(_hints(applied_as=(99, 7))).violations
    assert v.detail == "n2 applied the hint of kv/k=7@10 as kv/k=7@99: not the write it was made for"


def test_a_hint_deleted_before_its_target_received_it_fails() -> None:
    [v] = check_hints(_hints(delete_early=True)).violations
    assert "deleted its hint of kv/k=7@10 for n2 before n2 acknowledged it" in v.detail


def test_a_hint_gone_from_its_holders_disk_without_an_acknowledgement_fails() -> None:
    events = [e for e in _hints() if not isinstance(e, HintDeliver)]
    assert check_hints(events, held=(StoredHint(holder="c", target="n2", keyspace="kv", key="k", timestamp=10,
                                                value=7),)).valid
    [v] = check_hints(events, held=()).violations
    assert "a hint went missing without one" in v.detail


def test_a_hint_for_a_replica_the_write_did_not_name_fails() -> None:
    events = _hints()
    events[1] = HintStore(t=1, coord="c", target="n9", keyspace="kv", key="k", timestamp=10, value=7, reason="down")
    assert "matches no write it planned for n9" in check_hints(events).violations[0].detail


def _read_repair(*, value: int = 7, targets: tuple[str, ...] = ("n2", "n3")) -> list[Event]:
    """n1 returns k=7, n2 an older cell; the plan n1,n2,n3 repairs n2 and n3 (not read)."""
    events: list[Event] = [
        ReadPlan(t=1, coord="n1", rid=1, keyspace="kv", key="k", token=5, cl="QUORUM", epoch=1, coord_dc="dc1",
                 contacts=("n1", "n2")),
        ReadResp(t=2, coord="n1", rid=1, replica="n1", timestamp=10, value=7),
        ReadResp(t=2, coord="n1", rid=1, replica="n2", timestamp=5, value=3),
        ReadResolve(t=2, coord="n1", rid=1, epoch=1, responders=("n1", "n2"), timestamp=10, value=7),
        ReadRepair(t=2, coord="n1", rid=1, epoch=1, plan=("n1", "n2", "n3"), targets=targets)]
    events += [ReadRepairWrite(t=2, coord="n1", rid=1, replica=r, timestamp=10, value=value) for r in targets]
    events += [ReadRepairAck(t=3, coord="n1", rid=1, replica=r) for r in targets]
    events.append(ReadDone(t=4, coord="n1", rid=1, outcome="ok", timestamp=10, value=7, epoch=1))
    return events


def test_a_blocking_read_repair_writes_the_resolved_cell_to_every_plan_member_lacking_it() -> None:
    verdict = check_read_repair(_read_repair())
    assert verdict.valid and dict(verdict.judged)["read repair writes"] == 2


def test_a_read_repair_that_skips_a_plan_member_not_read_fails() -> None:
    [v] = check_read_repair(_read_repair(targets=("n2",))).violations
    assert "not to plan member n3, which was not read" in v.detail
    assert ("repair", "plan n1,n2,n3 at e1, targets n2") in v.evidence


def test_a_read_repair_writing_another_value_than_the_resolved_one_fails() -> None:
    violations = check_read_repair(_read_repair(value=3)).violations
    assert "wrote 3@10 to n2 for kv/k; the read resolved 7@10" in violations[0].detail


def test_a_read_answered_over_disagreeing_responses_without_a_repair_fails() -> None:
    events = [e for e in _read_repair() if not isinstance(e, ReadRepair | ReadRepairWrite | ReadRepairAck)]
    [v] = check_read_repair(events).violations
    assert "though its responses disagreed (n1:7@10, n2:3@5), repairing nothing" in v.detail


FD = DetectorSettings(phi_convict_threshold=8.0, initial_ns=2 * S, max_interval_ns=2 * S)


def _fd(*convict_at: int) -> list[Event]:
    """n1 knows n2 from time 0 (an arrival recording the initial 2 s) and hears it every second
    until 10 s: 11 intervals of mean 12 / 11 s, so phi * (1 / ln 10) passes 8 after
    8 * ln 10 * 12 / 11 = 20.10 s of silence."""
    events: list[Event] = [FdStart(t=0, node="n1", generation=1, restarted=False, peers=("n2",))]
    events += [FdArrivals(t=i * S, node="n1", beats=(("n2", 1, i),)) for i in range(1, 11)]
    events += [FdConvict(t=t, node="n1", peer="n2") for t in convict_at]
    return events


def test_a_conviction_after_the_silence_phi_allows_is_kept() -> None:
    assert check_failure_detector(_fd(31 * S), FD).valid


def test_a_conviction_before_that_silence_fails_with_the_arrival_history() -> None:
    [v] = check_failure_detector(_fd(30 * S), FD).violations
    assert "before the silence exceeded what phi 8 allows" in v.detail
    assert v.evidence[0][1].startswith("last arrival 10.000 s, silence 20.000 s, 11 intervals of mean 1.091 s: "
                                    "phi * (1 / ln 10) = 7.962")


def test_a_revival_needs_contact_and_the_data_path_sees_the_history() -> None:
    events = _fd(31 * S)
    write = WritePlan(t=33 * S, coord="n1", rid=1, keyspace="kv", key="k", token=5, cl="ONE", epoch=1,
                      coord_dc="dc1", contacts=("n2",), down=(), timestamp=1, value=1)
    # marked UP with no heartbeat since the conviction: a guess
    assert "no heartbeat of it since it saw it go DOWN" in check_failure_detector(
        [*events, FdAlive(t=32 * S, node="n1", peer="n2")], FD).violations[0].detail
    # heard, echoed, then written to: kept
    heard = [*events, FdArrivals(t=32 * S, node="n1", beats=(("n2", 1, 11),)), FdAlive(t=32 * S, node="n1", peer="n2")]
    assert check_failure_detector([*heard, write], FD).valid
    # written to as UP with no echo: the detector changed its mind without saying why
    [v] = check_failure_detector([*events, write], FD).violations
    assert "to n2 as UP, which its failure detector's history holds DOWN" in v.detail


def test_a_status_check_convicts_every_peer_whose_silence_phi_no_longer_allows() -> None:
    check = FdStatusCheck(t=31 * S, node="n1")
    assert check_failure_detector([*_fd(), FdStatusCheck(t=30 * S, node="n1")], FD).valid  # phi 7.96: not yet
    assert check_failure_detector([*_fd(), check, FdConvict(t=31 * S, node="n1", peer="n2")], FD).valid
    [v] = check_failure_detector([*_fd(), check], FD).violations
    assert v.detail == ("n1's status check at 31.000 s left n2 UP, though its silence exceeded what phi allows "
                        "for its arrival history (a conviction is owed)")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([0, 2 * S, 2 * S + 1]) | st.integers(min_value=0, max_value=5 * S), min_size=1,
                max_size=40),
       st.integers(min_value=0, max_value=3 * S), st.sampled_from([SAMPLE_SIZE, 3]))
def test_the_pass_over_arrivals_keeps_the_window_of_view_arrive(gaps: list[int], initial: int, sample: int) -> None:
    """The check's pass pushes arrivals itself (a hot loop); `_View.arrive` states the rule.
    Over gaps of 0, within and past the maximum interval, and a window that overflows, a
    conviction is judged by the deadline `_View.arrive` gives: kept one instant after it, failed
    at it."""
    s = DetectorSettings(phi_convict_threshold=8.0, initial_ns=initial, max_interval_ns=2 * S)
    threshold = round(s.phi_convict_threshold * fd_check.THRESHOLD_SCALE)
    ref = fd_check._View((1, 0), True)
    ref.arrive(0, s, threshold)
    events: list[Event] = [FdStart(t=0, node="n1", generation=1, restarted=False, peers=("n2",))]
    t = 0
    old = fd_check.SAMPLE_SIZE
    fd_check.SAMPLE_SIZE = sample  # a small window overflows within 40 arrivals
    try:
        for i, gap in enumerate(gaps, start=1):
            t += gap
            events.append(FdArrivals(t=t, node="n1", beats=(("n2", 1, i),)))
            ref.arrive(t, s, threshold)
        if ref.deadline is None:
            return  # nothing recorded (an initial value of 0 and no interval since): phi is undefined
        at = check_failure_detector([*events, FdConvict(t=ref.deadline, node="n1", peer="n2")], s)
        after = check_failure_detector([*events, FdConvict(t=ref.deadline + 1, node="n1", peer="n2")], s)
    finally:
        fd_check.SAMPLE_SIZE = old
    assert not at.valid and after.valid
