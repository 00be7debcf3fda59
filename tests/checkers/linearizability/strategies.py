"""Hypothesis strategies: small concurrent histories of a simulated atomic object, sometimes corrupted.

A history is built by interleaving, per step, one of: a process invokes an op, a pending op
takes effect on the true object (its linearization point), or a pending op completes (ok with
the true output, fail if it had no effect, or info). Then, half the time, one ok output is
replaced by another value, which usually (not always) makes the history non-linearizable.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from checkers.linearizability.history import Op

VALUES = (0, 1, 2)


def _new_call(model: str, draw: Any) -> tuple[str, Any, Any]:
    """(f, key, input) for a fresh invocation."""
    if model == "register":
        f = draw(st.sampled_from(("read", "write")))
        return f, None, None if f == "read" else draw(st.sampled_from(VALUES))
    if model == "cas-register":
        f = draw(st.sampled_from(("read", "write", "cas")))
        if f == "cas":
            return f, None, (draw(st.sampled_from((None, *VALUES))), draw(st.sampled_from(VALUES)))
        return f, None, None if f == "read" else draw(st.sampled_from(VALUES))
    if model == "kv":
        f = draw(st.sampled_from(("get", "put", "append")))
        key = draw(st.sampled_from(("a", "b")))
        return f, key, None if f == "get" else draw(st.sampled_from(("x", "y")))
    f = draw(st.sampled_from(("commit", "commit", "read")))
    return f, None, None if f == "read" else f"T{draw(st.integers(0, 9))}"


def _effect(model: str, state: dict[Any, Any], f: str, key: Any, value: Any) -> tuple[bool, Any]:
    """Apply to the true object: (had an effect / succeeded, output)."""
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


def _corrupt(model: str, draw: Any, f: str, out: Any) -> Any:
    if model == "log":
        return draw(st.integers(0, 4))
    if f in ("get",):
        return draw(st.sampled_from(("", "x", "y", "xy", "yx", None)))
    return draw(st.sampled_from((None, *VALUES)))


@st.composite
def histories(draw: Any, model: str, max_ops: int = 8, processes: int = 3) -> tuple[Op, ...]:
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
        action, w = draw(st.sampled_from(choices))
        pid = worker_pid[w]
        if action == "invoke":
            f, key, value = _new_call(model, draw)
            pending[w] = {"f": f, "key": key, "value": value, "done": False, "ok": False, "out": None}
            events.append(Op(process=pid, type="invoke", f=f, key=key, value=value))
            invoked += 1
        elif action == "effect":
            p = pending[w]
            p["done"] = True
            p["ok"], p["out"] = _effect(model, state, p["f"], p["key"], p["value"])
        else:
            p = pending.pop(w)
            if p["done"]:
                kind = draw(st.sampled_from(("ok", "ok", "ok", "info")))
            else:  # no effect yet: it did not happen, or nobody knows
                kind = draw(st.sampled_from(("fail", "info")))
            if p["done"] and not p["ok"]:
                kind = "fail"  # a cas that found another value: returned false, no effect
            if kind == "info":
                worker_pid[w] = next_pid  # Jepsen: a crashed process is replaced
                next_pid += 1
                events.append(Op(process=pid, type="info", f=p["f"], key=p["key"]))
            elif kind == "fail":
                events.append(Op(process=pid, type="fail", f=p["f"], key=p["key"], value=p["value"]))
            else:
                out = p["out"] if p["f"] in ("read", "get", "commit") else p["value"]
                events.append(Op(process=pid, type="ok", f=p["f"], key=p["key"], value=out))
    oks = [i for i, e in enumerate(events) if e.type == "ok" and e.f in ("read", "get", "commit")]
    for _ in range(draw(st.sampled_from((0, 1, 1, 2)))):
        if oks:
            i = draw(st.sampled_from(oks))
            e = events[i]
            events[i] = Op(process=e.process, type="ok", f=e.f, key=e.key, value=_corrupt(model, draw, e.f, e.value))
    from checkers.linearizability.frozen import freeze

    return tuple(
        Op(process=e.process, type=e.type, f=e.f, key=e.key, value=freeze(e.value)) for e in events
    )
