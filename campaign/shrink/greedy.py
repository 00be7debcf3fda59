"""Greedy shrinking of a failing case: the first smaller variant that still fails with the same
cause class is kept, and the search starts over from it (refine cases; sim cases before their
schedule is recorded, campaign/shrink/schedule.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from campaign.errors import BadInput
from campaign.kinds import checked
from campaign.run.record import Outcome, RunSpec


def shrink_case(spec: RunSpec, *, max_checks: int = 2000) -> tuple[dict[str, Any], Outcome, int]:
    """Greedy minimization: apply the first smaller variant that still fails with the same
    cause class, and start over from it, until none does (or `max_checks` runs were spent).
    Every candidate runs with the spec's mutant and fixes.

    Returns the smallest failing case found, its outcome and the number of runs spent. The
    case must fail to begin with (ValueError otherwise)."""
    assert spec.case is not None
    case = dict(spec.case)
    kind = spec.kind
    outcome = checked(spec)
    if outcome.cause is None:
        raise ValueError("the case does not fail: nothing to shrink")
    target = outcome.cause.klass
    checks = 1
    improved = True
    while improved and checks < max_checks:
        improved = False
        for candidate in _variants(kind, case):
            if checks >= max_checks:
                break
            checks += 1
            try:
                o = checked(spec.with_case(candidate))
            except (BadInput, ValueError, KeyError):  # a variant that no longer parses
                continue
            if o.cause is not None and o.cause.klass == target:
                case, outcome, improved = candidate, o, True
                break
    return case, outcome, checks


def _variants(kind: str, case: dict[str, Any]) -> Iterable[dict[str, Any]]:
    def edit(fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        c = copy.deepcopy(case)
        fn(c)
        return c

    if kind == "stateful":  # Hypothesis has shrunk it already
        return
    if kind == "refine":
        ts = case["transformations"]
        size = len(ts) // 2
        while size >= 1:  # drop chunks, biggest first, latest first
            for start in range(len(ts) - size, -1, -size):
                yield {**case, "transformations": ts[:start] + ts[start + size:]}
            size //= 2
        for i in range(len(case["topology"]["nodes"])):
            if len(case["topology"]["nodes"]) > 1:
                yield edit(_pop(("topology", "nodes"), i))
        for i, n in enumerate(case["topology"]["nodes"]):
            if len(n["tokens"]) > 1:
                yield edit(_set(("topology", "nodes", i), "tokens", n["tokens"][:1]))
        if len(case["topology"].get("keyspaces", [])) > 1:
            for i in range(len(case["topology"]["keyspaces"])):
                yield edit(_pop(("topology", "keyspaces"), i))
        return
    faults = case.get("faults", {})
    for key in ("crashes", "partitions"):
        for i in range(len(faults.get(key, []))):
            yield edit(_pop(("faults", key), i))
    for key in ("loss", "duplicate", "reorder"):
        if faults.get(key):
            yield edit(_set(("faults",), key, 0.0))
    subs = case.get("submissions", [])
    size = len(subs) // 2
    while size >= 1:
        for start in range(len(subs) - size, -1, -size):
            yield {**case, "submissions": subs[:start] + subs[start + size:]}
        size //= 2
    for i, w in enumerate(case.get("workloads", [])):
        yield edit(_pop(("workloads",), i))
        count = int(w.get("count", 100))
        for smaller in sorted({count // 2, count - 1} - {0, count}):
            yield edit(_set(("workloads", i), "count", smaller))
    nodes = [n["id"] for n in case["topology"]["nodes"]]
    if len(nodes) > 1:
        for node in reversed(nodes):
            yield edit(partial(drop_node, node=node))


Edit = Callable[[dict[str, Any]], None]


def _at(c: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        c = c[step]
    return c


def _pop(path: tuple[str | int, ...], index: int) -> Edit:
    """An edit removing item `index` of the list at `path`."""
    return lambda c: _at(c, path).pop(index)


def _set(path: tuple[str | int, ...], key: str, value: Any) -> Edit:
    """An edit setting `key` of the object at `path`."""
    return lambda c: _at(c, path).__setitem__(key, value)


def drop_node(c: dict[str, Any], node: str) -> None:
    """The scenario without `node` and every reference to it."""
    c["topology"]["nodes"] = [n for n in c["topology"]["nodes"] if n["id"] != node]
    c["submissions"] = [s for s in c.get("submissions", []) if s["node"] != node]
    for w in c.get("workloads", []) + c.get("clients", []):
        if "nodes" in w:
            w["nodes"] = [n for n in w["nodes"] if n != node]
            if not w["nodes"]:
                del w["nodes"]
    faults = c.get("faults", {})
    faults["crashes"] = [x for x in faults.get("crashes", []) if x["node"] != node]
    parts = []
    for p in faults.get("partitions", []):
        if "isolate" in p:
            p["isolate"] = [n for n in p["isolate"] if n != node]
            keep = bool(p["isolate"])
        else:
            p["groups"] = [[n for n in g if n != node] for g in p["groups"]]
            p["groups"] = [g for g in p["groups"] if g]
            keep = bool(p["groups"])
        if keep:
            parts.append(p)
    faults["partitions"] = parts
    cms = c.get("cms", {})
    if "members" in cms:
        cms["members"] = [n for n in cms["members"] if n != node]
    if "size" in cms:
        cms["size"] = min(cms["size"], len(c["topology"]["nodes"]))


__all__ = ["drop_node", "shrink_case"]
