"""Simulated messages per second (one core) for two runs. Not a test:
`python benchmarks/bench_simulator.py [--seeds N] [--count C] [--data-path]`.

- default: the 20-node acceptance run — 1,000 racing schema changes, 10% loss, duplication,
  reordering, two CMS members crashing and restarting;
- `--data-path`: 12 nodes (RF 3), two concurrent node-driven operations on disjoint ranges (a
  join and a leave), 2,000 QUORUM client reads and writes, 5% loss, duplication, reordering and
  a crash; the target is under 5 s per run, judged by the kv linearizability checker too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from impl.bus import Latency, NetworkFaults  # noqa: E402 (after the path tweak)
from impl.cluster import run_scenario  # noqa: E402
from impl.entry import canonical_json  # noqa: E402
from impl.scenario import Crash, Scenario, Workload  # noqa: E402
from impl.settings import Settings  # noqa: E402
from impl.sim.clock import ms_to_ns  # noqa: E402


def twenty_nodes(count: int) -> Scenario:
    step = (2**64 - 2) // 21
    nodes = [{"id": f"n{i:02d}", "dc": "dc1", "rack": f"r{1 + i % 3}",
              "tokens": [-(2**63) + 1 + step * i]} for i in range(1, 21)]
    topology = {"nodes": nodes, "keyspaces": [
        {"name": "base", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]}
    return Scenario(
        topology=canonical_json(topology), cms_size=5,
        workloads=(Workload(count=count, start=ms_to_ns(500), spread=ms_to_ns(count * 20)),),
        crashes=(Crash(node="n02", at=ms_to_ns(1500), restart=ms_to_ns(4000)),
                 Crash(node="n03", at=ms_to_ns(2500), restart=ms_to_ns(6000))),
        network=NetworkFaults(loss=0.1, duplicate=0.02, reorder=0.2,
                              latency=Latency(dist="uniform", a=1, b=5)),
        settings=Settings(end_time_ns=ms_to_ns(600_000)),
    )


def twelve_nodes_data_path(count: int) -> Scenario:
    from campaign.formats.scenario import parse_scenario

    step = 2**64 // 12
    nodes = [{"id": f"n{i:02d}", "dc": "dc1", "rack": f"r{1 + i % 3}",
              "tokens": [-(2**63) + step * i]} for i in range(1, 13)]
    doc = {"topology": {"nodes": nodes, "keyspaces": [
               {"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]},
           "cms": {"size": 3},
           "operations": [{"op": "join", "node": "j1", "tokens": [-(2**63) + step * 3 // 2],
                           "at_ms": 1000},
                          {"op": "leave", "node": "n08", "at_ms": 1000}],
           "clients": [{"keyspace": "ks", "count": count, "spread_ms": 10000, "keys": 20,
                        "nodes": [n["id"] for n in nodes]}],
           "faults": {"loss": 0.05, "duplicate": 0.01, "reorder": 0.1,
                      "crashes": [{"node": "n11", "at_ms": 3000, "restart_ms": 5000}]},
           "settings": {"end_time_ms": 120000}}
    return parse_scenario(doc)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--data-path", action="store_true")
    args = ap.parse_args()
    if args.data_path:
        sc = twelve_nodes_data_path(args.count or 2000)
    else:
        sc = twenty_nodes(args.count or 1000)
    total_msgs = 0
    total_wall = 0.0
    total_cpu = 0.0
    for seed in range(args.seeds):
        t0, c0 = time.perf_counter(), time.process_time()
        r = run_scenario(sc, seed)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        sent = r.counter("messages_sent")
        total_msgs += sent
        total_wall += wall
        total_cpu += cpu
        row = {"seed": seed, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
               "messages": sent, "msgs_per_wall_s": round(sent / wall),
               "final_epoch": r.final_epoch, "trace_events": r.trace_events}
        if args.data_path:
            row["operations"] = [list(o) for o in r.operations]
            row["client_ops"] = r.counter("client_reads") + r.counter("client_writes")
        print(json.dumps(row))
    # why both: on a shared machine wall time includes other processes; the run is one thread,
    # so messages per CPU second is messages per second of one core
    print(json.dumps({"total_messages": total_msgs, "total_wall_s": round(total_wall, 3),
                      "msgs_per_wall_s": round(total_msgs / total_wall),
                      "msgs_per_cpu_s": round(total_msgs / total_cpu)}))


if __name__ == "__main__":
    main()
