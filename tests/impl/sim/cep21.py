"""The CEP-21 scenarios shared by the fixed-seed and the 1,000-seed tests: a bootstrap under
QUORUM client load (examples/simulate-cep21-bootstrap*.json), and a bootstrap followed by the
old owner's leave while one replica is down, which loses an acknowledged write for good in
the gossip-era baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from impl.cluster import Cluster
from observed.frozen import thaw
from observed.run import Observed

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def bootstrap(mode: str) -> dict[str, Any]:
    name = "simulate-cep21-bootstrap-gossip.json" if mode == "gossip" else "simulate-cep21-bootstrap.json"
    doc: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return doc


def lost_after_bootstrap(mode: str) -> dict[str, Any]:
    """The CEP's second example: j1 joins a 4-node RF 3 ring and takes (n2, j1] from n1 (A);
    n3 (B) and n4 (C) keep it. Clients write at QUORUM while n4 is down for a while, so a
    write can land on n1 and n3 only; once the join is over (n1 has given the range up), n3
    crashes for good, and late QUORUM reads can only use j1 and n4."""
    quarter = 2**64 // 4
    nodes = [{"id": f"n{i}", "dc": "dc1", "rack": "r1", "tokens": [-(2**63) + quarter * i - 1]}
             for i in range(1, 5)]
    doc: dict[str, Any] = {
        "description": "bootstrap; then the old owner has left the range and a replica is down",
        "topology": {"nodes": nodes, "keyspaces": [
            {"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]},
        "cms": {"members": ["n2"]},
        "operations": [
            {"op": "join", "node": "j1", "tokens": [-(2**63) + quarter * 5 // 2], "at_ms": 1000}],
        "clients": [
            {"keyspace": "ks", "count": 120, "start_ms": 1500, "spread_ms": 2500, "keys": 40,
             "writes": 1.0, "nodes": ["n1", "n2", "n3"]},
            {"keyspace": "ks", "count": 120, "start_ms": 20000, "spread_ms": 3000, "keys": 40,
             "writes": 0.0, "nodes": ["n1", "n2", "n4", "j1"]}],
        "faults": {"loss": 0.01, "latency": {"dist": "uniform", "min_ms": 1, "max_ms": 20},
                   "crashes": [{"node": "n4", "at_ms": 300, "restart_ms": 9000},
                               {"node": "n3", "at_ms": 15000}]},
        "settings": {"end_time_ms": 60000, "ring_delay_ms": 1000, "gossip_spread_ms": 4000},
    }
    if mode == "gossip":
        doc["mode"] = "gossip"
    return doc


def lost_writes(cluster: Cluster, result: Observed, keyspace: str = "ks") -> list[str]:
    """Keys whose acknowledged write (the newest acknowledged one, by write timestamp) is held
    by no live read replica at the end — neither it nor a newer cell: lost for good."""
    acked: dict[str, set[int]] = {}
    for op in result.client_history:
        if op.f == "write" and op.type == "ok" and op.key is not None:
            acked.setdefault(op.key, set()).add(int(thaw(op.value)))
    live = [n for n in cluster.nodes.values() if n is not None]
    meta = max(live, key=lambda n: n.log.applied).log.metadata
    lost = []
    for key, values in sorted(acked.items()):
        cells = {d.data.get((keyspace, key)) for d in cluster.disks.values()}
        stamps = [c for c in cells if c is not None and c[1] in values]
        if not stamps:
            continue
        winner = max(stamps)
        token = live[0].replica.token(key)
        held = [n.disk.data.get((keyspace, key)) for n in live
                if n.id in meta.read_replicas(keyspace, token)]
        if not any(c is not None and c >= winner for c in held):
            lost.append(key)
    return lost
