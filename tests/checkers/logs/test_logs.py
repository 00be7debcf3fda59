"""Log invariants over node logs, commit attempts and snapshots, with toy spec callables."""

from __future__ import annotations

import pickle

import pytest

from checkers.logs import (
    CommitAttempt,
    LogEntry,
    NodeLog,
    Snapshot,
    check_commit_order,
    check_epochs,
    check_logs,
    check_prefixes,
    check_rejections,
    check_snapshots,
    check_unique_epochs,
)
from checkers.logs.verdict import (
    DUPLICATE_EPOCH,
    EPOCH_GAP,
    LOG_TOO_SHORT,
    NOT_A_PREFIX,
    REAL_TIME_ORDER,
    SNAPSHOT_MISMATCH,
    UNJUSTIFIED_REJECTION,
)


def entry(epoch: int, node: str = "X") -> LogEntry:
    return LogEntry(
        epoch=epoch,
        entry_id=f"e{epoch}",
        kind="REGISTER",
        transformation={"kind": "REGISTER", "node": {"id": f"{node}{epoch}", "dc": "dc1", "rack": "r1"}},
    )


LOG = tuple(entry(e) for e in range(1, 6))


def test_logs_that_agree_pass_every_check() -> None:
    logs = [NodeLog(node="A", entries=LOG), NodeLog(node="B", entries=LOG[:3])]
    commits = [
        CommitAttempt(entry_id=e.entry_id, kind=e.kind, transformation=e.transformation,
                      invoked=10 * e.epoch, completed=10 * e.epoch + 5, epoch=e.epoch)
        for e in LOG
    ]
    verdict = check_logs(logs, commits, justify_rejection=lambda *_: True, replay=len)
    assert verdict.valid is True and verdict.evidence == ()


def test_transformations_are_frozen_so_entries_compare_by_content() -> None:
    a, b = entry(1), entry(1)
    assert a == b and hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a


def test_an_epoch_skipped_in_a_node_log_is_a_gap() -> None:
    v = check_epochs([NodeLog(node="A", entries=(LOG[0], LOG[2]))])
    assert v.valid is False and v.evidence[0].invariant == EPOCH_GAP and v.evidence[0].epoch == 3


def test_an_epoch_repeated_in_a_node_log_is_a_gap_too() -> None:
    v = check_epochs([NodeLog(node="A", entries=(LOG[0], LOG[0]))])
    assert v.valid is False and v.evidence[0].invariant == EPOCH_GAP


def test_one_epoch_with_two_contents_is_a_duplicate() -> None:
    other = entry(2, node="Y")
    logs = [NodeLog(node="A", entries=LOG[:2]), NodeLog(node="B", entries=(LOG[0], other))]
    v = check_unique_epochs(logs)
    assert v.valid is False and v.evidence[0].invariant == DUPLICATE_EPOCH
    assert set(v.evidence[0].entries) == {LOG[1], other}


def test_a_commit_acknowledged_at_an_epoch_must_match_the_log_there() -> None:
    logs = [NodeLog(node="A", entries=LOG[:2])]
    told = CommitAttempt(entry_id="zz", kind="REGISTER", transformation={"kind": "REGISTER"},
                         invoked=0, completed=1, epoch=2)
    v = check_unique_epochs(logs, [told])
    assert v.valid is False and v.evidence[0].attempts == (told,)


def test_a_log_that_diverges_from_the_longest_is_not_a_prefix() -> None:
    logs = [NodeLog(node="A", entries=LOG), NodeLog(node="B", entries=(LOG[0], entry(2, node="Y")))]
    v = check_prefixes(logs)
    assert v.valid is False
    bad = v.evidence[0]
    assert bad.invariant == NOT_A_PREFIX and bad.node == "B" and bad.epoch == 2


def attempt(i: int, invoked: int, completed: int | None, **outcome: object) -> CommitAttempt:
    return CommitAttempt(entry_id=f"c{i}", kind="REGISTER", transformation={"i": i},
                         invoked=invoked, completed=completed, **outcome)  # type: ignore[arg-type]


def test_commits_ordered_by_epoch_must_respect_real_time() -> None:
    ok = [attempt(1, 0, 10, epoch=1), attempt(2, 5, 20, epoch=3), attempt(3, 6, 8, epoch=2)]
    assert check_commit_order(ok).valid is True
    backwards = [attempt(1, 0, 10, epoch=2), attempt(2, 11, 20, epoch=1)]
    v = check_commit_order(backwards)
    assert v.valid is False and v.evidence[0].invariant == REAL_TIME_ORDER


def test_touching_intervals_are_concurrent() -> None:
    """A commit that returns at t and one invoked at t may be ordered either way."""
    assert check_commit_order([attempt(1, 0, 10, epoch=2), attempt(2, 10, 20, epoch=1)]).valid is True


