"""The simulator's parts, one behaviour each: ordered apply, fetch dedup, the bus, crashes,
the election, the event queue."""

from __future__ import annotations

import json
import random
from collections import defaultdict

from impl.bus import Bus, NetworkFaults
from impl.cluster import Cluster, run_scenario
from impl.engine import Executor, MetadataEngine
from impl.entry import Entry, canonical_json
from impl.messages import Gossip, Message
from impl.node.log import LocalLog, initial_disk
from impl.scenario import Crash, Initialize, Partition
from impl.settings import Settings
from impl.sim.clock import VirtualClock, ms_to_ns
from impl.sim.decisions import Decisions
from impl.sim.events import EventQueue
from impl.trace import Trace

from .helpers import FAULTY, scenario, schema, submit, topology

# The params of the base keyspace: a keyspace created with params in use does not affect placements,
# so AlterSchema accepts it even while the CMS reconfiguration the cluster starts with holds its lock.
SHARED = {"class": "SimpleStrategy", "replication_factor": 3}


def entries(n: int) -> list[Entry]:
    return [Entry(epoch=i, entry_id=f"x:{i}", kind="SCHEMA_CHANGE",
                  transformation=schema("CREATE_KEYSPACE", keyspace=f"k{i}", replication=SHARED))
            for i in range(1, n + 1)]


def test_a_node_applies_entries_strictly_in_epoch_order_buffering_early_ones() -> None:
    engine = MetadataEngine()
    applied: list[int] = []
    log = LocalLog(disk=initial_disk(engine.from_topology(topology(3))),
                   executor=Executor(engine), snapshot_interval=100,
                   on_apply=lambda e, s: applied.append(e.epoch if e else -1),
                   on_apply_failure=lambda e, r: None)
    es = entries(6)
    for i in (3, 5, 2, 6):
        assert not log.offer(es[i - 1])
    assert log.applied == 0 and sorted(log.pending) == [2, 3, 5, 6]
    assert log.offer(es[0])
    assert applied == [1, 2, 3] and sorted(log.pending) == [5, 6]
    log.offer(es[3])
    assert applied == [1, 2, 3, 4, 5, 6] and not log.pending
    assert log.metadata.epoch == 6
    assert not log.offer(es[1])  # duplicates are ignored


def test_one_fetch_per_epoch_however_many_messages_reveal_it() -> None:
    sc = scenario(3, cms_size=0)
    c = Cluster(sc, 1)
    n3 = c.nodes["n03"]
    assert n3 is not None
    for _ in range(10):
        n3.deliver(Gossip(sender="n01", epoch=5))
    assert c.counters["fetches"] == 1
    assert c.counters["fetches_deduplicated"] == 9


def test_a_fetch_that_times_out_is_retried_against_a_cms_member() -> None:
    sc = scenario(3, cms_size=1, submissions=tuple(
        submit("n01", 10 + i, schema("CREATE_KEYSPACE", keyspace=f"k{i}", replication=SHARED))
        for i in range(5)),
        partitions=(Partition(groups=(("n02",), ("n03",)), start=ms_to_ns(0),
                              heal=ms_to_ns(5000)),))
    c = Cluster(sc, 1)
    c.run_until(ms_to_ns(1000))
    n3 = c.nodes["n03"]
    assert n3 is not None
    n3.deliver(Gossip(sender="n02", epoch=5))  # n02 is unreachable from n03: times out
    r = c.run()
    assert r.counter("fetch_timeouts") >= 1 and r.counter("fetch_retries") >= 1
    assert r.node("n03").applied_epoch == r.final_epoch


class _Sink:
    def __init__(self) -> None:
        self.got: list[tuple[int, str, Message]] = []


def _bus(faults: NetworkFaults, up: set[str]) -> tuple[Bus, EventQueue, _Sink, dict[str, int]]:
    clock = VirtualClock()
    q = EventQueue(clock)
    sink = _Sink()
    counters: dict[str, int] = defaultdict(int)
    bus = Bus(queue=q, decisions=Decisions(random.Random(1)), trace=Trace(clock), counters=counters,
              faults=faults, deliver=lambda d, m: sink.got.append((clock.now, d, m)),
              is_up=lambda n: n in up)
    return bus, q, sink, counters


