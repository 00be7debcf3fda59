"""Seeded histories unlike Porcupine's corpus, for benchmarking the linearizability checker.

    python benchmarks/history_families.py OUT_DIR [--sizes 1000 5000 20000] [--clients 10 50] [--seed 24]

writes one JSONL history per family, size, client count and verdict wanted
(`{family}-{ops}-c{clients}-{ok|bad}.jsonl`, DESIGN's event shape, `time` in ns), readable by
`tcmcheck check-history` (kv files with `--model kv`, the others `--model cas-register`).
`compare_porcupine.py --families` checks the same histories with Porcupine side by side.

The families (issue 24), each from a small simulation of clients against a store, with
operations that take effect at one instant inside their interval. A client calls its next
operation a short think time after the last returned; latencies vary threefold, and one
operation in twenty is four times slower, so intervals overlap unevenly (with 10 clients about
eight operations are in flight at a time, with 50 about forty):

- `kv-random`: get/put/append on 8 keys; values and suffixes are random opaque strings (no
  separator, no shared first character, no prefix structure).
- `kv-hot`: the same, with nine operations in ten on one key.
- `kv-reuse`: appends of one or two characters from "abc" (and puts of such strings), so
  suffixes reuse characters and values repeat.
- `cas-register`: one register, read/write/cas, writes of unique values, a cas expecting the
  value its client read last; one write or cas in 200 crashes (unknown outcome: took effect or
  not, even odds), and its client goes on under a new process id.
- `cas-crashes` (issue 35): the same with one write or cas in 20 crashing (about 30 crashed
  operations in 1,000, each pending from its call to the end of the history).
- `replicated-register` and `replicated-kv`: a leader and two followers; writes are applied by
  the leader, acknowledged once one follower has them, and shipped to each follower after its
  own lag; one write in 300 times out (lost on its way or applied, even odds). In the linearizable version every read is
  served by the leader; in the other a tenth of the reads go to a follower, which may not
  have applied a write already acknowledged: a real stale-replica race, not a planted value.

"Not linearizable" for the first five: the same history as the linearizable one, with one
anomaly planted late in it (past 60%): a read returning the value its key had before a write
that returned before the read was called, the writer of that older value having returned
before the write was called (the kv families), or a failed cas turned into a second successful
one from a value already swapped away (the register). A planted anomaly is a violation
whenever no other operation could have brought the old value back, which unique values make
nearly certain (not so with `kv-reuse`'s); the checkers decide, and a "bad" history may turn
out linearizable (both checkers then say so).
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import string
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checkers.linearizability.history import Op  # noqa: E402

FAMILIES = ("kv-random", "kv-hot", "kv-reuse", "cas-register", "cas-crashes", "replicated-register", "replicated-kv")
MODEL = {"kv-random": "kv", "kv-hot": "kv", "kv-reuse": "kv", "cas-register": "cas-register",
         "cas-crashes": "cas-register", "replicated-register": "cas-register", "replicated-kv": "kv"}
CRASHES = {"cas-register": 0.005, "cas-crashes": 0.05}
"""The share of a cas register's writes and cas that crash (their outcome unknown)."""
SIZES = (1_000, 5_000, 20_000)
CLIENTS = (10, 50)
_OPAQUE = string.ascii_letters + string.digits


class _Op:
    """One operation while it is simulated: its interval, its effect and its outcome."""

    __slots__ = ("call", "client", "crashed", "effect", "f", "input", "key", "output", "ret")

    def __init__(self, client: int, f: str, key: Any, value: Any, call: float, ret: float) -> None:
        self.client, self.f, self.key, self.input = client, f, key, value
        self.call, self.ret = call, ret
        self.effect: float | None = None  # the instant it takes effect (None: never)
        self.output: Any = None
        self.crashed = False


def _intervals(rng: random.Random, ops: int, clients: int, crash: float) -> list[tuple[int, float, float, bool]]:
    """(client, call, return, crashed) for `ops` operations: each client calls its next one a
    short think time after its last returned (one in twenty is four times slower, so intervals
    overlap unevenly); a crashed one ends after a timeout, and its client goes on."""
    free = [(rng.uniform(0, 100.0), c) for c in range(clients)]
    heapq.heapify(free)
    out = []
    for _ in range(ops):
        start, c = heapq.heappop(free)
        crashed = rng.random() < crash
        latency = 300.0 if crashed else rng.uniform(5.0, 15.0) * (4.0 if rng.random() < 0.05 else 1.0)
        out.append((c, start, start + latency, crashed))
        heapq.heappush(free, (start + latency + rng.uniform(0.0, 5.0), c))
    return out


