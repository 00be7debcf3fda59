"""`check-history --output edn`: the verdict in the shape of Jepsen's linearizability checker.

Knossos answers `{:valid? false, :op OP, :previous-ok OP, :final-paths ...}` for a violation
(knossos.wgl's invalid-analysis: `:op` the ok completion no linearization reaches,
`:previous-ok` the ok completion before its call; knossos.linear's adds `:configs`),
`{:valid? true ...}`, or `{:valid? :unknown, :cause :timeout}` when its time limit runs out
(`:out-of-memory` when memory does; knossos.search run). `jepsen.independent/checker` lifts a
checker over keys as `{:valid? ..., :results {k result}, :failures [k ...]}`. tcmcheck follows
those keys (docs/check-history.md has the mapping):

- `:op` and `:previous-ok` are the completions, as op maps written as the input wrote them;
- `:configs` is Knossos' list of configurations at the failure, `{:model M, :last-op OP,
  :pending [OP ...]}`: here the one the search got furthest in (the state after the longest
  linearization found, its last op, and the calls still open when `:op` completed that it had
  not linearized), where Knossos lists every configuration alive at that point;
- `:final-paths` is Knossos' set of paths from that configuration: every order of some of the
  pending calls (none from `:op`'s process), then `:op`, each step `{:op OP, :model M}`, a path
  ending at its first step the model refuses, whose `:model` is
  `#knossos.model.Inconsistent{:msg ...}`. Given when at most `MAX_FINAL_CALLS` calls are
  pending (Knossos computes every subset of every size; past that it is thousands of paths);
- `:sub-history` (not Knossos'): a smallest failing sub-history's events, with
  `:sub-history-minimal? true` when dropping any one operation makes it linearizable;
- a model state (`:model`) is the register's or the key's value for registers and kv, else the
  model's own words for it as a string (`"locked"`, `"#{1 2}"`), where Knossos prints its record;
- a history with keys (Jepsen's `independent`, or a `key` field) gets the independent shape,
  one result per key: the search stops at the first key that fails, so keys it did not reach
  are `{:valid? :unknown, :cause :not-searched}`;
- `--max-states` running out is `:cause :out-of-memory` (Knossos' name for the same bound).
"""

from __future__ import annotations

from itertools import combinations, permutations
from typing import Any

from attrs import frozen

from campaign.formats.history_out import Source, edn
from checkers.linearizability.history import Operation
from checkers.linearizability.sequential import SequentialModel
from checkers.linearizability.values import value_state
from checkers.linearizability.verdict import (
    CACHE_LIMIT,
    TIMEOUT,
    LinearizabilityEvidence,
    PartitionResult,
    Verdict,
)

CAUSES = {TIMEOUT: ":timeout", CACHE_LIMIT: ":out-of-memory", "not-searched": ":not-searched"}

MAX_FINAL_CALLS = 4
"""`:final-paths` is given when at most this many calls are pending (at most 65 orders)."""

@frozen
class _Map:
    """An EDN map of (written key, node) entries; a node is written EDN text (str), a `_Map`, a
    vector (list) of nodes, or a set (tuple) of nodes."""

    entries: list[tuple[str, Any]]


def pretty(node: Any, col: int = 0) -> str:
    """EDN laid out as Clojure's pprint does: a map's entries, a vector's items one per line,
    aligned under the first; a short map (at most two entries of text) on one line."""
    if isinstance(node, str):
        return node
    if isinstance(node, _Map):
        if len(node.entries) <= 2 and all(isinstance(v, str) and len(v) < 40 for _, v in node.entries):
            return "{" + ", ".join(f"{k} {v}" for k, v in node.entries) + "}"
        pad = "\n" + " " * (col + 1)
        return "{" + ("," + pad).join(f"{k} {pretty(v, col + 2 + len(k))}" for k, v in node.entries) + "}"
    if isinstance(node, tuple):
        pad = "\n" + " " * (col + 2)
        return "#{" + pad.join(pretty(item, col + 2) for item in node) + "}"
    pad = "\n" + " " * (col + 1)
    return "[" + pad.join(pretty(item, col + 1) for item in node) + "]"


def _completion(source: Source, o: Operation | None) -> str:
    if o is None:
        return "nil"
    return source.edn(o.ret if o.ret is not None else o.call)


