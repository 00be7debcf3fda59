"""A replica that misses writes while it is down and comes back (issue 22's acceptance): hinted
handoff brings it the writes, without hints the judge reports the stale reads (not a loss), and
an anti-entropy repair heals it; a write at ANY with every replica down is a stored hint,
delivered later."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.errors import BadInput
from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import Judgement, judge
from impl.cluster import run_scenario
from observed.frozen import thaw
from observed.run import Observed


def down_replica(**settings: Any) -> dict[str, Any]:
    """RF 3 on n1..n3; n3 is down from 0.5 s to 4 s while n1 and n2 write k0 at QUORUM
    (1-2.5 s); from 7 s clients read k0 at ONE through n3, which reads itself first."""
    nodes = [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [-(2**62) + i * 2**61]} for i in (1, 2, 3)]
    return {
        "topology": {"nodes": nodes, "keyspaces": [
            {"name": "kv", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]},
        "cms": {"members": ["n1"]},
        "clients": [{"keyspace": "kv", "count": 20, "start_ms": 1000, "spread_ms": 1500, "keys": 1,
                     "writes": 1.0, "write_cl": ["QUORUM"], "nodes": ["n1", "n2"]},
                    {"keyspace": "kv", "count": 10, "start_ms": 7000, "spread_ms": 1000, "keys": 1,
                     "writes": 0.0, "read_cl": ["ONE"], "nodes": ["n3"]}],
        "faults": {"crashes": [{"node": "n3", "at_ms": 500, "restart_ms": 4000}]},
        "settings": {"gossip_interval_ms": 100, "hint_dispatch_interval_ms": 500, **settings},
    }


def run(doc: dict[str, Any], seed: int = 1) -> tuple[Observed, Judgement]:
    scenario = parse_scenario(doc)
    result = run_scenario(scenario, seed)
    return result, judge(scenario, result)


def reads(result: Observed) -> list[Any]:
    return [thaw(op.value) for op in result.client_history if op.f == "read" and op.type == "ok"]


def last_write(result: Observed) -> int:
    """The newest acknowledged write of k0 (by its timestamp: values are numbered in the order
    they were generated, not issued): what n1, which took every write, holds at the end."""
    (key,) = result.cells
    return next(c.value for c in key.cells if c.replica == "n1")


@pytest.mark.parametrize("seed", [1, 2])
def test_with_hints_the_replica_gets_the_writes_it_missed(seed: int) -> None:
    result, verdict = run(down_replica(), seed)
    assert verdict.valid, verdict.causes()
    assert result.counter("hints_replayed") >= 1
    assert reads(result) and set(reads(result)) == {last_write(result)}
    stored = [e for e in result.protocol_trace().stores if e.node == "n3" and e.via == "hint"]
    assert stored  # the cells reached n3 by hint delivery


@pytest.mark.parametrize("seed", [1, 2])
def test_without_hints_or_repair_the_judge_reports_stale_not_lost(seed: int) -> None:
    result, verdict = run(down_replica(hinted_handoff_enabled=False), seed)
    assert result.counter("hints_replayed") == 0
    assert None in reads(result)  # n3 still holds nothing of k0
    durability = verdict.summary()["durability"]
    assert durability["lost"] == []
    assert durability["stale"] and all("still stale at the end" in s for s in durability["stale"])
    assert not any(c.family == "durability" for c in verdict.causes())  # stale at ONE is no failure


@pytest.mark.parametrize("seed", [1, 2])
def test_a_repair_heals_the_stale_replica(seed: int) -> None:
    doc = {**down_replica(hinted_handoff_enabled=False), "repairs": [{"at_ms": 5500, "keyspace": "kv"}]}
    result, verdict = run(doc, seed)
    assert verdict.valid, verdict.causes()
    assert result.counter("repair_syncs") >= 2  # n3 <-> n1 and n3 <-> n2, both ways
    assert set(reads(result)) == {last_write(result)}
    assert [e for e in result.protocol_trace().stores if e.node == "n3" and e.via == "repair"]


def test_a_write_at_any_with_every_replica_down_is_a_hint_delivered_later() -> None:
    nodes = [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [-(2**62) + i * 2**61]} for i in (1, 2, 3)]
    doc = {
        "topology": {"nodes": nodes, "keyspaces": [
            {"name": "kv", "replication": {"class": "NetworkTopologyStrategy", "dc1": 1}}]},
        "cms": {"members": ["n2"]},
        "clients": [{"keyspace": "kv", "count": 6, "start_ms": 4000, "spread_ms": 500, "keys": 1,
                     "writes": 1.0, "write_cl": ["ANY"], "nodes": ["n2"]},
                    {"keyspace": "kv", "count": 3, "start_ms": 12000, "spread_ms": 500, "keys": 1,
                     "writes": 0.0, "read_cl": ["ONE"], "nodes": ["n2"]}],
        "faults": {"crashes": [{"node": "n1", "at_ms": 500, "restart_ms": 8000}]},
        "settings": {"gossip_interval_ms": 100, "hint_dispatch_interval_ms": 500},
    }
    result, verdict = run(doc)
    # k0's only replica is n1 (RF 1, the ring wraps to n1), down and convicted when the writes come
    assert result.counter("hints_stored_any") >= 1 and result.counter("writes_any") == 6
    assert sum(1 for op in result.client_history if op.f == "write" and op.type == "ok") == 6
    assert result.counter("write_timeouts") == 0  # the stored hint answered at once
    assert result.counter("hints_replayed") >= 1 and verdict.valid, verdict.causes()
    (key,) = result.cells
    assert set(reads(result)) == {key.cells[0].value}  # what n1 holds once the hints are replayed


def test_repair_events_and_levels_are_checked_before_the_run() -> None:
    doc = down_replica()
    with pytest.raises(BadInput, match="ANY ConsistencyLevel is only supported for writes"):
        parse_scenario({**doc, "clients": [{**doc["clients"][1], "read_cl": ["ANY"]}]})
    with pytest.raises(BadInput, match=r"repairs\[0\]\.range: expected \[left, right\]"):
        parse_scenario({**doc, "repairs": [{"at_ms": 1, "keyspace": "kv", "range": [1]}]})
    with pytest.raises(BadInput, match=r"repairs\[0\]: unknown field .full."):
        parse_scenario({**doc, "repairs": [{"at_ms": 1, "keyspace": "kv", "full": True}]})


def test_a_sub_range_repair_must_lie_inside_a_range_of_the_node() -> None:
    doc = {**down_replica(), "repairs": [{"at_ms": 5000, "keyspace": "kv", "node": "n1",
                                          "range": [-(2**62) + 2**61 + 5, -(2**62) + 3 * 2**61 + 5]}]}
    result, _ = run(doc)
    done = result.protocol_trace().repair_dones
    assert done and "not fully contained" in done[0].outcome
