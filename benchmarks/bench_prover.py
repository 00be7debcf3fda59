"""Benchmark: the Z3 quorum prover (checkers/quorum), run on demand, not a test.

    python benchmarks/bench_prover.py [--sizes 10,30,100,300,1000] [--repeat 20]

1. Per-check cost against cluster size. Each check is one (range, epoch pair, CL pair) solver
   call, uncached, on a range replicated by *every* node (3 DCs, NTS rf = nodes/3 per DC) in the
   middle of a join (one pending replica), so the groups grow with the cluster. Target: at most
   5 ms per check, flat from 10 to 1,000 nodes. For reference, the naive encoding (one Boolean
   per node, pseudo-boolean at-least constraints) is timed at small sizes, with a time limit.
2. A 3-DC, 30-node, 16-token cluster with NTS {dc1: 3, dc2: 3, dc3: 3} and SimpleStrategy RF 5,
   through a join, a leave, a move and a replace (spec/), every consecutive epoch pair proved.
   Target: under 10 s. Reported against the exhaustive simulator on the same input, with and
   without the caches.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

import z3

from checkers.quorum import exhaustive, z3prover
from checkers.quorum.barrier import prove_barrier
from checkers.quorum.from_spec import history_from_states
from checkers.quorum.levels import QuorumRule, read_rule, write_rule
from checkers.quorum.model import History
from checkers.quorum.verdict import Verdict
from checkers.quorum.z3prover import Z3Search
from spec.consistency import ConsistencyLevel as CL
from spec.nodes import Location, NodeId
from spec.operations import Join, Leave, Move, Operation, Replace, run_operations
from spec.replication import NetworkTopologyStrategy, SimpleStrategy
from spec.topology import NodeSpec, Topology

CL_PAIRS = [(CL.QUORUM, CL.QUORUM), (CL.LOCAL_QUORUM, CL.LOCAL_QUORUM), (CL.EACH_QUORUM, CL.QUORUM),
            (CL.ONE, CL.ALL), (CL.ONE, CL.QUORUM)]


def full_replication(nodes: int) -> tuple[dict[str, str], NetworkTopologyStrategy, frozenset[str], frozenset[str]]:
    per_dc = max(1, nodes // 3)
    dcs = {f"n{i:04d}": f"dc{i % 3 + 1}" for i in range(per_dc * 3)}
    members = frozenset(dcs)
    pending = frozenset({"n0000"})
    nts = NetworkTopologyStrategy.of({"dc1": per_dc, "dc2": per_dc, "dc3": per_dc})
    return dcs, nts, members - pending, members


def rules(nodes: int) -> list[tuple[QuorumRule, QuorumRule]]:
    dcs, nts, reads, writes = full_replication(nodes)
    out = []
    for r, w in CL_PAIRS:
        out.append((read_rule(r, nts, reads, dcs, "dc1"), write_rule(w, nts, reads, writes, dcs, "dc1")))
        out.append((read_rule(r, nts, writes - {"n0001"}, dcs, "dc1"), write_rule(w, nts, reads, writes, dcs, "dc1")))
    return out


def per_check_ms(nodes: int, repeat: int) -> tuple[float, float]:
    checks = rules(nodes)
    for read, write in checks:  # warm-up: z3's first call loads its tactics
        Z3Search(cache=False)(read, write)
    times = []
    for _ in range(repeat):
        for read, write in checks:
            search = Z3Search(cache=False)
            t0 = time.perf_counter()
            search(read, write)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), max(times)


def naive_ms(nodes: int, limit_s: float) -> str:
    """One Boolean per node: QUORUM read vs QUORUM write of the same full group (unsat)."""
    names = [f"n{i}" for i in range(nodes)]
    r = {n: z3.Bool(f"r_{n}") for n in names}
    w = {n: z3.Bool(f"w_{n}") for n in names}
    s = z3.Solver()
    s.set("timeout", int(limit_s * 1000))
    need = nodes // 2 + 1
    s.add(z3.PbGe([(r[n], 1) for n in names], need), z3.PbGe([(w[n], 1) for n in names], need))
    s.add(*(z3.Not(z3.And(r[n], w[n])) for n in names))
    t0 = time.perf_counter()
    answer = s.check()
    elapsed = time.perf_counter() - t0
    return f"{elapsed * 1000:8.1f} ms" if answer != z3.unknown else f"> {limit_s:.0f} s (timeout)"


def cluster(nodes: int = 30, tokens: int = 16, seed: int = 7) -> Topology:
    rng = random.Random(seed)
    drawn: set[int] = set()
    while len(drawn) < (nodes + 2) * tokens:
        drawn.add(rng.randrange(-(2**62), 2**62))
    pool = sorted(drawn)
    rng.shuffle(pool)
    specs = tuple(
        NodeSpec(id=NodeId(f"n{i:02d}"), location=Location(dc=f"dc{i % 3 + 1}", rack=f"r{i // 3 % 3 + 1}"),
                 tokens=tuple(pool[i * tokens:(i + 1) * tokens]))
        for i in range(nodes)
    )
    return Topology(nodes=specs, keyspaces=(
        ("nts", NetworkTopologyStrategy.of({"dc1": 3, "dc2": 3, "dc3": 3})),
        ("rf5", SimpleStrategy(replication_factor=5)),
    ))


def four_operations(topo: Topology, tokens: int = 16, seed: int = 7) -> History:
    rng = random.Random(seed + 1)
    used = {t for n in topo.nodes for t in n.tokens}
    fresh: list[int] = []
    while len(fresh) < 2 * tokens:
        t = rng.randrange(-(2**62), 2**62)
        if t not in used:
            used.add(t)
            fresh.append(t)
    ops: list[Operation] = [
        Join(node=NodeSpec(id=NodeId("x1"), location=Location(dc="dc1", rack="r1"), tokens=tuple(fresh[:tokens]))),
        Leave(node=NodeId("n04")),
        Move(node=NodeId("n05"), tokens=tuple(fresh[tokens:]), operator_checks=False),  # a vnode move: past the operator layer
        Replace(node=NodeId("n06"), by=NodeSpec(id=NodeId("y1"), location=Location(dc="dc1", rack="r3"))),
    ]
    run = run_operations(topo, ops)
    if run.rejection is not None:
        raise SystemExit(f"the spec rejected {run.rejected}: {run.rejection}")
    return history_from_states(run.states)


T = TypeVar("T")


def timed(f: Callable[[], T]) -> tuple[float, T]:
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,30,100,300,1000")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--naive-limit", type=float, default=20.0, help="seconds per naive solve")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    print(f"1. per-check time, uncached, every node a replica ({len(CL_PAIRS)} CL pairs x 2 shapes)")
    print(f"{'nodes':>6} {'median':>10} {'max':>10}")
    for n in sizes:
        med, worst = per_check_ms(n, args.repeat)
        print(f"{n:>6} {med:>8.2f} ms {worst:>8.2f} ms")
    print("   naive encoding (one Boolean per node), QUORUM vs QUORUM over the whole group:")
    for n in (11, 15, 21, 25, 31):
        print(f"{n:>6} {naive_ms(n, args.naive_limit)}")

    print("\n2. 30 nodes x 16 tokens, 3 DCs; join, leave, move, replace; NTS {3,3,3} and SimpleStrategy RF 5")
    build, history = timed(lambda: four_operations(cluster()))
    ranges = sum(len(ks.ranges) for ks in history.epochs[-1].keyspaces)
    print(f"   spec run: {len(history.epochs)} epochs, {ranges} ranges at the end, {build:.2f} s")
    provers: dict[str, Callable[..., Verdict]] = {"z3": z3prover.prove_history,
                                                  "exhaustive": exhaustive.prove_history}
    rows: list[tuple[str, bool, float, Verdict]] = []
    for name, prove in provers.items():
        for cache in (True, False):
            t0 = time.perf_counter()
            verdict = prove(history, cache=cache)
            rows.append((name, cache, time.perf_counter() - t0, verdict))
    for name, cache, elapsed, v in rows:
        print(f"   {name:<10} cache={'on ' if cache else 'off'} {elapsed:7.2f} s  valid={v.valid} "
              f"checked={v.checked} solver_calls={v.solver_calls}")
    by = {(n, c): e for n, c, e, _ in rows}
    print(f"   exhaustive / z3: cache on {by[('exhaustive', True)] / by[('z3', True)]:.2f}x, "
          f"cache off {by[('exhaustive', False)] / by[('z3', False)]:.2f}x")
    uncached = rows[1]
    print(f"   z3 uncached per check: {uncached[2] / uncached[3].checked * 1000:.3f} ms")
    elapsed, barrier = timed(lambda: prove_barrier(history))
    print(f"   barrier mode (EACH_QUORUM): {elapsed:.2f} s valid={barrier.valid} checked={barrier.checked}")


if __name__ == "__main__":
    main()
