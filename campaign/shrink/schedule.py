"""Shrinking a sim failure by its scenario *and* its schedule (docs/shrink.md).

The run's random decisions are recorded (impl/sim/decisions.py) and the case is turned into one
that replays them from a decision list, so that scenario edits no longer reshuffle the rest of
the run; then scenario items and decisions are deleted (a deleted decision takes its default:
deliver, no duplicate, the latency floor, the first peer, no timer offset) while the cause class
holds. DEMi-style delta debugging; why each pass exists is said at the pass.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from attrs import frozen

from campaign.errors import BadInput
from campaign.kinds import checked
from campaign.kinds.sim import payload
from campaign.kinds.sim import steps as sim_steps
from campaign.run.record import Outcome, RunSpec
from campaign.shrink.greedy import drop_node, shrink_case


@frozen(kw_only=True)
class SimSize:
    """A sim failure's size: `steps` (`sim_steps`) and `events`, the decisions of its schedule
    that are not the default (a lost or duplicated message, a delay above the floor, a peer
    other than the first, a timer offset, a backoff above the shortest)."""

    steps: int
    events: int

    def to_json(self) -> dict[str, int]:
        return {"steps": self.steps, "events": self.events}


def shrink_sim(spec: RunSpec, *, max_checks: int = 2000
               ) -> tuple[dict[str, Any], Outcome, int, SimSize, SimSize]:
    """Schedule and scenario shrinking of a failing sim run (its case set; its mutant and fixes
    kept in every candidate run).

    Returns the smallest failing case found — it carries its decision list, so it replays
    alone — its outcome, the runs spent, and the sizes before and after. ValueError when the
    case does not fail."""
    assert spec.case is not None
    case = dict(spec.case)
    first = checked(spec, record_decisions=True)
    if first.cause is None:
        raise ValueError("the case does not fail: nothing to shrink")
    before = SimSize(steps=sim_steps(case), events=len(payload(first).decisions))
    state = _Shrinking(first.cause.klass, spec, max_checks)
    best = {**case, "decisions": [list(d) for d in payload(first).decisions]}
    best_outcome = first
    if "decisions" not in case:
        # the seeded run replayed from its recording: the same run (impl/sim/decisions.py)
        replayed = state.test(best)
        if replayed is None:  # cannot happen unless determinism broke; shrink the scenario only
            small, o, checks = shrink_case(spec, max_checks=max_checks)
            return small, o, checks + 1, before, SimSize(steps=sim_steps(small), events=before.events)
        best, best_outcome = replayed
    # first fewer items under other schedules (at most 3 x RESEEDS runs, where a big case's
    # deletions cost far more), and once more when deletions stall
    early = _reseed(best, state)
    if early is not None:
        best, best_outcome = early
    reseeded = False
    while not state.spent:
        improved = False
        for edit in SIM_PASSES:
            if state.spent:
                break
            result = edit(best, state)
            if result is not None:
                best, best_outcome = result
                improved = True
        if improved:
            continue
        # deletions stalled: fewer items under other schedules, once (then deletions again)
        result = None if reseeded else _reseed(best, state)
        reseeded = True
        if result is None:
            break
        best, best_outcome = result
    return best, best_outcome, state.checks + 1, before, SimSize(
        steps=sim_steps(best), events=len(best.get("decisions", [])))


RESEEDS = 25
"""Schedules `_reseed` tries per size (none, an eighth, half of each list's items)."""


def _reseed(case: dict[str, Any], state: _Shrinking) -> tuple[dict[str, Any], Outcome] | None:
    """The case with none, then an eighth, then half of each workload's and client's items,
    under other schedules: the decisions drawn from `decision_seed` 0, 1, ... instead of the
    recorded list, while the workloads, generated from the run's seed, stay the same. A failure
    that needed one unlucky schedule for many items may need another for few
    (catchup-trusts-lagging-peer: 20 schema commits that no single, pair or triple can leave,
    but none of them under another schedule, the CMS's own reconfiguration commits sufficing).
    The first candidate that fails the same way is kept with the decisions it took (no
    `decision_seed`: it replays alone)."""
    lists = [(k, i) for k in ("workloads", "clients") for i in range(len(case.get(k, [])))]
    for keep in (lambda n: 0, lambda n: n // 8, lambda n: n // 2):
        candidate = copy.deepcopy(case)
        for k, i in lists:
            w = candidate[k][i]
            items = list(w["only"]) if "only" in w else list(range(int(w.get("count", 100 if k == "workloads" else 200))))
            w["only"] = items[: keep(len(items))]
        if sim_steps(candidate) >= sim_steps(case):
            continue
        for ds in range(RESEEDS):
            if state.spent:
                return None
            found = state.test({**candidate, "decisions": [], "decision_seed": ds})
            if found is not None:
                alone = {k: v for k, v in found[0].items() if k != "decision_seed"}
                return state.test(alone)  # the recorded decisions replay it (None: they did not)
    return None


class _Shrinking:
    """The test a candidate must pass (fail with the target cause class), and the budget."""

    def __init__(self, target: str, spec: RunSpec, max_checks: int) -> None:
        self.target, self.spec = target, spec
        self.max_checks = max_checks
        self.checks = 0

    @property
    def spent(self) -> bool:
        return self.checks >= self.max_checks

    def test(self, candidate: dict[str, Any]) -> tuple[dict[str, Any], Outcome] | None:
        """The candidate with its decision list cut to the decisions the run used, and its
        outcome — when it still fails with the target cause class."""
        if self.spent:
            return None
        self.checks += 1
        try:
            o = checked(self.spec.with_case(candidate), record_decisions=True)
        except (BadInput, ValueError, KeyError):  # an edit that no longer parses
            return None
        if o.cause is None or o.cause.klass != self.target:
            return None
        return {**candidate, "decisions": [list(d) for d in payload(o).decisions]}, o


Pass = Callable[[dict[str, Any], _Shrinking], "tuple[dict[str, Any], Outcome] | None"]


def _ddmin(case: dict[str, Any], state: _Shrinking, items: list[Any],
           rebuild: Callable[[dict[str, Any], list[Any]], dict[str, Any]]
           ) -> tuple[dict[str, Any], Outcome] | None:
    """Delete chunks of `items` (all of them first, then halves, quarters, ... single items),
    keeping each deletion after which the case still fails the same way."""
    found: tuple[dict[str, Any], Outcome] | None = None
    size = len(items)
    while size >= 1 and items and not state.spent:
        start = 0
        while start < len(items) and not state.spent:
            kept = items[:start] + items[start + size:]
            result = state.test(rebuild(case, kept))
            if result is not None:
                found = result
                case, items = result[0], kept
                items = _still_there(items, case, rebuild)
            else:
                start += size
        size = size // 2 if size > 1 else 0
    return found


def _still_there(items: list[Any], case: dict[str, Any], rebuild: Callable[..., Any]) -> list[Any]:
    """After a kept deletion of decisions, the run may have dropped unused ones: follow it."""
    if rebuild is _with_decisions:
        return [list(d) for d in case["decisions"]]
    return items


def _with_decisions(case: dict[str, Any], kept: list[Any]) -> dict[str, Any]:
    return {**case, "decisions": kept}


def _pass_decisions(case: dict[str, Any], state: _Shrinking) -> tuple[dict[str, Any], Outcome] | None:
    found = None
    # first by kind and by link (every reorder delay; every decision about n1>n2 Commit
    # messages; ...): few runs, and often most of the list
    by_kind: Callable[[list[Any]], str] = lambda d: str(d[0]).split(" ", 1)[0]  # noqa: E731
    by_key: Callable[[list[Any]], str] = lambda d: str(d[0])  # noqa: E731
    for group in (by_kind, by_key):
        groups = sorted({group(d) for d in case.get("decisions", [])})
        if len(groups) > 1:
            def rebuild(c: dict[str, Any], kept: list[Any],
                        group: Callable[[list[Any]], str] = group) -> dict[str, Any]:
                return _with_decisions(c, [d for d in c["decisions"] if group(d) in kept])
            r = _ddmin(case, state, groups, rebuild)
            if r is not None:
                case, found = r[0], r
    r = _ddmin(case, state, list(case.get("decisions", [])), _with_decisions)
    return r or found


def _pass_all_defaults(case: dict[str, Any], state: _Shrinking) -> tuple[dict[str, Any], Outcome] | None:
    # one run: does the failure need its schedule at all? (a single deletion of thousands
    # of decisions; the ddmin over them comes after the scenario passes made them fewer)
    return state.test(_with_decisions(case, [])) if case.get("decisions") else None


def _pass_fault_lists(case: dict[str, Any], state: _Shrinking) -> tuple[dict[str, Any], Outcome] | None:
    found = None
    for key in ("crashes", "partitions"):
        def rebuild(c: dict[str, Any], kept: list[Any], key: str = key) -> dict[str, Any]:
            c = copy.deepcopy(c)
            c.setdefault("faults", {})[key] = kept
            return c
        r = _ddmin(case, state, list(case.get("faults", {}).get(key, [])), rebuild)
        if r is not None:
            case, found = r[0], r
    for key in ("loss", "duplicate", "reorder"):
        if case.get("faults", {}).get(key):
            c = copy.deepcopy(case)
            c["faults"][key] = 0.0
            r = state.test(c)
            if r is not None:
                case, found = r[0], r
    return found


def _pass_top_lists(case: dict[str, Any], state: _Shrinking) -> tuple[dict[str, Any], Outcome] | None:
    found = None
    for key in ("submissions", "cancels", "cms_changes", "operations"):
        def rebuild(c: dict[str, Any], kept: list[Any], key: str = key) -> dict[str, Any]:
            return {**c, key: kept}
        r = _ddmin(case, state, list(case.get(key, [])), rebuild)
        if r is not None:
            case, found = r[0], r
    return found


def _pass_workloads(case: dict[str, Any], state: _Shrinking) -> tuple[dict[str, Any], Outcome] | None:
    found = None
    # clients first: their operations make most of a run's messages, so most decisions
    for key, default in (("clients", 200), ("workloads", 100)):
        for i in range(len(case.get(key, []))):
            w = case[key][i]
            items = list(w["only"]) if "only" in w else list(range(int(w.get("count", default))))

            def rebuild(c: dict[str, Any], kept: list[Any], key: str = key, i: int = i) -> dict[str, Any]:
                c = copy.deepcopy(c)
                c[key][i]["only"] = kept
                return c
            r = _ddmin(case, state, items, rebuild)
            if r is not None:
                case, found = r[0], r
        # a workload with nothing left to issue goes, when that changes nothing else
        # (the ones after it generate from the seed as before only if it was the last)
        for i in reversed(range(len(case.get(key, [])))):
            if case[key][i].get("only") == [] and not state.spent:
                r = state.test({**case, key: case[key][:i] + case[key][i + 1:]})
                if r is not None:
                    case, found = r[0], r
    return found


def _pass_nodes(case: dict[str, Any], state: _Shrinking) -> tuple[dict[str, Any], Outcome] | None:
    found = None
    for node in reversed([n["id"] for n in case["topology"]["nodes"]]):
        if len(case["topology"]["nodes"]) <= 1 or state.spent:
            break
        if any(o.get("node") == node or o.get("target") == node for o in case.get("operations", [])):
            continue
        c = copy.deepcopy(case)
        drop_node(c, node)
        r = state.test(c)
        if r is not None:
            case, found = r[0], r
    return found


SIM_PASSES: tuple[Pass, ...] = (_pass_all_defaults, _pass_fault_lists, _pass_top_lists, _pass_workloads,
                                _pass_decisions, _pass_nodes)
"""Biggest effects first: the whole schedule at once, faults, scenario lists, workloads, then the
decisions (fewer by then: a smaller scenario takes fewer), then nodes."""


