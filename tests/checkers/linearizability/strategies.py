"""Hypothesis strategies: small concurrent histories of a simulated atomic object, sometimes corrupted.

A history is built by interleaving, per step, one of: a process invokes an op, a pending op
takes effect on the true object (its linearization point), or a pending op completes (ok with
the true output, fail if it had no effect, or info). Then, half the time, one ok output is
replaced by another value, which usually (not always) makes the history non-linearizable.
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st

from checkers.linearizability.history import Op

VALUES = (0, 1, 2)
OUTPUTS = frozenset({"read", "get", "commit", "txn", "dequeue"})
"""The `f`s whose ok completion carries what the op returned (others echo their input)."""


@functools.cache
def _sampled(values: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    """`st.sampled_from(values)`, made once per tuple (building a strategy costs more than a draw)."""
    return st.sampled_from(values)


@functools.cache
def _index(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n - 1)


def _pick(draw: Any, items: list[Any]) -> Any:
    return items[draw(_index(len(items)))]


KNOSSOS = ("mutex", "multi-register", "set", "unordered-queue", "fifo-queue")
"""Knossos' models: their calls, effects and corruptions are `_knossos_*` below."""


def _new_call(model: str, draw: Any, keys: tuple[str, ...] = ("a", "b")) -> tuple[str, Any, Any]:
    """(f, key, input) for a fresh invocation (a kv key one of `keys`)."""
    if model in KNOSSOS:
        return _knossos_call(model, draw)
    if model == "register":
        f = draw(_sampled(("read", "write")))
        return f, None, None if f == "read" else draw(_sampled(VALUES))
    if model == "cas-register":
        f = draw(_sampled(("read", "write", "cas")))
        if f == "cas":
            return f, None, (draw(_sampled((None, *VALUES))), draw(_sampled(VALUES)))
        return f, None, None if f == "read" else draw(_sampled(VALUES))
    if model == "kv":
        f = draw(_sampled(("get", "put", "append")))
        key = draw(_sampled(keys))
        return f, key, None if f == "get" else draw(_sampled(("x", "y")))
    f = draw(_sampled(("commit", "commit", "read")))
    return f, None, None if f == "read" else f"T{draw(_index(10))}"


def _effect(model: str, state: dict[Any, Any], f: str, key: Any, value: Any, draw: Any = None) -> tuple[bool, Any]:
    """Apply to the true object: (had an effect / succeeded, output)."""
    if model in KNOSSOS:
        return _knossos_effect(model, state, f, key, value, draw)
    cur = state.get(key, 0 if model == "log" else None)
    if f in ("read", "get"):
        return True, cur
    if f in ("write", "put"):
        state[key] = value
        return True, None
    if f == "append":
        state[key] = (cur or "") + value
        return True, None
    if f == "cas":
        if cur == value[0]:
            state[key] = value[1]
            return True, None
        return False, None
    # commit: the next epoch, or now and then a rejection decided at the current one
    if value.endswith("9"):
        return True, {"rejected": "nope", "epoch": cur}
    state[key] = cur + 1
    return True, cur + 1


_MICRO_OPS = tuple([("read", k, None) for k in ("x", "y")] + [("write", k, v) for k in ("x", "y") for v in VALUES])
# (made once: a strategy built per draw costs more than the draw)
_TXN = st.lists(st.sampled_from(_MICRO_OPS), min_size=1, max_size=3)
_LOCK_F = st.sampled_from(("acquire", "release"))
_SET_F = st.sampled_from(("add", "add", "read"))
_QUEUE_F = st.sampled_from(("enqueue", "enqueue", "dequeue"))
_KEY = st.sampled_from((None, None, "a"))
_VALUE = st.sampled_from(VALUES)


def _knossos_call(model: str, draw: Any) -> tuple[str, Any, Any]:
    if model == "mutex":
        return draw(_LOCK_F), draw(_KEY), None
    if model == "multi-register":
        return "txn", None, tuple(draw(_TXN))
    if model == "set":
        f = draw(_SET_F)
        return f, draw(_KEY), None if f == "read" else draw(_VALUE)
    f = draw(_QUEUE_F)
    return f, None, None if f == "dequeue" else draw(_VALUE)


