"""Side by side with Porcupine, in one session on one machine (not part of the test suite).

    .venv/bin/python benchmarks/compare_porcupine.py --porcupine DIR [--corpus DIR] [--rounds N]
    .venv/bin/python benchmarks/compare_porcupine.py --porcupine DIR --families [--rounds N] [--timeout S]

DIR is a checkout of github.com/anishathalye/porcupine (its `test_data/` is the corpus; nothing
of it is kept here).

Porcupine's corpus (the default): each round runs Porcupine's own Go benchmarks (`go test
-bench`, with GOMAXPROCS=2 as on this machine and again with `-cpu 1`, since Porcupine checks
the kv keys in parallel and we do not) and then `bench_linearizability.py --json`, so both see
the same load. Prints a table of medians over the rounds and one JSON line with every round's
figures. Our figures time Porcupine's work (checking events already matched call to return);
the "from events" column also times pairing them (bench_linearizability.py says why).

`--families`: the histories of `history_families.py` (every family, `--sizes`, `--clients`,
linearizable and not, `--seed`), checked by Porcupine through a small Go program against its
public API (`porcupine_driver.py`, built in a temporary folder) and by us
(`check_operations`, no evidence), each in its own process, each history as many times as
fill `--min-time` seconds, with the same time limit (`--timeout`; past it the verdict is
"unknown" and the time counts as the limit). Rounds alternate which side goes first. Prints
every history's verdicts and median times, the median ratio ours/Porcupine per family and
size, then per family, size and client count (the median of its ok and bad histories' ratios),
the histories above 1.0, the histories Porcupine decides and we do not, and one JSON line with
every round.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import history_families  # noqa: E402
import porcupine_driver  # noqa: E402

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


def run_ours(timeout: float, spend: float, files: list[Path]) -> None:
    """`--run-ours`: our side of `--families`, in a process of its own (as Porcupine's is):
    each history checked as many times as fill `spend` seconds, one JSON line per history."""
    from campaign.formats.history import read_history
    from checkers.linearizability import MODELS, check_operations, pair

    for path in files:
        name = path.stem
        family = next(f for f in history_families.FAMILIES if name.startswith(f + "-"))
        model = MODELS[history_families.MODEL[family]]
        operations = pair(read_history(path).ops)  # (outside the timer: Porcupine's parsing is too)
        runs = 0
        start = time.perf_counter()
        while True:
            verdict = check_operations(model, operations, deadline=time.monotonic() + timeout, minimize=False)
            runs += 1
            if verdict.valid == "unknown" or time.perf_counter() - start >= spend:
                break
        seconds = (time.perf_counter() - start) / runs
        result = {True: "ok", False: "illegal", "unknown": "unknown"}[verdict.valid]
        print(json.dumps({"name": name, "result": result, "cause": verdict.cause, "seconds": seconds,
                          "runs": runs}), flush=True)


def families(args: argparse.Namespace) -> None:
    """`--families`: write the histories, build the driver, run the rounds, print the tables."""
    with tempfile.TemporaryDirectory(prefix="tcmcheck-porcupine-") as tmp:
        folder = Path(tmp)
        exe = porcupine_driver.build(args.porcupine, folder)
        ours_files, porc_files, names = [], [], []
        from checkers.linearizability import pair

        for name, model, history in history_families.suite(tuple(args.sizes), tuple(args.clients), args.seed,
                                                                   tuple(args.family)):
            jsonl = folder / f"{name}.jsonl"
            jsonl.write_text("".join(json.dumps(history_families.event_json(e)) + "\n" for e in history),
                             encoding="utf-8")
            porc = folder / f"{name}.json"
            porc.write_text(json.dumps(porcupine_driver.events(name, model, pair(history))), encoding="utf-8")
            ours_files.append(jsonl)
            porc_files.append(porc)
            names.append(name)
        rounds: list[dict[str, Any]] = []
        for r in range(args.rounds):
            load = [os.getloadavg()[0]]
            figures: dict[str, Any] = {}
            for side in (("ours", "porcupine") if r % 2 == 0 else ("porcupine", "ours")):
                if side == "ours":
                    cmd = [sys.executable, str(Path(__file__).resolve()), "--run-ours", str(args.timeout),
                           str(args.min_time), *map(str, ours_files)]
                    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                    figures["ours"] = {row["name"]: row for row in map(json.loads, out.splitlines())}
                else:
                    figures["porcupine"] = porcupine_driver.run(exe, porc_files, args.timeout, args.min_time)
            load.append(os.getloadavg()[0])
            figures["load_average"] = [round(x, 2) for x in load]
            rounds.append(figures)
            print(f"round {r + 1}: load average (1 min) {load[0]:.2f} -> {load[1]:.2f}", flush=True)
    report(names, rounds, args.timeout)


def _seconds(row: dict[str, Any], timeout: float) -> float:
    """A side that did not decide took at least the time limit."""
    return timeout if row["result"] == "unknown" else float(row["seconds"])


def report(names: list[str], rounds: list[dict[str, Any]], timeout: float) -> None:
    """Every history, then the median ratio per family and size, then the acceptance lines."""
    print("| history | ours | Porcupine | ours (ms) | Porcupine (ms) | ratio |")
    print("|---|---|---|---|---|---|")
    ratios: dict[tuple[str, int], list[float]] = {}
    by_clients: dict[tuple[str, int, str], list[float]] = {}
    missed, differ = [], []
    over_one: set[str] = set()
    for name in names:
        ours = [r["ours"][name] for r in rounds]
        porc = [r["porcupine"][name] for r in rounds]
        a = statistics.median(_seconds(x, timeout) for x in ours)
        b = statistics.median(_seconds(x, timeout) for x in porc)
        verdict_a = statistics.mode(x["result"] for x in ours)
        verdict_b = statistics.mode(x["result"] for x in porc)
        both_unknown = verdict_a == verdict_b == "unknown"
        ratio = 1.0 if both_unknown else a / b
        family = next(f for f in history_families.FAMILIES if name.startswith(f + "-"))
        size = int(name[len(family) + 1 :].split("-")[0])
        ratios.setdefault((family, size), []).append(ratio)
        by_clients.setdefault((family, size, name[len(family) + 1 :].split("-")[1]), []).append(ratio)
        if verdict_b != "unknown" and any(x["result"] == "unknown" for x in ours):
            missed.append(name)
        if "unknown" not in (verdict_a, verdict_b) and verdict_a != verdict_b:
            differ.append(name)
        if ratio > 1.0:
            over_one.add(name)
        mark = " (both at the limit)" if both_unknown else ""
        print(f"| {name} | {verdict_a} | {verdict_b} | {a * 1000:.1f} | {b * 1000:.1f} | {ratio:.2f}{mark} |")
    print()
    print("| family | " + " | ".join(str(s) for s in sorted({s for _, s in ratios})) + " |")
    sizes = sorted({s for _, s in ratios})
    print("|---|" + "---|" * len(sizes))
    for family in history_families.FAMILIES:
        cells = [f"{statistics.median(ratios[(family, s)]):.2f}" if (family, s) in ratios else "" for s in sizes]
        print(f"| {family} | " + " | ".join(cells) + " |")
    worst = max(statistics.median(v) for v in ratios.values())
    print()
    print(f"worst median ratio per family and size: {worst:.2f}")
    print()
    clients = sorted({c for _, _, c in by_clients}, key=lambda c: int(c[1:]))
    print("| family | " + " | ".join(f"{s} {c}" for s in sizes for c in clients) + " |")
    print("|---|" + "---|" * (len(sizes) * len(clients)))
    for family in history_families.FAMILIES:
        row = [f"{statistics.median(by_clients[(family, s, c)]):.2f}" if (family, s, c) in by_clients else ""
               for s in sizes for c in clients]
        print(f"| {family} | " + " | ".join(row) + " |")
    worst_cell = max(statistics.median(v) for v in by_clients.values())
    print()
    print(f"worst median ratio per family, size and client count (of its ok and bad histories): {worst_cell:.2f}")
    above = [name for name in names if name in over_one]
    print(f"histories above 1.0: {above or 'none'}")
    print(f"decided by Porcupine, unknown for us (any round): {missed or 'none'}")
    print(f"verdicts that differ: {differ or 'none'}")
    print(json.dumps(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--porcupine", type=Path, required=True, help="a Porcupine checkout")
    parser.add_argument("--corpus", type=Path, default=None, help="default: the checkout's test_data")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--benchtime", default="1s", help="Go's -benchtime (seconds, e.g. 0.3s); ours averages as long")
    parser.add_argument("--families", action="store_true", help="the histories of history_families.py instead")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(history_families.SIZES))
    parser.add_argument("--clients", type=int, nargs="+", default=list(history_families.CLIENTS))
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--family", nargs="+", choices=history_families.FAMILIES,
                        default=list(history_families.FAMILIES), help="some of the families only (--families)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per check, both sides (--families)")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds of repeated checks each figure averages (--families)")
    if len(sys.argv) > 1 and sys.argv[1] == "--run-ours":
        run_ours(float(sys.argv[2]), float(sys.argv[3]), [Path(p) for p in sys.argv[4:]])
        return
    args = parser.parse_args()
    if not (args.porcupine / "porcupine_test.go").is_file():
        parser.error(f"{args.porcupine} is not a Porcupine checkout (no porcupine_test.go)")
    if args.families:
        families(args)
        return
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