def test_an_unknown_outcome_can_account_for_a_missing_epoch() -> None:
    assert check_commit_order([attempt(1, 0, 10, epoch=2)]).valid is False
    assert check_commit_order([attempt(0, 0, None), attempt(1, 1, 10, epoch=2)]).valid is True


def test_a_rejection_must_be_decided_at_an_epoch_current_during_its_call() -> None:
    late = [attempt(1, 0, 10, epoch=1), attempt(2, 20, 30, rejected="locked", decided_at=0)]
    v = check_commit_order(late)
    assert v.valid is False
    assert {a.entry_id for a in v.evidence[0].attempts} == {"c1", "c2"}
    fine = [attempt(1, 0, 10, epoch=1), attempt(2, 5, 30, rejected="locked", decided_at=0)]
    assert check_commit_order(fine).valid is True


def test_every_rejection_is_replayed_against_the_log_up_to_its_epoch() -> None:
    seen: list[tuple[int, str]] = []

    def justify(entries: tuple[LogEntry, ...], transformation: object, reason: str) -> bool:
        seen.append((len(entries), reason))
        return reason == "locked" and len(entries) == 2

    rejections = [
        attempt(7, 0, 1, rejected="locked", decided_at=2),
        attempt(8, 0, 1, rejected="unknown node", decided_at=3),
        attempt(9, 0, 1, rejected="locked", decided_at=9),
    ]
    v = check_rejections(rejections, LOG, justify)
    assert seen == [(2, "locked"), (3, "unknown node")]
    assert [(x.invariant, x.attempts[0].entry_id) for x in v.evidence] == [
        (UNJUSTIFIED_REJECTION, "c8"),
        (LOG_TOO_SHORT, "c9"),
    ]


def test_a_snapshot_equals_the_replay_of_the_log_up_to_its_epoch() -> None:
    replay = lambda entries: tuple(e.epoch for e in entries)  # noqa: E731 (a toy spec)
    good = Snapshot(node="A", epoch=3, state=(1, 2, 3))
    bad = Snapshot(node="B", epoch=4, state=(1, 2, 3))
    v = check_snapshots([good, bad], LOG, replay)
    assert v.valid is False
    assert [(x.invariant, x.node, x.epoch) for x in v.evidence] == [(SNAPSHOT_MISMATCH, "B", 4)]
    assert check_snapshots([good], LOG, replay).valid is True


def test_a_rejection_needs_the_epoch_it_was_decided_at() -> None:
    with pytest.raises(ValueError, match="decided_at"):
        attempt(1, 0, 1, rejected="locked")
    with pytest.raises(ValueError, match="not both"):
        attempt(1, 0, 1, rejected="locked", decided_at=0, epoch=1)


def test_check_logs_lists_every_violation_in_a_fixed_order() -> None:
    logs = [NodeLog(node="A", entries=(LOG[0], LOG[2])), NodeLog(node="B", entries=(entry(1, "Y"),))]
    v = check_logs(logs, [attempt(1, 0, 10, epoch=2)])
    assert [x.invariant for x in v.evidence] == [EPOCH_GAP, DUPLICATE_EPOCH, NOT_A_PREFIX, REAL_TIME_ORDER]
    assert v.cause == EPOCH_GAP
    assert pickle.loads(pickle.dumps(v)) == v


def test_a_log_that_starts_at_a_snapshot_is_compared_epoch_by_epoch() -> None:
    """A node that caught up from a snapshot holds only the entries after it."""
    from checkers.logs import LogEntry, NodeLog, check_prefixes

    full = tuple(LogEntry(epoch=e, entry_id=f"id{e}", kind="TRIGGER_SNAPSHOT", transformation={}) for e in range(1, 6))
    tail = NodeLog(node="late", entries=full[3:])
    assert check_prefixes([NodeLog(node="cms", entries=full), tail]).valid is True
    forged = NodeLog(node="late", entries=(full[3], LogEntry(epoch=5, entry_id="x", kind="TRIGGER_SNAPSHOT", transformation={})))
    assert check_prefixes([NodeLog(node="cms", entries=full), forged]).valid is False


def test_an_entry_id_committed_at_two_epochs_is_named_as_such() -> None:
    from checkers.logs import check_unique_entry_ids
    from checkers.logs.verdict import DUPLICATE_ENTRY_ID

    twice = LogEntry(epoch=4, entry_id="e2", kind=LOG[1].kind, transformation=LOG[1].transformation)
    log = (*LOG[:3], twice)
    verdict = check_unique_entry_ids([NodeLog(node="A", entries=log)])
    assert verdict.valid is False
    (v,) = verdict.evidence
    assert v.invariant == DUPLICATE_ENTRY_ID and v.epoch == 4
    assert dict(v.detail) == {"entry_id": "e2", "first_epoch": 2}
    assert check_logs([NodeLog(node="A", entries=log)]).cause == DUPLICATE_ENTRY_ID
    assert check_unique_entry_ids([NodeLog(node="A", entries=LOG)]).valid is True
