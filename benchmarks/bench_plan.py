"""Benchmark: `tcmcheck plan` on a 3-DC, 48-node, 16-token cluster, each of the five operations,
beside `tcmcheck prove` on the OPS.json the plan maps onto (same run, same machine), checking that
the plan's quorum verdict is prove's.

Run on demand: `python benchmarks/bench_plan.py [--nodes-per-dc 16] [--tokens 16] [--read-cl QUORUM
--write-cl QUORUM]`. The cluster is grown node by node with Cassandra's token allocator
(allocate_tokens_for_local_replication_factor: 3, racks r1..r3); keyspaces: NTS {3,3,3}, NTS {dc1: 3}
and SimpleStrategy 3. A move of a 16-token node is refused by Cassandra ("This node has more than
one token and cannot be moved thusly."), so the move also runs on the same cluster with one token
a node. Target (issue 34): each plan in seconds. Times need a quiet machine to compare.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from campaign.cli import main as tcmcheck
from campaign.operator.token_allocation import grown_cluster


def cluster(per_dc: int, tokens: int) -> dict[str, Any]:
    nodes = grown_cluster([("dc1", per_dc, 3), ("dc2", per_dc, 3), ("dc3", per_dc, 3)], tokens)
    return {"nodes": [{"id": n.id, "dc": n.location.dc, "rack": n.location.rack, "tokens": list(n.tokens)}
                      for n in nodes],
            "keyspaces": [
                {"name": "app", "replication": {"class": "NetworkTopologyStrategy", "dc1": 3, "dc2": 3, "dc3": 3}},
                {"name": "local", "replication": {"class": "NetworkTopologyStrategy", "dc1": 3}},
                {"name": "simple", "replication": {"class": "SimpleStrategy", "replication_factor": 3}}]}


def run(args: list[str]) -> tuple[int, str, float]:
    out = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = tcmcheck(args)
    return code, out.getvalue(), time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes-per-dc", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--read-cl", default="QUORUM")
    parser.add_argument("--write-cl", default="QUORUM")
    a = parser.parse_args()
    levels = ["--read-cl", a.read_cl, "--write-cl", a.write_cl]
    with tempfile.TemporaryDirectory() as d:
        vnodes, single = Path(d, "vnodes.json"), Path(d, "single.json")
        vnodes.write_text(json.dumps(cluster(a.nodes_per_dc, a.tokens)))
        single.write_text(json.dumps(cluster(a.nodes_per_dc, 1)))
        cases = [(vnodes, ["decommission", "10.1.0.5"]), (vnodes, ["removenode", "10.2.0.3"]),
                 (vnodes, ["replace", "10.3.0.4", "--by", "10.3.0.99"]), (vnodes, ["move", "10.1.0.1", "-5"]),
                 (vnodes, ["bootstrap", "10.1.0.77", "--dc", "dc1", "--rack", "r2", "--num-tokens", str(a.tokens)]),
                 (single, ["move", "10.1.0.1", "-5"])]
        print(f"plan vs prove: 3 DCs x {a.nodes_per_dc} nodes, reads {a.read_cl}, writes {a.write_cl}")
        print(f"{'operation':<42} {'tokens':>6} {'outcome':<14} {'plan s':>7} {'prove s':>8}  verdicts equal")
        for topo, words in cases:
            code, out, plan_s = run(["plan", str(topo), *words, *levels, "--json"])
            plan = json.loads(out)
            ops = Path(d, "ops.json")
            # a refused operation commits nothing: its epochs are the cluster's alone, prove's with no ops
            ops.write_text(json.dumps(plan["ops"] if not (plan["refused"] and not plan["steps"]) else []))
            _, proved, prove_s = run(["prove", str(topo), "--ops", str(ops), *levels, "--json"])
            keys = ("result", "checked", "counterexamples")  # prove adds its vacuity warnings
            overall = {k: plan["proofs"]["overall"][k] for k in keys}
            equal = overall == {k: json.loads(proved)[k] for k in keys}
            tokens = a.tokens if topo == vnodes else 1
            print(f"{' '.join(words[:2]):<42} {tokens:>6} {plan['outcome']:<14} {plan_s:>7.2f} {prove_s:>8.2f}  {equal}")
            assert equal, (words, overall, proved)


if __name__ == "__main__":
    main()
