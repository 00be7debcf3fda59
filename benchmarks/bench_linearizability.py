"""Linearizability checker benchmarks (not part of the test suite).

    .venv/bin/python benchmarks/bench_linearizability.py [--corpus DIR] [--repeat N] [--json]

1. Porcupine's etcd corpus: total and worst check time, and the total with evidence (every
   violation shrunk to its window).
2. Porcupine's kv files, checked by key, stopping at the first key that fails.
The timed work is Porcupine's (its `benchJepsen`/`benchKv` loops time `CheckEvents` on events
its test parser already read and matched call to return by id): `check_operations` on the
file's events already paired into operations; reading the file and `pair` are outside the
timer. The figures with pairing inside it (`check` on the events, what `tcmcheck
check-history` runs after reading the file) are printed too, as "..._from_events".
3. 10,000 operations over 10 keys and 5 processes (budget: 10 s).
4. 200 operations on one key from 20 concurrent processes: an answer, or "unknown" within the
   timeout.
Times are medians of --repeat runs; a kv figure is the mean over as many calls as fill
--benchtime seconds (as Go's benchmarks measure Porcupine), the median of --repeat such means. Compare with Porcupine only within one session on one
machine (its `go test -bench` next to this; docs/performance/check-history.md says how). `--json` adds
one line: {"etcd_total_s", "etcd_worst_ms", "etcd_evidence_total_s", "kv": {name: ms}}, the
etcd figures in process CPU time ("etcd_total_cpu_s", "etcd_evidence_total_cpu_s"), and the
same with pairing timed ("etcd_total_from_events_s", "etcd_evidence_total_from_events_s",
"kv_from_events").
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.formats.history import read_history  # noqa: E402
from checkers.linearizability import (  # noqa: E402
    CAS_REGISTER,
    KV,
    REGISTER,
    Op,
    check,
    check_operations,
    pair,
    with_initial,
)

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "porcupine"


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    wall, _, result = timed_cpu(fn, repeat)
    return wall, result


def timed_cpu(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """Medians of wall-clock and of process CPU time. On a loaded machine a call longer than
    the scheduler's time slice waits for the CPU more than a short one does (and the median
    of a few runs of a short call is one that was not preempted), so ratios of wall times
    between short and long calls are only fair on a quiet machine; CPU time ratios are."""
    walls, cpus = [], []
    result: object = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    return statistics.median(walls), statistics.median(cpus), result


def bench_etcd(corpus: Path, repeat: int) -> dict[str, float]:
    files = sorted((corpus / "jepsen").glob("etcd_*.log"))
    histories = [(path.name, read_history(path).ops) for path in files]
    histories = [(name, ops) for name, ops in histories if ops]  # etcd_095 is empty
    total = total_cpu = 0.0
    worst = (0.0, "")
    with_evidence = with_evidence_cpu = 0.0
    from_events = evidence_from_events = 0.0
    for name, ops in histories:
        operations = pair(ops)  # outside the timer, as Porcupine's parser matches its events
        t, cpu, _ = timed_cpu(partial(check_operations, CAS_REGISTER, operations, minimize=False), repeat)
        total += t
        total_cpu += cpu
        worst = max(worst, (t, name))
        t, cpu, _ = timed_cpu(partial(check_operations, CAS_REGISTER, operations), repeat)
        with_evidence += t
        with_evidence_cpu += cpu
        from_events += timed(partial(check, CAS_REGISTER, ops, minimize=False), repeat)[0]
        evidence_from_events += timed(partial(check, CAS_REGISTER, ops), repeat)[0]
    print(f"etcd corpus: {len(histories)} files, verdicts {total:.3f} s in total, "
          f"worst {worst[1]} {worst[0] * 1000:.1f} ms")
    print(f"etcd corpus with evidence (shrinking every violation to its window): {with_evidence:.3f} s "
          f"({with_evidence / total:.1f}x the verdicts)")
    print(f"  in CPU time: verdicts {total_cpu:.3f} s, with evidence {with_evidence_cpu:.3f} s "
          f"({with_evidence_cpu / max(total_cpu, 1e-9):.1f}x)")
    print(f"  from events (pairing timed too): verdicts {from_events:.3f} s, with evidence "
          f"{evidence_from_events:.3f} s ({evidence_from_events / from_events:.1f}x)")
    return {"etcd_total_s": round(total, 4), "etcd_worst_ms": round(worst[0] * 1000, 2),
            "etcd_evidence_total_s": round(with_evidence, 4),
            "etcd_total_cpu_s": round(total_cpu, 4), "etcd_evidence_total_cpu_s": round(with_evidence_cpu, 4),
            "etcd_total_from_events_s": round(from_events, 4),
            "etcd_evidence_total_from_events_s": round(evidence_from_events, 4)}


KV_FILES = ("c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad")


def timed_for(fn: Callable[[], object], seconds: float, repeat: int) -> tuple[float, float, object]:
    """As Go's `testing.B` does: the mean over as many calls as fill `seconds` (at least one),
    wall-clock and process CPU time; the median of `repeat` such means. A single call of a
    millisecond is preempted or not on a loaded machine; a mean over many is steadier."""
    walls, cpus = [], []
    result: object = None
    for _ in range(repeat):
        calls = 0
        start, start_cpu = time.perf_counter(), time.process_time()
        while True:
            result = fn()
            calls += 1
            if time.perf_counter() - start >= seconds:
                break
        walls.append((time.perf_counter() - start) / calls)
        cpus.append((time.process_time() - start_cpu) / calls)
    return statistics.median(walls), statistics.median(cpus), result


def bench_kv(corpus: Path, repeat: int, seconds: float) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Per file (ms): from paired operations (Porcupine's timed work), wall and CPU time, and
    from events (wall)."""
    model = with_initial(KV, "")
    times: dict[str, float] = {}
    cpu_times: dict[str, float] = {}
    from_events: dict[str, float] = {}
    for name in KV_FILES:
        ops = read_history(corpus / "kv" / f"{name}.txt").ops
        operations = pair(ops)
        t, cpu, verdict = timed_for(partial(check_operations, model, operations, minimize=False), seconds, repeat)
        t_events, _, _ = timed_for(partial(check, model, ops, minimize=False), seconds, repeat)
        valid = verdict.valid  # type: ignore[attr-defined]
        print(f"kv/{name}.txt: {len(ops) // 2} ops, {valid}, {t * 1000:.2f} ms (CPU {cpu * 1000:.2f} ms; "
              f"{t_events * 1000:.2f} ms from events)")
        times[name] = round(t * 1000, 3)
        cpu_times[name] = round(cpu * 1000, 3)
        from_events[name] = round(t_events * 1000, 3)
    return times, cpu_times, from_events


