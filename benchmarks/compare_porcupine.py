"""Side by side with Porcupine, in one session on one machine (not part of the test suite).

    .venv/bin/python benchmarks/compare_porcupine.py --porcupine DIR [--corpus DIR] [--rounds N]

DIR is a checkout of github.com/anishathalye/porcupine (its `test_data/` is the corpus; nothing
of it is kept here). Each round runs Porcupine's own Go benchmarks (`go test -bench`, with
GOMAXPROCS=2 as on this machine and again with `-cpu 1`, since Porcupine checks the kv keys in
parallel and we do not) and then `bench_linearizability.py --json`, so both see the same load.
Prints a table of medians over the rounds and one JSON line with every round's figures. Our
figures time Porcupine's work (checking events already matched call to return); the "from
events" column also times pairing them (bench_linearizability.py says why).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KV_NAMES = {
    "Kv1ClientOk": "c01-ok", "Kv1ClientBad": "c01-bad", "Kv10ClientsOk": "c10-ok",
    "Kv10ClientsBad": "c10-bad", "Kv50ClientsOk": "c50-ok", "Kv50ClientsBad": "c50-bad",
}
_LINE = re.compile(r"^Benchmark(\w+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")


def porcupine(directory: Path, cpu: int | None, benchtime: str) -> dict[str, object]:
    """Porcupine's benchmarks: etcd total and worst (ms), kv per file (ms)."""
    cmd = ["go", "test", "-run", "XXX", "-bench", "EtcdJepsen|^BenchmarkKv[0-9]", "-benchtime", benchtime]
    if cpu is not None:
        cmd += ["-cpu", str(cpu)]
    out = subprocess.run(cmd, cwd=directory, capture_output=True, text=True, check=True).stdout
    etcd: list[float] = []
    kv: dict[str, float] = {}
    for line in out.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        name, ms = m.group(1), float(m.group(2)) / 1e6
        if name.startswith("EtcdJepsen"):
            etcd.append(ms)
        elif name in KV_NAMES:
            kv[KV_NAMES[name]] = ms
    return {"etcd_total_s": sum(etcd) / 1000, "etcd_worst_ms": max(etcd), "etcd_files": len(etcd), "kv": kv}


def ours(corpus: Path, repeat: int, benchtime: float) -> dict[str, object]:
    cmd = [sys.executable, str(HERE / "bench_linearizability.py"), "--corpus", str(corpus),
           "--repeat", str(repeat), "--json", "--corpus-only", "--benchtime", str(benchtime)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--porcupine", type=Path, required=True, help="a Porcupine checkout")
    parser.add_argument("--corpus", type=Path, default=None, help="default: the checkout's test_data")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--benchtime", default="1s", help="Go's -benchtime (seconds, e.g. 0.3s); ours averages as long")
    args = parser.parse_args()
    if not (args.porcupine / "porcupine_test.go").is_file():
        parser.error(f"{args.porcupine} is not a Porcupine checkout (no porcupine_test.go)")
    corpus = args.corpus or args.porcupine / "test_data"
    rounds: list[dict[str, Any]] = []
    loads: list[float] = []
    for _ in range(args.rounds):
        loads.append(os.getloadavg()[0])
        seconds = float(args.benchtime.rstrip("s"))
        # ours first in odd rounds and last in even ones: neither side always follows the other
        figures: dict[str, Any] = {}
        if len(rounds) % 2 == 0:
            figures["tcmcheck"] = ours(corpus, args.repeat, seconds)
        figures["porcupine"] = porcupine(args.porcupine, None, args.benchtime)
        figures["porcupine_cpu1"] = porcupine(args.porcupine, 1, args.benchtime)
        if len(rounds) % 2 == 1:
            figures["tcmcheck"] = ours(corpus, args.repeat, seconds)
        rounds.append(figures)
        loads.append(os.getloadavg()[0])
        rounds[-1]["load_average"] = [round(x, 2) for x in loads[-2:]]  # (1 min) at start and end

    def med(who: str, key: str, sub: str | None = None) -> float:
        values = [float(r[who][key][sub] if sub else r[who][key]) for r in rounds]
        return statistics.median(values)

    rows: list[tuple[str, str, str | None]] = [
        ("etcd total (s)", "etcd_total_s", None), ("etcd worst (ms)", "etcd_worst_ms", None)
    ]
    rows += [(f"kv {n} (ms)", "kv", n) for n in KV_NAMES.values()]
    print(f"{'':18} {'tcmcheck':>10} {'Porcupine':>10} {'ratio':>6} {'Porc. -cpu 1':>13} {'ratio':>6}"
          f" {'from events':>12}")
    events_key = {"etcd_total_s": ("etcd_total_from_events_s", None), "kv": ("kv_from_events", "")}
    for label, key, sub in rows:
        a, b, c = med("tcmcheck", key, sub), med("porcupine", key, sub), med("porcupine_cpu1", key, sub)
        ev_key, ev_sub = events_key.get(key, (None, None))
        from_events = f"{med('tcmcheck', ev_key, sub if ev_sub == '' else None):12.4g}" if ev_key else ""
        print(f"{label:18} {a:10.4g} {b:10.4g} {a / b:6.2f} {c:13.4g} {a / c:6.2f} {from_events}")
    ev = med("tcmcheck", "etcd_evidence_total_s")
    print(f"etcd evidence (s)  {ev:10.4g}   ({ev / med('tcmcheck', 'etcd_total_s'):.1f}x our verdicts)")
    ev_cpu, v_cpu = med("tcmcheck", "etcd_evidence_total_cpu_s"), med("tcmcheck", "etcd_total_cpu_s")
    print(f"  in CPU time      {ev_cpu:10.4g}   ({ev_cpu / v_cpu:.1f}x our verdicts, {v_cpu:.4g} s)")
    ev_e, v_e = med("tcmcheck", "etcd_evidence_total_from_events_s"), med("tcmcheck", "etcd_total_from_events_s")
    print(f"  from events      {ev_e:10.4g}   ({ev_e / v_e:.1f}x our verdicts from events, {v_e:.4g} s)")
    kv_cpu = {n: statistics.median(float(r["tcmcheck"]["kv_cpu"][n]) for r in rounds) for n in KV_NAMES.values()}
    print("ours in CPU time (ms): " + ", ".join(f"{n} {v:.4g}" for n, v in kv_cpu.items()))
    print(f"load average (1 min) during the rounds: {min(loads):.1f}-{max(loads):.1f}")
    print(json.dumps(rounds))


if __name__ == "__main__":
    main()