def _events(done: list[_Op]) -> tuple[Op, ...]:
    """The history of simulated ops: invocations and completions in time order, a crashed op's
    completion `info` (its client then invokes under a new process id, as Jepsen's do)."""
    timeline: list[tuple[float, int, int, _Op]] = []
    for i, o in enumerate(done):
        timeline.append((o.call, 0, i, o))
        timeline.append((o.ret, 1, i, o))
    timeline.sort(key=lambda t: (t[0], t[1], t[2]))
    process: dict[int, int] = {}
    fresh = max((o.client for o in done), default=-1) + 1
    events: list[Op] = []
    for t, is_return, _, o in timeline:
        p = process.setdefault(o.client, o.client)
        time = int(t * 1000)
        if not is_return:
            events.append(Op(process=p, type="invoke", f=o.f, key=o.key, value=o.input, time=time))
        elif o.crashed:
            events.append(Op(process=p, type="info", f=o.f, key=o.key, time=time))
            process[o.client] = fresh
            fresh += 1
        elif o.output is _FAILED:
            events.append(Op(process=p, type="fail", f=o.f, key=o.key, value=o.input, time=time))
        else:
            events.append(Op(process=p, type="ok", f=o.f, key=o.key, value=o.output, time=time))
    return tuple(events)


_FAILED = object()  # a cas that did not swap: Jepsen's `fail` (it did not happen)


def _opaque(rng: random.Random, used: set[str], low: int = 2, high: int = 6) -> str:
    """A random string of letters and digits not drawn before."""
    while True:
        s = "".join(rng.choices(_OPAQUE, k=rng.randint(low, high)))
        if s not in used:
            used.add(s)
            return s


# --- atomic stores: every op takes effect at one instant of its interval -----------------------


def _kv_ops(family: str, rng: random.Random, n: int, clients: int) -> list[_Op]:
    keys = [str(k) for k in range(8)]
    used: set[str] = set()
    ops = []
    for c, call, ret, crashed in _intervals(rng, n, clients, 0.0):
        key = keys[0] if family == "kv-hot" and rng.random() < 0.9 else rng.choice(keys)
        f = rng.choices(("get", "put", "append"), (4, 2, 4))[0]
        if f == "get":
            value = None
        elif family == "kv-reuse":
            value = "".join(rng.choices("abc", k=rng.randint(1, 2)))
        else:
            value = _opaque(rng, used, 1 if f == "append" else 2, 4 if f == "append" else 6)
        o = _Op(c, f, key, value, call, ret)
        o.crashed = crashed and f != "get"
        ops.append(o)
    return ops


def _kv_apply(state: dict[Any, Any], o: _Op) -> None:
    current = state.get(o.key)
    if o.f == "get":
        o.output = current
    elif o.f == "put":
        state[o.key] = o.input
    else:
        state[o.key] = ("" if current is None else current) + o.input


def _cas_ops(rng: random.Random, n: int, clients: int, crash: float) -> list[_Op]:
    ops = []
    for k, (c, call, ret, crashed) in enumerate(_intervals(rng, n, clients, crash)):
        f = rng.choices(("read", "write", "cas"), (4, 2, 4))[0]
        value: Any = None if f == "read" else k + 1 if f == "write" else [0, k + 1]
        o = _Op(c, f, None, value, call, ret)
        o.crashed = crashed and f != "read"
        ops.append(o)
    return ops


def _cas_apply(state: dict[Any, Any], o: _Op) -> None:
    current = state.get(None)
    if o.f == "read":
        o.output = current
    elif o.f == "write":
        state[None] = o.input
    elif current == o.input[0]:
        state[None] = o.input[1]
        o.output = o.input
    else:
        o.output = _FAILED


def _run_atomic(ops: list[_Op], rng: random.Random, apply: Callable[[dict[Any, Any], _Op], None],
                expect: Callable[[_Op, dict[int, Any]], None] | None = None) -> None:
    """Each op takes effect at a random instant of its interval (a crashed one, half the time
    never); outputs are what the store held then."""
    for o in ops:
        if not o.crashed or rng.random() < 0.5:
            o.effect = rng.uniform(o.call, o.ret)
    state: dict[Any, Any] = {}
    seen: dict[int, Any] = {}  # client -> the last value it read (for its next cas)
    for o in sorted((o for o in ops if o.effect is not None), key=lambda o: o.effect):  # type: ignore[arg-type, return-value]
        if expect is not None:
            expect(o, seen)
        apply(state, o)
        if o.f == "read":
            seen[o.client] = o.output


