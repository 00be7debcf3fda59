"""Which implementation a run tests: impl as Cassandra's rules have it, with a known-bug switch
planted (impl/bugs.py), or with proposed fixes on (spec/fixes.py, impl/metadata/fixes.py).

Every place that runs impl — the run kinds, `simulate`, the stateful system machine — builds its
variant here, so a switch or a fix acts the same way wherever a run is made or replayed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import evolve

from impl.bugs import BY_NAME, check_names
from impl.engine_switches import MutantEngine, mutant_execute, settled_for
from impl.metadata import execute as execute_faithfully
from impl.metadata.fixes import execute as execute_fixed
from impl.scenario import Scenario
from spec.fixes import DATA_PATH_FIXES

Execute = Callable[[Any, dict[str, Any]], Any]


def engine_for(mutants: frozenset[str], fixes: frozenset[str] = frozenset()) -> MutantEngine | None:
    """The metadata engine a simulated cluster runs with: None (impl as it is) unless an engine
    switch is planted or a fix changes a transformation."""
    if fixes or any(BY_NAME[m].engine for m in check_names(mutants)):
        return MutantEngine(mutants, fixes)
    return None


def planted(scenario: Scenario, mutant: str | None, fixes: frozenset[str] = frozenset()
            ) -> tuple[Scenario, MutantEngine | None]:
    """The scenario with `mutant` added to the switches it names itself and the data-path fixes
    in its settings (the nodes apply those), and the engine for the rest."""
    names = scenario.settings.mutants | (check_names([mutant]) if mutant is not None else frozenset())
    settings = evolve(scenario.settings, mutants=names)
    if fixes & DATA_PATH_FIXES:
        settings = evolve(settings, fixes=fixes & DATA_PATH_FIXES)
    return evolve(scenario, settings=settings), engine_for(names, fixes)


def metadata_execute(mutant: str | None, fixes: frozenset[str] = frozenset()) -> Execute:
    """impl.metadata's `execute` as a refinement run compares it with the spec: with the fixes'
    refusals, then the engine switch."""
    base: Execute = execute_faithfully
    if fixes:
        base = lambda m, t: execute_fixed(m, t, fixes)  # noqa: E731
    return mutant_execute(base, check_names([mutant]) if mutant is not None else frozenset())


def metadata_settled(mutant: str | None) -> Callable[[Any], Any]:
    """impl's settled write placement (ClusterMetadata.writePlacementAllSettled) as a refinement
    run compares it with the spec's, with the switch planted."""
    return settled_for(check_names([mutant]) if mutant is not None else frozenset())


__all__ = ["engine_for", "metadata_execute", "metadata_settled", "planted"]
