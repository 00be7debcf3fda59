"""The failure detector (impl/node/failure_detector.py): what each node can observe of its peers'
liveness, from gossip heartbeats and phi (Cassandra's FailureDetector and Gossiper)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from campaign.formats.scenario import parse_scenario
from impl.cluster import Cluster
from impl.node.failure_detector import ArrivalWindow

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
MS = 1_000_000


def _cluster(**faults: Any) -> Cluster:
    doc = json.loads((EXAMPLES / "simulate-basic.json").read_text())
    doc["faults"].update(faults)
    doc["settings"]["gossip_interval_ms"] = 100
    return Cluster(parse_scenario(doc), 1)


def _views(c: Cluster) -> dict[str, bool]:
    """peer -> seen alive, by every running node other than n3, about n3."""
    return {nid: node.failure_detector.is_alive("n3") for nid, node in c.nodes.items()
            if node is not None and nid != "n3"}


def test_a_crashed_node_is_convicted_by_every_peer_then_seen_up_after_its_restart() -> None:
    c = _cluster(crashes=[{"node": "n3", "at_ms": 1000, "restart_ms": 6000}])
    c.run_until(1500 * MS)
    assert all(_views(c).values())  # silent for 5 intervals: not yet (phi needs ~18 mean intervals)
    c.run_until(5900 * MS)
    assert not any(_views(c).values())
    for nid, node in c.nodes.items():
        if node is not None and nid != "n3":
            down = node.failure_detector.downtime("n3")
            assert 1000 * MS < down < 4000 * MS  # convicted 1-4 s after the crash (~18 mean intervals)
    c.run_until(6500 * MS)  # a gossip round and an echo later
    assert all(_views(c).values())
    assert all(n.failure_detector.downtime("n3") == 0 for n in c.nodes.values() if n is not None)


def test_a_restarted_node_sees_its_peers_down_until_gossip_and_an_echo() -> None:
    c = _cluster(crashes=[{"node": "n3", "at_ms": 1000, "restart_ms": 1200}])
    c.run_until(1200 * MS)
    n3 = c.nodes["n3"]
    assert n3 is not None and n3.failure_detector.live_members() == []
    assert n3.failure_detector.is_alive("n3")
    c.run_until(1600 * MS)
    assert n3.failure_detector.live_members() == ["n1", "n2", "n4", "n5"]
    # a restart too quick for a conviction leaves no downtime on the peers (a new generation
    # marks the node not alive only until its echo returns)
    assert all(_views(c).values())


def test_a_partition_convicts_both_sides_and_a_heal_brings_them_back() -> None:
    c = _cluster(partitions=[{"isolate": ["n3"], "start_ms": 1000, "heal_ms": 6000}])
    c.run_until(5900 * MS)
    assert not any(_views(c).values())
    n3 = c.nodes["n3"]
    assert n3 is not None and n3.failure_detector.live_members() == []
    c.run_until(7000 * MS)
    assert all(_views(c).values()) and len(n3.failure_detector.live_members()) == 4


def test_phi_convicts_past_the_threshold_in_mean_intervals() -> None:
    w = ArrivalWindow(8 * 10**6)  # phi_convict_threshold 8 in millionths
    for t in range(0, 1001, 100):  # first sample 200 (the initial value), then 100 each
        w.add(t, 200, 200)
    mean = (200 + 100 * 10) / 11
    limit = 8 * 2.302585093 * mean  # silence past which phi / ln 10 exceeds 8
    assert not w.convicts(1000 + int(limit) - 1)
    assert w.convicts(1000 + int(limit) + 1)
    w.add(5000, 200, 200)  # an interval above the maximum is not recorded
    assert not w.convicts(5000 + int(limit) - 1)


def test_the_detector_is_deterministic() -> None:
    def run() -> tuple[str, tuple[tuple[str, int], ...]]:
        c = _cluster(crashes=[{"node": "n2", "at_ms": 500, "restart_ms": 4000}], loss=0.05)
        r = c.run()
        return r.trace_hash, r.counters
    assert run() == run()


def test_a_node_nobody_gossips_to_still_hears_every_peer_through_the_answers() -> None:
    """Every gossip message is answered (GossipDigestSynVerbHandler.doVerb always sends a
    GossipDigestAck). With every choice at its default (a decision list with no entry: a shrunk
    case's schedule) each node gossips to the first peer it sees up, so n3, n4 and n5 are never
    gossiped to; they hear their peers' heartbeats only in the answers to their own gossip. When
    only a sender behind was answered, their failure detectors convicted every peer."""
    doc = json.loads((EXAMPLES / "simulate-basic.json").read_text())
    doc["settings"]["gossip_interval_ms"] = 100
    doc["decisions"] = []
    c = Cluster(parse_scenario(doc), 1)
    c.run_until(8000 * MS)
    for nid, node in c.nodes.items():
        assert node is not None
        assert node.failure_detector.live_members() == sorted(set(c.nodes) - {nid}), nid
    assert c.counters.get("fd_convictions", 0) == 0
