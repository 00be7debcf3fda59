"""Types of the compiled search (`cwgl.c`; used through compiled.py)."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from checkers.linearizability.history import Operation

def first_linearization(
    ops: tuple[Operation, ...],
    by_ret: list[int],
    init: Any,
    budget: int,
    max_overlap: float,
    kinds: Mapping[str, int] | None,
    steps: list[Callable[[Any], Any]] | None,
    forced: Sequence[bool] | None,
    twins: list[int] | None = None,
    /,
) -> tuple[list[int] | None, int]: ...
