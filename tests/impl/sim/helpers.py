"""Builders shared by the simulator tests: topologies, scenarios, log replay."""

from __future__ import annotations

import json
from typing import Any

from impl.bus import Latency, NetworkFaults
from impl.engine import MetadataEngine, rejection_reason
from impl.entry import Entry, canonical_json
from impl.scenario import Scenario, Submission
from impl.settings import Settings
from impl.sim.clock import ms_to_ns
from observed.calls import CommitCall
from observed.run import Observed

FAULTY = NetworkFaults(loss=0.1, duplicate=0.02, reorder=0.2, reorder_extra_ms=20,
                       latency=Latency(dist="uniform", a=1, b=5))


def topology(n: int, *, dcs: int = 1) -> dict[str, Any]:
    step = (2**64 - 2) // (n + 1)
    nodes = [{"id": f"n{i:02d}", "dc": f"dc{1 + i % dcs}", "rack": f"r{1 + i % 3}",
              "tokens": [-(2**63) + 1 + step * (i + 1)]} for i in range(1, n + 1)]
    return {"nodes": nodes, "keyspaces": [
        {"name": "base", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]}


def scenario(n: int, **kwargs: Any) -> Scenario:
    settings = kwargs.pop("settings", Settings(end_time_ns=ms_to_ns(300_000)))
    return Scenario(topology=canonical_json(topology(n)), settings=settings, **kwargs)


def schema(op: str, **fields: Any) -> str:
    return canonical_json({"kind": "SCHEMA_CHANGE", "change": {"op": op, **fields}})


def submit(node: str, at_ms: float, transformation: str) -> Submission:
    return Submission(node=node, at=ms_to_ns(at_ms), transformation=transformation)


def completions(result: Observed) -> dict[str, CommitCall]:
    """entry id -> its commit request, for those that completed (ok / fail / info)."""
    return {c.entry_id: c for c in result.commits if c.outcome is not None}


def full_log(result: Observed) -> list[Entry]:
    """The longest log some node holds from epoch 1 (a node that never installed a snapshot)."""
    best: list[Entry] = []
    for n in result.nodes:
        if n.first_epoch == 1 and len(n.entries) > len(best):
            best = list(n.entries)
    return best


def replay(topology_json: str, entries: list[Entry]) -> list[Any]:
    """Metadata at every epoch 0..len(entries), by executing the log with impl.metadata."""
    engine = MetadataEngine()
    m = engine.from_topology(json.loads(topology_json))
    out = [m]
    for e in entries:
        r = engine.execute(m, json.loads(e.transformation))
        assert rejection_reason(r) is None, (e, r)
        m = r.metadata
        out.append(m)
    return out