def kv_history(ops: int, keys: int, processes: int, seed: int = 1) -> tuple[Op, ...]:
    """A linearizable history of a simulated atomic map: each op takes effect at a random
    instant between its invocation and its completion."""
    rng = random.Random(seed)
    state: dict[str, str] = {}
    pending: dict[int, dict[str, object]] = {}
    events: list[Op] = []
    invoked = 0
    while invoked < ops or pending:
        p = rng.randrange(processes)
        if p not in pending:
            if invoked >= ops:
                continue
            key = f"k{rng.randrange(keys)}"
            f = rng.choice(("read", "write", "write"))
            value = None if f == "read" else f"v{invoked}"
            pending[p] = {"f": f, "key": key, "value": value, "done": False, "out": None}
            events.append(Op(process=p, type="invoke", f=f, key=key, value=value))
            invoked += 1
        elif not pending[p]["done"]:
            op = pending[p]
            op["done"] = True
            if op["f"] == "read":
                op["out"] = state.get(str(op["key"]))
            else:
                state[str(op["key"])] = str(op["value"])
                op["out"] = op["value"]
        else:
            op = pending.pop(p)
            events.append(Op(process=p, type="ok", f=str(op["f"]), key=op["key"], value=op["out"]))
    return tuple(events)


def register_history(ops: int, processes: int, seed: int = 2) -> tuple[Op, ...]:
    """One key, many concurrent processes, a tenth of the writes timing out (info)."""
    rng = random.Random(seed)
    value: object = None
    pid = list(range(processes))
    next_pid = processes
    pending: dict[int, dict[str, object]] = {}
    events: list[Op] = []
    invoked = 0
    while invoked < ops or pending:
        w = rng.randrange(processes)
        if w not in pending:
            if invoked >= ops:
                continue
            f = rng.choice(("read", "write"))
            v = None if f == "read" else invoked
            pending[w] = {"f": f, "value": v, "done": False, "out": None}
            events.append(Op(process=pid[w], type="invoke", f=f, value=v))
            invoked += 1
        elif not pending[w]["done"]:
            op = pending[w]
            op["done"] = True
            if op["f"] == "read":
                op["out"] = value
            else:
                value = op["out"] = op["value"]
        else:
            op = pending.pop(w)
            if op["f"] == "write" and rng.random() < 0.1:
                events.append(Op(process=pid[w], type="info", f="write"))
                pid[w] = next_pid
                next_pid += 1
            else:
                events.append(Op(process=pid[w], type="ok", f=str(op["f"]), value=op["out"]))
    return tuple(events)