def _drain(q: EventQueue) -> None:
    while (ev := q.pop_until(2**63)) is not None:
        ev.fn(*ev.args)


def test_the_bus_loses_duplicates_reorders_and_partitions_as_configured() -> None:
    bus, q, sink, counters = _bus(NetworkFaults(loss=0.3, duplicate=0.2), {"a", "b", "c"})
    for i in range(1000):
        bus.send("a", "b", Gossip(sender="a", epoch=i))
    _drain(q)
    assert len(sink.got) == 1000 - counters["messages_dropped"] + counters["messages_duplicated"]
    assert 200 < counters["messages_dropped"] < 400
    assert counters["messages_duplicated"] > 100
    order = [m.epoch for _, _, m in sink.got]
    assert order != sorted(order)  # random latency reorders
    bus, q, sink, counters = _bus(NetworkFaults(), {"a", "b", "c"})
    bus.partition("p", (("a",),), ["a", "b", "c"])
    bus.send("a", "b", Gossip(sender="a", epoch=-1))
    bus.send("b", "c", Gossip(sender="b", epoch=-2))
    _drain(q)
    assert [m.epoch for _, d, m in sink.got[-1:]] == [-2]
    bus.heal("p", ["a", "b", "c"])
    bus.send("a", "b", Gossip(sender="a", epoch=-3))
    _drain(q)
    assert sink.got[-1][2].epoch == -3


def test_a_crash_loses_memory_and_keeps_the_log() -> None:
    subs = tuple(submit("n01", 100 + 10 * i, schema("CREATE_KEYSPACE", keyspace=f"k{i}",
                                                    replication=SHARED)) for i in range(20))
    sc = scenario(3, cms_size=3, submissions=subs,
                  crashes=(Crash(node="n03", at=ms_to_ns(200), restart=ms_to_ns(5000)),))
    c = Cluster(sc, 2)
    c.run_until(ms_to_ns(199))
    applied = c.nodes["n03"].log.applied  # type: ignore[union-attr]
    c.run_until(ms_to_ns(200))
    assert c.nodes["n03"] is None
    before = max(c.disks["n03"].entries, default=0)
    assert before >= applied  # persisted, not lost
    c.run_until(ms_to_ns(4999))
    assert max(c.disks["n03"].entries, default=0) == before  # a down node applies nothing
    c.run_until(ms_to_ns(5000))
    assert c.nodes["n03"].log.applied >= before  # type: ignore[union-attr]
    r = c.run()
    assert r.node("n03").applied_epoch == r.final_epoch
    assert len({n.log_hash for n in r.nodes}) == 1


def _gossip_topology(n: int) -> str:
    return canonical_json(topology(n))


def test_initialization_from_gossip_commits_initialize_cms_then_grows_the_cms() -> None:
    sc = scenario(5, initialize=Initialize(initiator="n01", at=ms_to_ns(10)))
    r = run_scenario(sc, 1)
    kinds = [e.kind for e in r.node("n05").entries]
    assert kinds[0] == "INITIALIZE_CMS"
    assert "PREPARE_CMS_RECONFIGURATION" in kinds
    assert len({n.log_hash for n in r.nodes}) == 1


def _election_failure(sc):  # type: ignore[no-untyped-def]
    r = run_scenario(sc, 1)
    fails = [c.rejection for c in r.commits if c.outcome == "fail"]
    assert r.final_epoch == 0
    return fails[0]


def test_initialization_fails_on_mismatching_peers() -> None:
    other = topology(5)
    other["nodes"][2]["rack"] = "r9"
    sc = scenario(5, initialize=Initialize(initiator="n01", views=(("n03", canonical_json(other)),)))
    assert _election_failure(sc) == ("Got mismatching cluster metadatas. Check logs on peers "
                                     "([n03])")


