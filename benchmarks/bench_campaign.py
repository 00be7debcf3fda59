"""Campaign engine benchmarks (not part of the test suite).

    .venv/bin/python benchmarks/bench_campaign.py [--seconds 300] [--scaling-seconds 90] [--seed 1150]

1. Local scaling: the same campaign on 1 and on 2 worker processes for --scaling-seconds each;
   target: 2 workers give >= 1.7x the runs per second of 1 (on an otherwise idle 2-core machine).
2. Spark vs local: a --seconds campaign (default 5 minutes) on the local engine with 2 workers
   and on Spark local[2]; target: Spark within 25% of local runs per second.
3. Spark session start-up: wall-clock seconds from nothing to a usable embedded session
   (a fresh process each time: `campaign.spark_session.STARTUP_SECONDS`).

Each measurement runs `tcmcheck fuzz --max-seconds T` in a fresh process (so each engine pays its
own start-up, reported apart) and computes runs per second from the rows themselves: runs / (last
finish - first start), which leaves out process and Spark start-up. Run them one after the other
("side by side") on a machine doing nothing else; on a shared machine say so with the numbers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

TCMCHECK = [sys.executable, "-m", "campaign"]


def campaign(out: Path, seconds: float, seed: int, *extra: str) -> tuple[int, float, float]:
    """(runs, runs per second, wall seconds of the whole command); also prints the runs per
    CPU-second of the command and its workers, which a busy machine does not change: when
    2 workers give as many runs per CPU-second as 1, the missing speed-up is missing CPU."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run([*TCMCHECK, "fuzz", "--runs", "1000000", "--seed", str(seed), "--max-seconds", str(seconds),
                    "--out", str(out), *extra], check=False, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - started
    t = pq.read_table(out / "runs.parquet").to_pydict()
    first = min(f - d for f, d in zip(t["finished_at"], t["duration_s"], strict=True))
    span = max(t["finished_at"]) - first
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"  ({' '.join(extra)}: {len(t['run'])} runs in {cpu:.0f} CPU-seconds: "
          f"{len(t['run']) / cpu:.1f} runs per CPU-second)")
    return len(t["run"]), len(t["run"]) / span, wall


def spark_startup() -> float:
    code = ("from campaign import spark_session as spark; spark.session(parallelism=2); "
            "print(spark.STARTUP_SECONDS); spark.stop_session()")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="length of the Spark-vs-local campaigns")
    parser.add_argument("--scaling-seconds", type=float, default=90.0, help="length of the 1-vs-2-worker campaigns")
    parser.add_argument("--seed", type=int, default=1150)
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: scaling,spark,startup")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    # the numbers mean little on a busy machine: say how busy it was
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if "scaling" not in skip:
            n1, r1, _ = campaign(base / "w1", args.scaling_seconds, args.seed, "--workers", "1")
            n2, r2, _ = campaign(base / "w2", args.scaling_seconds, args.seed, "--workers", "2")
            print(f"local, 1 worker:  {n1} runs, {r1:.1f} runs/s")
            print(f"local, 2 workers: {n2} runs, {r2:.1f} runs/s  -> {r2 / r1:.2f}x (target >= 1.7x)")
        if "spark" not in skip:
            nl, rl, _ = campaign(base / "local", args.seconds, args.seed + 1, "--workers", "2")
            ns, rs, wall = campaign(base / "spark", args.seconds, args.seed + 1, "--engine", "spark", "--workers", "2")
            print(f"local engine, 2 workers ({args.seconds:.0f} s): {nl} runs, {rl:.1f} runs/s")
            print(f"spark engine, local[2]  ({args.seconds:.0f} s): {ns} runs, {rs:.1f} runs/s  -> "
                  f"{rs / rl:.2f} of local (target >= 0.75); command took {wall:.0f} s with start-up")
        if "startup" not in skip:
            times = [spark_startup() for _ in range(3)]
            print(f"spark session start-up: {', '.join(f'{t:.1f}' for t in times)} s "
                  f"(median {sorted(times)[1]:.1f} s)")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
