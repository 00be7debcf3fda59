"""`check-history --output edn`: the verdict in the shape of Jepsen's linearizability checker.

Knossos answers `{:valid? false, :op OP, :previous-ok OP, :final-paths ...}` for a violation
(knossos.wgl's invalid-analysis: `:op` the ok completion no linearization reaches,
`:previous-ok` the ok completion before its call), `{:valid? true ...}`, or `{:valid? :unknown,
:cause :timeout}` when its time limit runs out (`:out-of-memory` when memory does; knossos.search
run). `jepsen.independent/checker` lifts a checker over keys as `{:valid? ..., :results {k
result}, :failures [k ...]}`. tcmcheck follows those keys:

- `:op` and `:previous-ok` are the completions, as op maps written as the input wrote them;
- in place of Knossos' `:final-paths` (every order of the ops concurrent with `:op`, each with
  its model states, which this search does not enumerate) it gives `:sub-history`: a smallest
  failing sub-history's events (`:sub-history-minimal? true` when dropping any one operation
  makes it linearizable);
- a history with keys (Jepsen's `independent`, or a `key` field) gets the independent shape,
  one result per key: the search stops at the first key that fails, so keys it did not reach
  are `{:valid? :unknown, :cause :not-searched}`;
- `--max-states` running out is `:cause :out-of-memory` (Knossos' name for the same bound).
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from campaign.formats.history_out import Source, edn
from checkers.linearizability.history import Operation
from checkers.linearizability.verdict import CACHE_LIMIT, TIMEOUT, PartitionResult, Verdict

CAUSES = {TIMEOUT: ":timeout", CACHE_LIMIT: ":out-of-memory", "not-searched": ":not-searched"}

@frozen
class _Map:
    """An EDN map of (written key, node) entries; a node is written EDN text (str), a `_Map`, or
    a vector (list) of nodes."""

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
    pad = "\n" + " " * (col + 1)
    return "[" + pad.join(pretty(item, col + 1) for item in node) + "]"


def _completion(source: Source, o: Operation | None) -> str:
    if o is None:
        return "nil"
    return source.edn(o.ret if o.ret is not None else o.call)


def _violation(verdict: Verdict, source: Source) -> _Map:
    ev = verdict.evidence
    return _Map([(":valid?", "false"),
                 (":op", _completion(source, ev.failing_op)),
                 (":previous-ok", _completion(source, ev.previous_ok)),
                 (":sub-history", [source.edn(i) for i in source.events_of(ev.window)]),
                 (":sub-history-minimal?", edn(ev.window_minimal))])


def _unknown(cause: str) -> _Map:
    return _Map([(":valid?", ":unknown"), (":cause", CAUSES.get(cause, edn(cause)))])


def _part(verdict: Verdict, part: PartitionResult, source: Source) -> _Map:
    if part.valid is True:
        return _Map([(":valid?", "true")])
    if part.valid is False:
        return _violation(verdict, source)
    searched = verdict.valid == "unknown"  # every part was searched until the limit ran out
    return _unknown(verdict.cause if searched else "not-searched")


def edn_result(verdict: Verdict, source: Source) -> str:
    """The verdict as Jepsen's EDN result map (see the module doc)."""
    parts = [p for p in verdict.evidence.partitions if p.operations]
    if not any(p.key is not None for p in parts):
        if verdict.valid is True:
            return "{:valid? true}"
        return pretty(_violation(verdict, source) if verdict.valid is False else _unknown(verdict.cause))
    keys = [edn(source.key(p.operations[0].call)) for p in parts]
    top: list[tuple[str, Any]] = [(":valid?", edn(verdict.valid) if verdict.valid != "unknown" else ":unknown")]
    if verdict.valid == "unknown":
        top.append((":cause", CAUSES.get(verdict.cause, edn(verdict.cause))))
    top.append((":results", _Map([(k, _part(verdict, p, source)) for k, p in zip(keys, parts, strict=True)])))
    top.append((":failures", "[" + " ".join(k for k, p in zip(keys, parts, strict=True) if p.valid is False) + "]"))
    return pretty(_Map(top))


__all__ = ["CAUSES", "edn_result"]
