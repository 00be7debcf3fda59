"""Types of the compiled search (`cwgl.c`; used through compiled.py)."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from checkers.linearizability.history import Operation

def first_linearization(
    ops: tuple[Operation, ...],
    by_ret: list[int] | None,
    init: Any,
    budget: int,
    max_overlap: float,
    kinds: Mapping[str, int] | None,
    steps: list[Callable[[Any], Any]] | None,
    forced: Sequence[bool] | None,
    twins: list[int] | None = None,
    /,
) -> tuple[list[int] | None, int, tuple[list[int], int, int] | None]: ...

def register_chains(ops: tuple[Operation, ...], first: Any, /) -> Any: ...

def arrange(c: list[int], d: list[int], /) -> list[int] | tuple[int, int]: ...

def lined_up(ops: tuple[Operation, ...], order: list[int], /) -> tuple[list[Operation], tuple[int, ...]] | None: ...

class Searcher:
    """The search of one part, run in slices (`advance`): compiled.Alongside."""

    def __init__(
        self,
        ops: tuple[Operation, ...],
        by_ret: list[int],
        init: Any,
        kinds: Mapping[str, int] | None,
        steps: list[Callable[[Any], Any]] | None,
        forced: Sequence[bool] | None,
        twins: list[int] | None = None,
        memo_words: int = -1,
        memo_entries: int = -1,
        /,
    ) -> None: ...
    def advance(self, budget: int, /) -> list[int] | None | bool: ...
    @property
    def taken(self) -> int: ...
    @property
    def memo(self) -> int: ...
    @property
    def pruned(self) -> int: ...
    @property
    def refuted(self) -> tuple[list[int], int, int] | None: ...