def _knossos_effect(model: str, state: dict[Any, Any], f: str, key: Any, value: Any, draw: Any) -> tuple[bool, Any]:
    """The true object's step; (False, None) for an op it refuses (a held lock's acquire, a
    dequeue of an empty queue): no effect, completed as `fail`."""
    if model == "mutex":
        held = state.get(key, False)
        if held == (f == "acquire"):
            return False, None
        state[key] = f == "acquire"
        return True, None
    if model == "multi-register":
        regs = state.setdefault(key, {})
        out = []
        for mf, k, v in value:
            if mf == "read":
                out.append((mf, k, regs.get(k)))
            else:
                regs[k] = v
                out.append((mf, k, v))
        return True, tuple(out)
    if model == "set":
        members = state.setdefault(key, set())
        if f == "add":
            members.add(value)
            return True, None
        return True, frozenset(members)
    pending = state.setdefault(key, [])
    if f == "enqueue":
        pending.append(value)
        return True, None
    if not pending:
        return False, None
    at = 0 if model == "fifo-queue" else draw(_index(len(pending)))
    return True, pending.pop(at)


def _corrupt(model: str, draw: Any, f: str, out: Any) -> Any:
    if model == "multi-register":
        k = draw(_index(len(out)))
        mf, key, _ = out[k]
        return (*out[:k], (mf, key, draw(_sampled((None, *VALUES)))), *out[k + 1:])
    if model == "set":
        return frozenset(draw(st.sets(st.sampled_from(VALUES), max_size=3)))
    if model in ("unordered-queue", "fifo-queue"):
        return draw(_sampled(VALUES))
    if model == "log":
        return draw(_index(5))
    if f in ("get",):
        return draw(_sampled(("", "x", "y", "xy", "yx", None)))
    return draw(_sampled((None, *VALUES)))


@st.composite
def histories(draw: Any, model: str, max_ops: int = 8, processes: int = 3,
              keys: tuple[str, ...] = ("a", "b")) -> tuple[Op, ...]:
    state: dict[Any, Any] = {}
    worker_pid = list(range(processes))
    next_pid = processes
    pending: dict[int, dict[str, Any]] = {}
    events: list[Op] = []
    invoked = 0
    while True:
        choices = []
        if invoked < max_ops:
            choices += [("invoke", w) for w in range(processes) if w not in pending]
        choices += [("effect", w) for w, p in pending.items() if not p["done"]]
        choices += [("complete", w) for w in pending]
        if not choices:
            break
        action, w = _pick(draw, choices)
        pid = worker_pid[w]
        if action == "invoke":
            f, key, value = _new_call(model, draw, keys)
            pending[w] = {"f": f, "key": key, "value": value, "done": False, "ok": False, "out": None}
            events.append(Op(process=pid, type="invoke", f=f, key=key, value=value))
            invoked += 1
        elif action == "effect":
            p = pending[w]
            p["done"] = True
            p["ok"], p["out"] = _effect(model, state, p["f"], p["key"], p["value"], draw)
        else:
            p = pending.pop(w)
            if p["done"]:
                kind = draw(_sampled(("ok", "ok", "ok", "info")))
            else:  # no effect yet: it did not happen, or nobody knows
                kind = draw(_sampled(("fail", "info")))
            if p["done"] and not p["ok"]:
                kind = "fail"  # a cas that found another value: returned false, no effect
            if kind == "info":
                worker_pid[w] = next_pid  # Jepsen: a crashed process is replaced
                next_pid += 1
                events.append(Op(process=pid, type="info", f=p["f"], key=p["key"]))
            elif kind == "fail":
                events.append(Op(process=pid, type="fail", f=p["f"], key=p["key"], value=p["value"]))
            else:
                out = p["out"] if p["f"] in OUTPUTS else p["value"]
                events.append(Op(process=pid, type="ok", f=p["f"], key=p["key"], value=out))
    oks = [i for i, e in enumerate(events) if e.type == "ok" and e.f in OUTPUTS]
    fails = [i for i, e in enumerate(events) if e.type == "fail"]
    for _ in range(draw(_sampled((0, 1, 1, 2)))):
        if model == "mutex" and fails:  # an acquire or release that failed claims it took effect
            i = _pick(draw, fails)
            events[i] = Op(process=events[i].process, type="ok", f=events[i].f, key=events[i].key)
        elif oks:
            i = _pick(draw, oks)
            e = events[i]
            events[i] = Op(process=e.process, type="ok", f=e.f, key=e.key, value=_corrupt(model, draw, e.f, e.value))
    from checkers.linearizability.frozen import freeze

    return tuple(
        Op(process=e.process, type=e.type, f=e.f, key=e.key, value=freeze(e.value)) for e in events
    )