def bench_synthetic() -> None:
    history = kv_history(10_000, keys=10, processes=5)
    start = time.perf_counter()
    verdict = check(KV, history, deadline=time.monotonic() + 10)
    t = time.perf_counter() - start
    print(f"10,000 ops, 10 keys, 5 processes: {verdict.valid}, {t:.2f} s (budget 10 s)")

    history = register_history(200, processes=20)
    timeout = 10.0
    start = time.perf_counter()
    verdict = check(REGISTER, history, deadline=time.monotonic() + timeout)
    t = time.perf_counter() - start
    print(f"200 ops, 1 key, 20 processes: {verdict.valid} ({verdict.cause}), {t:.2f} s "
          f"(timeout {timeout:.0f} s)")
    # the same with a corrupted read: a violation
    reads = [i for i, e in enumerate(history) if e.type == "ok" and e.f == "read"]
    i = reads[len(reads) // 2]
    bad = history[:i] + (Op(process=history[i].process, type="ok", f="read", value=-1),) + history[i + 1 :]
    start = time.perf_counter()
    verdict = check(REGISTER, bad, deadline=time.monotonic() + timeout, minimize=False)
    t = time.perf_counter() - start
    start = time.perf_counter()
    verdict = check(REGISTER, bad, deadline=time.monotonic() + timeout)
    t_evidence = time.perf_counter() - start
    print(f"200 ops, 1 key, 20 processes, one bad read: {verdict.valid} ({verdict.cause}), "
          f"{t:.2f} s, {t_evidence:.2f} s with its window ({len(verdict.evidence.window)} ops)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="also print the corpus figures as one JSON line")
    parser.add_argument("--corpus-only", action="store_true", help="skip the synthetic histories")
    parser.add_argument("--benchtime", type=float, default=0.3,
                        help="seconds of calls each kv figure averages (Go's -benchtime; default 0.3)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    figures: dict[str, object] = {}
    if args.corpus.exists():
        figures.update(bench_etcd(args.corpus, args.repeat))
        figures["kv"], figures["kv_cpu"], figures["kv_from_events"] = bench_kv(
            args.corpus, args.repeat, args.benchtime
        )
    else:
        print(f"no corpus at {args.corpus}: skipping the Porcupine histories")
    if not args.corpus_only:
        bench_synthetic()
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