def _violation(verdict: Verdict, source: Source, model: SequentialModel) -> _Map:
    ev = verdict.evidence
    entries: list[tuple[str, Any]] = [(":valid?", "false"),
                                      (":op", _completion(source, ev.failing_op)),
                                      (":previous-ok", _completion(source, ev.previous_ok))]
    if ev.failing_op is not None:
        state = ev.prefix_states[-1] if ev.prefix_states else model.init
        last = ev.longest_prefix[-1] if ev.longest_prefix else None
        pending = _pending(ev, ev.failing_op)
        entries.append((":configs", [_Map([(":model", _state(model, state)),
                                           (":last-op", _completion(source, last)),
                                           (":pending", [source.edn(o.call) for o in pending])])]))
        if len(pending) <= MAX_FINAL_CALLS:
            entries.append((":final-paths", _final_paths(model, source, state, last, pending, ev.failing_op)))
    entries += [(":sub-history", [source.edn(i) for i in source.events_of(ev.window)]),
                (":sub-history-minimal?", edn(ev.window_minimal))]
    return _Map(entries)


def _pending(ev: LinearizabilityEvidence, failing: Operation) -> list[Operation]:
    """The calls still open when `failing` completed (knossos.wgl's concurrent-ops-at) that the
    longest linearization did not take, but `failing`'s process's own."""
    part = next((p for p in ev.partitions if failing in p.operations), None)
    done = {o.id for o in ev.longest_prefix}
    end = failing.ret if failing.ret is not None else failing.call
    return [o for o in (part.operations if part is not None else ())
            if o.call < end and (o.ret is None or o.ret > end) and o.id not in done
            and o.process != failing.process]


def _state(model: SequentialModel, state: Any) -> str:
    """A model state as `:model` writes it: the value for registers and kv, else the model's words."""
    if model.describe_state is value_state:
        return edn(state[0])
    return edn(model.describe_state(state))


def _final_paths(model: SequentialModel, source: Source, state: Any, last: Operation | None,
                 pending: list[Operation], failing: Operation) -> tuple[list[_Map], ...]:
    """Knossos' final paths (knossos.analysis/final-paths-for-config): from the configuration,
    each order of each subset of the pending calls, then the failing op, stepped until the
    model refuses a step."""
    paths: dict[tuple[tuple[int, str], ...], list[_Map]] = {}
    start = [] if last is None else [(last, _state(model, state))]
    for size in range(len(pending) + 1):
        for chosen in combinations(pending, size):
            for order in permutations(chosen):
                at, path = state, list(start)
                for o in (*order, failing):
                    after = model.step(at, o)
                    if after is None:
                        why = f"{model.describe_op(o)} cannot follow, in state {model.describe_state(at)}"
                        path.append((o, "#knossos.model.Inconsistent{:msg " + edn(why) + "}"))
                        break
                    at = after
                    path.append((o, _state(model, at)))
                key = tuple((o.id, m) for o, m in path)
                if key not in paths:
                    paths[key] = [_Map([(":op", _completion(source, o)), (":model", m)]) for o, m in path]
    return tuple(paths.values())


def _unknown(cause: str) -> _Map:
    return _Map([(":valid?", ":unknown"), (":cause", CAUSES.get(cause, edn(cause)))])


def _part(verdict: Verdict, part: PartitionResult, source: Source, model: SequentialModel) -> _Map:
    if part.valid is True:
        return _Map([(":valid?", "true")])
    if part.valid is False:
        return _violation(verdict, source, model)
    searched = verdict.valid == "unknown"  # every part was searched until the limit ran out
    return _unknown(verdict.cause if searched else "not-searched")


def edn_result(verdict: Verdict, source: Source, model: SequentialModel) -> str:
    """The verdict as Jepsen's EDN result map (see the module doc)."""
    parts = [p for p in verdict.evidence.partitions if p.operations]
    if not any(p.key is not None for p in parts):
        if verdict.valid is True:
            return "{:valid? true}"
        return pretty(_violation(verdict, source, model) if verdict.valid is False else _unknown(verdict.cause))
    keys = [edn(source.key(p.operations[0].call)) for p in parts]
    top: list[tuple[str, Any]] = [(":valid?", edn(verdict.valid) if verdict.valid != "unknown" else ":unknown")]
    if verdict.valid == "unknown":
        top.append((":cause", CAUSES.get(verdict.cause, edn(verdict.cause))))
    top.append((":results", _Map([(k, _part(verdict, p, source, model)) for k, p in zip(keys, parts, strict=True)])))
    top.append((":failures", "[" + " ".join(k for k, p in zip(keys, parts, strict=True) if p.valid is False) + "]"))
    return pretty(_Map(top))


__all__ = ["CAUSES", "edn_result"]
