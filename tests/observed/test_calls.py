"""Calls recorded where both ends are known (impl/history.py, observed/calls.py): the event
history a checker reads is given back exactly, in the order the run recorded its events, and
the calls that completed come in the order they completed — so no reader pairs events again."""

from __future__ import annotations

from impl.history import History
from impl.sim.clock import VirtualClock
from observed.calls import completed, history_of
from observed.frozen import FrozenMap


def _recorded() -> History:
    clock = VirtualClock()
    h = History(clock)
    w1 = h.invoke_client(coordinator="n1", f="write", keyspace="kv", key="k0", value=1, level="QUORUM")
    r = h.invoke_client(coordinator="n2", f="read", keyspace="kv", key="k0", value=None, level="ONE")
    h.invoke_client(coordinator="n1", f="write", keyspace="kv", key="k0", value=3, level="ALL")  # never completes
    clock.advance_to(20)
    h.complete_client(r, "ok", 1)  # completes first though invoked second
    clock.advance_to(30)
    h.complete_client(w1, "info")  # timed out: a completed call all the same
    w2 = h.invoke_client(coordinator="n1", f="write", keyspace="kv", key="k0", value=2, level="QUORUM")
    clock.advance_to(40)
    h.complete_client(w2, "fail")
    return h


def test_the_event_history_is_the_order_of_recording_with_values_as_the_checker_reads_them() -> None:
    events = history_of(_recorded().clients)
    assert [(e.process, e.type, e.f, e.value) for e in events] == [
        (0, "invoke", "write", 1), (1, "invoke", "read", None), (2, "invoke", "write", 3),
        (1, "ok", "read", 1), (0, "info", "write", 1), (3, "invoke", "write", 2), (3, "fail", "write", 2)]
    assert [e.time for e in events] == [0, 0, 0, 20, 30, 30, 40]


def test_completed_calls_come_in_the_order_they_completed_and_open_ones_are_left_out() -> None:
    calls = completed(_recorded().clients)
    assert [(c.process, c.outcome, c.invoked, c.completed) for c in calls] == [
        (1, "ok", 0, 20), (0, "info", 0, 30), (3, "fail", 30, 40)]
    assert [c.read for c in calls] == [1, None, None]
    assert [c.written for c in calls] == [None, 1, 2]


def test_a_failed_read_shows_nothing_read() -> None:
    h = History(VirtualClock())
    p = h.invoke_client(coordinator="n1", f="read", keyspace="kv", key="k", value=None, level="ONE")
    h.complete_client(p, "fail", 7)
    assert [e.value for e in history_of(h.clients)] == [None, None]


def test_a_commit_call_gives_the_log_model_its_values_in_the_order_of_recording() -> None:
    h = History(VirtualClock())
    p = h.invoke_commit(node="n1", entry_id="n1:0", transformation='{"kind":"TRIGGER_SNAPSHOT"}')
    q = h.invoke_commit(node="n2", entry_id="n2:0", transformation='{"kind":"TRIGGER_SNAPSHOT"}')
    h.complete_commit(q, "fail", rejection="no", epoch=3)
    h.complete_commit(p, "ok", epoch=4)
    t = FrozenMap(items_={"kind": "TRIGGER_SNAPSHOT"})
    assert [(e.process, e.type, e.value) for e in history_of(h.commits)] == [
        (0, "invoke", FrozenMap(items_={"transformation": t, "entry_id": "n1:0"})),
        (1, "invoke", FrozenMap(items_={"transformation": t, "entry_id": "n2:0"})),
        (1, "fail", FrozenMap(items_={"transformation": t, "entry_id": "n2:0", "rejection": "no", "epoch": 3})),
        (0, "ok", FrozenMap(items_={"transformation": t, "entry_id": "n1:0", "epoch": 4}))]