def _expect_seen(o: _Op, seen: dict[int, Any]) -> None:
    if o.f == "cas":
        o.input = [seen.get(o.client), o.input[1]]


def _plant_stale_read(ops: list[_Op], rng: random.Random) -> None:
    """A get late in the history returns its key's value from before a write that returned
    before the get was called, and before the writer of that older value returned."""
    order = sorted((o for o in ops if o.effect is not None), key=lambda o: o.effect)  # type: ignore[arg-type, return-value]
    history: dict[Any, list[tuple[_Op, Any]]] = {}  # key -> (writer, value after it), in effect order
    state: dict[Any, Any] = {}
    for o in order:
        if o.f != "get":
            _kv_apply(state, o)
            history.setdefault(o.key, []).append((o, state[o.key]))
    gets = [o for o in ops if o.f == "get" and not o.crashed and o.call > ops[int(len(ops) * 0.6)].call]
    rng.shuffle(gets)
    for g in gets:
        writes = history.get(g.key, [])
        for k in range(len(writes) - 1, 0, -1):
            w, _ = writes[k]
            u, old = writes[k - 1]
            if w.ret < g.call and u.ret < w.call and old != g.output and not w.crashed and not u.crashed:
                g.output = old
                return


def _plant_double_cas(ops: list[_Op]) -> None:
    """A failed cas late in the history succeeds after all, from a value already swapped away."""
    late = ops[int(len(ops) * 0.6)].call
    swaps = [o for o in ops if o.f == "cas" and o.output is not _FAILED and not o.crashed and o.effect is not None]
    for o in ops:
        if o.f == "cas" and o.output is _FAILED and o.call > late:
            earlier = [s for s in swaps if s.ret < o.call and s.input[0] is not None]
            if earlier:
                s = earlier[-1]
                o.input = [s.input[0], o.input[1]]
                o.output = o.input
                return


# --- a replicated store: a leader and two followers -------------------------------------------


class _Replicas:
    """The leader's log, and each follower's copy: a follower applies entry k its own lag
    after the leader did, and never before entry k - 1."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.log: list[tuple[float, Any, Any]] = []  # (applied at the leader, key, value after)
        self.lag = [rng.uniform(2.0, 6.0), rng.uniform(2.0, 6.0)]
        self.applied: list[list[float]] = [[], []]  # follower -> when it applies each entry
        self.copies: list[dict[Any, Any]] = [{}, {}]
        self.done = [0, 0]  # entries in each copy

    def append(self, at: float, key: Any, value: Any) -> float:
        """Log a write the leader applied at `at`; when the faster follower has it (its ack)."""
        self.log.append((at, key, value))
        return min(self._applied_at(f, len(self.log) - 1) for f in (0, 1))

    def _applied_at(self, f: int, k: int) -> float:
        times = self.applied[f]
        while len(times) <= k:
            at = self.log[len(times)][0] + self.lag[f] * self.rng.uniform(0.5, 1.5)
            times.append(max(at, times[-1]) if times else at)
        return times[k]

    def read(self, f: int, key: Any, at: float) -> Any:
        """Follower f's value of `key` at `at` (asked in time order: its copy only grows)."""
        copy = self.copies[f]
        k = self.done[f]
        while k < len(self.log) and self._applied_at(f, k) <= at:
            copy[self.log[k][1]] = self.log[k][2]
            k += 1
        self.done[f] = k
        return copy.get(key)


