"""Benchmark: spec placements for 1,000 nodes x 16 tokens, 3 DCs, NTS {3,3,3}, then one join.

Run on demand: `python benchmarks/bench_placements.py [--nodes N] [--tokens T] [--impl]`. Prints the time
of the initial placements and of each join step; target: under 2 s for placements + join.

`--impl` times impl's own placement code at the same scale instead (impl.metadata: the
simulator's), as tests/impl/metadata/test_scale.py runs it (the test counts the ring walks and
checks the placements are shared; the seconds are reported here): the initial placements
(target: about 0.3 s on one core), and 600 non-topology transformations (200 each of CREATE
TABLE, REGISTER and TRIGGER_SNAPSHOT), which recompute no placement (target: well under 5 s).
"""

from __future__ import annotations

import argparse
import random
import time

from impl.metadata import Metadata, execute
from spec.metadata import ClusterMetadata
from spec.nodes import Location, NodeId
from spec.operations import Join, run_operations
from spec.replication import NetworkTopologyStrategy
from spec.topology import NodeSpec, Topology


def big_topology(nodes: int, tokens: int, seed: int = 1) -> Topology:
    rng = random.Random(seed)
    drawn: set[int] = set()
    while len(drawn) < nodes * tokens:
        drawn.add(rng.randrange(-(2**62), 2**62))
    all_tokens = sorted(drawn)
    rng.shuffle(all_tokens)
    specs = [
        NodeSpec(id=NodeId(f"n{i:04d}"), location=Location(dc=f"dc{i % 3 + 1}", rack=f"r{i // 3 % 3 + 1}"),
                 tokens=tuple(all_tokens[i * tokens:(i + 1) * tokens]))
        for i in range(nodes)
    ]
    return Topology(nodes=tuple(specs), keyspaces=(("nts", NetworkTopologyStrategy.of({"dc1": 3, "dc2": 3, "dc3": 3})),))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--impl", action="store_true", help="time impl's placement code instead of the spec's")
    args = parser.parse_args()
    if args.impl:
        impl_placements(args.nodes, args.tokens)
        return
    topo = big_topology(args.nodes, args.tokens)
    # the joiner lands just after some existing tokens (each +1 is free: tokens are far apart)
    joining = NodeSpec(id=NodeId("joiner"), location=Location(dc="dc1", rack="r1"),
                       tokens=tuple(t + 1 for t in topo.nodes[-1].tokens))
    t0 = time.perf_counter()
    m = ClusterMetadata.initial(topo)
    t1 = time.perf_counter()
    run = run_operations(m, [Join(node=joining)])
    t2 = time.perf_counter()
    assert run.rejection is None, run.rejection
    ranges = len(m.placements.get("nts").reads)
    print(f"placements: {args.nodes} nodes x {args.tokens} tokens, {ranges} ranges, NTS {{3,3,3}}")
    print(f"  initial placements: {t1 - t0:.3f} s")
    print(f"  join (5 epochs):    {t2 - t1:.3f} s")
    print(f"  total:              {t2 - t0:.3f} s (target < 2 s)")


def impl_placements(nodes: int, tokens: int) -> None:
    """impl.metadata at scale: the topology of tests/impl/metadata/test_scale.py."""
    rng = random.Random(21)
    drawn = list(dict.fromkeys(rng.getrandbits(62) - 2**61 for _ in range(nodes * tokens + 100)))[: nodes * tokens]
    doc = {"nodes": [{"id": f"n{i:04d}", "dc": f"dc{i % 3 + 1}", "rack": f"r{(i // 3) % 3 + 1}",
                      "tokens": drawn[tokens * i: tokens * (i + 1)]} for i in range(nodes)],
           "keyspaces": [{"name": "nts", "replication": {"class": "NetworkTopologyStrategy",
                                                         "dc1": 3, "dc2": 3, "dc3": 3}}]}
    t0 = time.perf_counter()
    m = Metadata.from_topology(doc)
    t1 = time.perf_counter()
    for i in range(200):
        for t in ({"kind": "SCHEMA_CHANGE", "change": {"op": "CREATE_TABLE", "keyspace": "nts", "table": f"t{i}",
                                                       "columns": [["k", "int"]]}},
                  {"kind": "REGISTER", "node": {"id": f"x{i}", "dc": "dc1", "rack": "r1"}},
                  {"kind": "TRIGGER_SNAPSHOT"}):
            result = execute(m, t)
            assert hasattr(result, "metadata"), result
            m = result.metadata
    t2 = time.perf_counter()
    print(f"impl placements: {nodes} nodes x {tokens} tokens, NTS {{3,3,3}}")
    print(f"  initial placements:                  {t1 - t0:.3f} s (target: about 0.3 s)")
    print(f"  600 non-topology transformations:    {t2 - t1:.3f} s (target: well under 5 s)")


if __name__ == "__main__":
    main()
