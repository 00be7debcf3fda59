"""Work and shape at the simulator's scale: 1,000 nodes x 16 tokens, NTS {3,3,3} (the time it
takes is benchmarks/bench_placements.py --impl's to report)."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

from impl.metadata import Metadata, execute, replication
from tests.impl.metadata.helpers import ok, register


@pytest.fixture(scope="module")
def big() -> dict[str, Any]:
    rng = random.Random(21)
    tokens = list(dict.fromkeys(rng.getrandbits(62) - 2**61 for _ in range(16_100)))[:16_000]
    nodes = [
        {"id": f"n{i:04d}", "dc": f"dc{i % 3 + 1}", "rack": f"r{(i // 3) % 3 + 1}", "tokens": tokens[16 * i : 16 * (i + 1)]}
        for i in range(1000)
    ]
    ks = {"class": "NetworkTopologyStrategy", "dc1": 3, "dc2": 3, "dc3": 3}
    return {"nodes": nodes, "keyspaces": [{"name": "nts", "replication": ks}]}


@pytest.fixture(scope="module")
def big_metadata(big: dict[str, Any]) -> Metadata:
    return Metadata.from_topology(big)


@pytest.fixture
def ring_walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every walk of the ring (a placement computed from scratch: `natural_replicas` missing
    its cache), counted: the work these tests bound, instead of the seconds it takes (a loaded
    machine's seconds decide nothing; benchmarks/bench_placements.py --impl times it)."""
    walks: list[str] = []
    for name in ("_simple", "_nts"):
        real = getattr(replication, name)

        def counted(*args: Any, _real: Any = real, _name: str = name) -> Any:
            walks.append(_name)
            return _real(*args)

        monkeypatch.setattr(replication, name, counted)
    return walks


def test_placements_for_a_thousand_nodes_walk_the_ring_once(big: dict[str, Any], ring_walks: list[str]) -> None:
    m = Metadata.from_topology(big)
    assert ring_walks == ["_nts"]  # one keyspace's replication, one walk: not one per range or per DC
    assert len(m.placements_json()["nts"]["reads"]) == 16_000
    assert all(len(r) == 9 for r in m.placements[m.keyspaces["nts"].replication.key].reads)
    assert ring_walks == ["_nts"]


def test_non_topology_transformations_share_placements(big_metadata: Metadata, ring_walks: list[str]) -> None:
    m = big_metadata
    for i in range(200):
        m = ok(m, {"kind": "SCHEMA_CHANGE", "change": {"op": "CREATE_TABLE", "keyspace": "nts", "table": f"t{i}", "columns": [["k", "int"]]}})
        m = ok(m, register(f"x{i}"))
        m = ok(m, {"kind": "TRIGGER_SNAPSHOT"})
    assert m.epoch == 600
    assert ring_walks == []  # no placement is recomputed
    assert all(m.placements[k] is p for k, p in big_metadata.placements.items())  # the very same ones


def test_a_vnode_join_at_scale_and_a_snapshot_round_trip(big_metadata: Metadata) -> None:
    m = ok(big_metadata, register("X", "dc2", "r2"))
    rng = random.Random(3)
    r = execute(m, {"kind": "PREPARE_JOIN", "node": "X", "tokens": [2**61 + rng.getrandbits(40) for _ in range(16)]})
    assert hasattr(r, "metadata")
    m = r.metadata
    for step in ("START", "MID", "FINISH"):
        m = ok(m, {"kind": f"{step}_JOIN", "node": "X"})
    assert len(m.tokens_of("X")) == 16
    assert Metadata.from_json(m.to_json()).digest() == m.digest()
    assert pickle.loads(pickle.dumps(m)).digest() == m.digest()
