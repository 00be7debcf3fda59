"""The engine switches of impl/bugs.py: bugs in the metadata rules, planted by wrapping the
metadata engine (`mutant_execute`, `MutantEngine`), so that they act in simulated nodes and in
`refine` runs alike. The registry itself (impl/bugs.py) stays free of impl's metadata code, so
that naming a switch loads nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import evolve

from impl import bugs
from impl.bugs import BY_NAME
from impl.engine import MetadataEngine
from impl.metadata import Accepted
from impl.metadata import Rejected as ImplRejected
from impl.metadata.fixes import execute as fixed
from impl.metadata.sequences import target_of
from impl.metadata.settled import write_placement_all_settled, write_placement_from_token_map
from spec.tokens import Range


def mutant_execute(execute: Callable[[Any, dict[str, Any]], Any],
                   mutants: frozenset[str]) -> Callable[[Any, dict[str, Any]], Any]:
    """impl.metadata's `execute` with the engine switches among `mutants` planted."""
    engine_on = sorted(m for m in mutants if BY_NAME[m].engine)
    if not engine_on:
        return execute

    def mutated(metadata: Any, t: dict[str, Any]) -> Any:
        if "reject-create-table" in engine_on and t.get("kind") == "SCHEMA_CHANGE" \
                and t.get("change", {}).get("op") == "CREATE_TABLE":
            return ImplRejected("mutant: CREATE TABLE refused")
        result = execute(metadata, t)
        if "locked-ranges-miss-wraparound" in engine_on and isinstance(result, ImplRejected) \
                and "range lock conflict" in result.reason:
            result = _without_wraparound_conflicts(execute, metadata, t, result)
        if "tokens-at-start-join" in engine_on and t.get("kind") == "START_JOIN" \
                and isinstance(result, Accepted):
            # CASSANDRA-18419: the joining node's tokens entered the token map at START

            node = str(t.get("node"))
            seq = metadata.sequences.get(node)
            m = result.metadata
            if seq is not None and node in m.directory:
                m = evolve(m, token_map=target_of(m.token_map, seq, m.directory[node].location))
                result = Accepted(metadata=m, kind=result.kind)
        return result

    return mutated


def _without_wraparound_conflicts(execute: Callable[[Any, dict[str, Any]], Any], metadata: Any,
                                  t: dict[str, Any], rejected: Any) -> Any:
    """CASSANDRA-19262: the PREPARE as Cassandra decided it before the fix, where a lock
    conflict counted only when Range.intersects said so (impl's `_intersects` also counts two
    ranges that both touch the minimum token). The PREPARE is re-run without the other
    sequences (its checks before the lock check passed already), and accepted, with them put
    back, when none of their locks intersects its own in the plain sense."""

    alone = execute(evolve(metadata, sequences={}), t)
    if not isinstance(alone, Accepted):
        return rejected
    mine = next(iter(alone.metadata.sequences.values()))
    for other in metadata.sequences.values():
        for key, ranges in mine.locked.items():
            theirs = other.locked.get(key, ())
            if any(Range(a, b).intersects(Range(c, d)) for a, b in ranges for c, d in theirs):
                return rejected
    m = evolve(alone.metadata, sequences={**metadata.sequences, **alone.metadata.sequences})
    return Accepted(metadata=m, kind=alone.kind)


def settled_for(mutants: frozenset[str]) -> Callable[[Any], Any]:
    """impl's ClusterMetadata.writePlacementAllSettled, or with the switch
    `settled-placement-from-token-map` its value before CASSANDRA-19193."""
    if bugs.on(mutants, "settled-placement-from-token-map"):
        return write_placement_from_token_map
    return write_placement_all_settled


class MutantEngine:
    """The metadata engine (with any proposed fixes) with the engine switches planted."""

    def __init__(self, mutants: frozenset[str], fixes: frozenset[str] = frozenset()) -> None:
        self._real = MetadataEngine()
        if fixes:
            base: Callable[[Any, dict[str, Any]], Any] = lambda m, t: fixed(m, t, fixes)  # noqa: E731
        else:
            base = self._real.execute
        self._execute = mutant_execute(base, mutants)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def execute(self, metadata: Any, transformation: dict[str, Any]) -> Any:
        return self._execute(metadata, transformation)


__all__ = ["MutantEngine", "mutant_execute", "settled_for"]
