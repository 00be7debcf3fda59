"""`HypothesisDraw`: Hypothesis choices behind the `random.Random` methods the shared generators
(strategies/cases.py) call, so that one generator serves the campaign (a seeded RNG) and the
Hypothesis strategies (shrinkable choices) alike.

Each method is one Hypothesis draw, so an example shrinks the way Hypothesis shrinks them:
`random()` towards 0.0 (the generators' first branch), `randint` towards its lower bound or zero,
`choice` towards the first item, `sample` towards the first items in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

UNIT = tuple(i / 1024 for i in range(1024))
"""What `random()` draws from: evenly spread (Hypothesis's own floats crowd at 0.0 and near 1.0,
which would skew the generators' branch weights), and shrinking to 0.0, the first branch."""


class HypothesisDraw:
    """The `strategies.cases.Draw` protocol over a Hypothesis `draw` function."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def random(self) -> float:
        return self._draw(st.sampled_from(UNIT))

    def randint(self, a: int, b: int) -> int:
        return self._draw(st.integers(min_value=a, max_value=b))

    def choice(self, seq: Sequence[T]) -> T:
        return self._draw(st.sampled_from(seq))

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        indexes = self._draw(st.lists(st.integers(0, len(population) - 1), min_size=k, max_size=k, unique=True))
        return [population[i] for i in indexes]

    def uniform(self, a: float, b: float) -> float:
        return self._draw(st.floats(min_value=a, max_value=b))


__all__ = ["HypothesisDraw"]
