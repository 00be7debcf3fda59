"""Simulated messages per second of wall time (one core) for the 20-node acceptance run:
1,000 racing schema changes, 10% loss, duplication, reordering, two CMS members crashing and
restarting. Not a test: `python benchmarks/bench_simulator.py [--seeds N] [--count C]`.
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--count", type=int, default=1000)
    args = ap.parse_args()
    sc = twenty_nodes(args.count)
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
        print(json.dumps({"seed": seed, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                          "messages": sent, "msgs_per_wall_s": round(sent / wall),
                          "final_epoch": r.final_epoch, "trace_events": r.trace_events}))
    # why both: on a shared machine wall time includes other processes; the run is one thread,
    # so messages per CPU second is messages per second of one core
    print(json.dumps({"total_messages": total_msgs, "total_wall_s": round(total_wall, 3),
                      "msgs_per_wall_s": round(total_msgs / total_wall),
                      "msgs_per_cpu_s": round(total_msgs / total_cpu)}))


if __name__ == "__main__":
    main()