def test_initialization_fails_when_a_peer_does_not_answer() -> None:
    sc = scenario(4, initialize=Initialize(initiator="n01", at=ms_to_ns(100)),
                  crashes=(Crash(node="n04", at=0),))
    assert _election_failure(sc) == "Did not get response from n04"
    sc = scenario(4, initialize=Initialize(initiator="n01", at=ms_to_ns(100), ignore=("n04",)),
                  crashes=(Crash(node="n04", at=0),))
    r = run_scenario(sc, 1)
    assert r.node("n01").applied_epoch >= 1


def test_initialization_runs_the_gates_of_initialize_cms() -> None:
    sc = scenario(4, initialize=Initialize(initiator="n01", versions=(("n02", "5.0.2"),)))
    assert _election_failure(sc) == "All nodes are not yet upgraded - n02 is running 5.0.2"
    sc = scenario(4, initialize=Initialize(initiator="n01", ignore=("zz",)))
    assert "don't exist in the cluster" in _election_failure(sc)


def test_submissions_before_the_cms_exists_wait_and_then_commit() -> None:
    sc = scenario(3, initialize=Initialize(initiator="n01", at=ms_to_ns(300)),
                  submissions=(submit("n02", 10, schema("CREATE_KEYSPACE", keyspace="early",
                                                        replication=SHARED)),),
                  settings=Settings(max_submit_attempts=20, end_time_ns=ms_to_ns(60_000)))
    r = run_scenario(sc, 1)
    assert [c.outcome for c in r.commits if c.node == "n02"] == ["ok"]


def test_the_event_queue_orders_by_time_then_by_scheduling() -> None:
    q = EventQueue(VirtualClock())
    seen: list[str] = []
    q.at(5, seen.append, "b")
    q.at(1, seen.append, "a")
    q.at(5, seen.append, "c")
    ev = q.at(3, seen.append, "x")
    q.cancel(ev)
    _drain(q)
    assert seen == ["a", "b", "c"] and q.pending_work == 0


def test_faults_do_not_break_a_small_run() -> None:
    sc = scenario(5, network=FAULTY, submissions=(submit("n02", 1, schema(
        "CREATE_KEYSPACE", keyspace="k", replication=SHARED)),))
    assert run_scenario(sc, 3).final_epoch >= 1


def test_a_commit_request_sent_to_a_node_outside_the_cms_is_forwarded_to_a_member() -> None:
    from impl.messages import Submit

    sc = scenario(5, cms_size=3)
    c = Cluster(sc, 1)
    c.run_until(ms_to_ns(1000))
    n05 = c.nodes["n05"]
    assert n05 is not None
    n05.deliver(Submit(sender="n04", epoch=0, origin="n04", entry_id="n04:99",
                       transformation=schema("CREATE_KEYSPACE", keyspace="fwd",
                                             replication=SHARED)))
    r = c.run()
    assert r.counter("forwards") == 1
    assert any(e.entry_id == "n04:99" for e in r.node("n04").entries)


def test_runs_do_not_depend_on_the_interpreters_hash_seed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[3] / "examples" / "simulate-faults.json"
    hashes = set()
    for hash_seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-m", "campaign", "simulate", str(example), "--seed", "5"],
            capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed})
        hashes.add(json.loads(out.stdout)["trace_hash"])
    assert len(hashes) == 1


def test_the_simulator_runs_on_any_engine_with_the_metadata_interface() -> None:
    """The distributed part decides nothing about transformations: swap the engine and the
    cluster still keeps one log."""
    from impl.scenario import Workload

    from .standin import StandinEngine

    sc = scenario(7, cms_size=5, network=FAULTY, workloads=(
        Workload(count=200, start=ms_to_ns(200), spread=ms_to_ns(3000), names=3),))
    r = run_scenario(sc, 4, engine=StandinEngine())
    assert r.quiescent and not r.conflicts and not r.apply_failures
    assert r.final_epoch > 20 and len({n.log_hash for n in r.nodes}) == 1