def _replicated(family: str, rng: random.Random, n: int, clients: int, linearizable: bool) -> list[_Op]:
    """Clients send each op to the leader (a network delay, now and then five times longer),
    which applies it on arrival, in arrival order, and acknowledges a write once the faster
    follower has applied it too. A timed-out write (1%) was lost on its way or applied,
    unknown to its client. Reads are served where they arrive: by the leader, or (not
    linearizable) a tenth of them by a follower, which may lag behind an acknowledged write."""
    kv = family == "replicated-kv"
    keys = [str(k) for k in range(8)] if kv else [None]
    read, write, other = ("get", "put", "append") if kv else ("read", "write", "cas")
    apply = _kv_apply if kv else _cas_apply
    used: set[str] = set()
    replicas = _Replicas(rng)
    leader: dict[Any, Any] = {}
    seen: dict[int, Any] = {}  # client -> the last value it read (for its next cas)
    ops: list[_Op] = []
    by_follower: dict[int, int] = {}  # id of a read a follower serves -> the follower
    # (time, sequence, what, client or op): "call" a client's next op, "arrive" at a replica
    agenda: list[tuple[float, int, str, Any]] = [(rng.uniform(0, 50.0), c, "call", c) for c in range(clients)]
    heapq.heapify(agenda)
    seq = clients
    while agenda:
        t, _, what, x = heapq.heappop(agenda)
        seq += 1
        if what == "call":
            if len(ops) >= n:
                continue
            f = rng.choices((read, write, other), (4, 2, 4))[0]
            value: Any = None
            if f != read:
                if kv:
                    value = _opaque(rng, used, 1 if f == "append" else 2, 4 if f == "append" else 6)
                else:
                    value = len(ops) + 1 if f == "write" else [seen.get(x), len(ops) + 1]
            o = _Op(x, f, rng.choice(keys), value, t, t)
            ops.append(o)
            if f != read and rng.random() < 0.003:
                o.crashed = True
                o.ret = t + 300.0
                heapq.heappush(agenda, (o.ret + rng.uniform(0, 5.0), seq, "call", x))
                if rng.random() < 0.5:
                    continue  # lost on its way
            if f == read and not linearizable and rng.random() < 0.1:
                by_follower[id(o)] = rng.randrange(2)
            heapq.heappush(agenda, (t + rng.uniform(0.5, 3.0) * (4.0 if rng.random() < 0.05 else 1.0), seq, "arrive", o))
            continue
        o, done = x, t
        o.effect = t
        if id(o) in by_follower:
            o.output = replicas.read(by_follower[id(o)], o.key, t)
        else:
            apply(leader, o)
            if o.f != read and o.output is not _FAILED:
                done = max(t, replicas.append(t, o.key, leader.get(o.key)))
        if o.f == read:
            seen[o.client] = o.output
        if not o.crashed:
            o.ret = done + rng.uniform(0.5, 3.0)
            heapq.heappush(agenda, (o.ret + rng.uniform(0, 5.0), seq, "call", o.client))
    return ops


# --- the families ------------------------------------------------------------------------------


def generate(family: str, ops: int, clients: int, linearizable: bool, seed: int) -> tuple[Op, ...]:
    """One history of `family` with `ops` operations from `clients` clients; `linearizable`
    False plants an anomaly (or lets followers serve reads). Same arguments, same history."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r} (one of {', '.join(FAMILIES)})")
    # the same history both ways for the atomic families: the other only has its anomaly planted
    rng = random.Random(f"{family}/{ops}/{clients}/{seed}")
    if family.startswith("replicated-"):
        return _events(_replicated(family, rng, ops, clients, linearizable))
    if family in CRASHES:
        done = _cas_ops(rng, ops, clients, CRASHES[family])
        _run_atomic(done, rng, _cas_apply, _expect_seen)
        if not linearizable:
            _plant_double_cas(done)
    else:
        done = _kv_ops(family, rng, ops, clients)
        _run_atomic(done, rng, _kv_apply)
        if not linearizable:
            _plant_stale_read(done, rng)
    return _events(done)


def suite(sizes: tuple[int, ...] = SIZES, clients: tuple[int, ...] = CLIENTS, seed: int = 24,
          families: tuple[str, ...] = FAMILIES) -> list[tuple[str, str, tuple[Op, ...]]]:
    """(name, model name, history) for every family, size, client count, ok and bad."""
    out = []
    for family in families:
        for n in sizes:
            for c in clients:
                for ok in (True, False):
                    name = f"{family}-{n}-c{c}-{'ok' if ok else 'bad'}"
                    out.append((name, MODEL[family], generate(family, n, c, ok, seed)))
    return out


def event_json(op: Op) -> dict[str, Any]:
    return {"process": op.process, "type": op.type, "f": op.f, "key": op.key, "value": op.value, "time": op.time}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--clients", type=int, nargs="+", default=list(CLIENTS))
    parser.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, _, history in suite(tuple(args.sizes), tuple(args.clients), args.seed, tuple(args.families)):
        lines = [json.dumps(event_json(e), sort_keys=True) for e in history]
        (args.out / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{name}.jsonl: {len(history)} events")


if __name__ == "__main__":
    main()
