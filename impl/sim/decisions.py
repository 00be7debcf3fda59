"""The run's random decisions, drawn from the seed or replayed from a decision list.

Every random choice a simulation makes after generating its workloads (message delays, losses,
duplicates and reorder delays on the bus; peer choices, gossip timer offsets, Paxos backoffs
on the nodes) is a *decision*: a named draw with a *default*, its simplest value — deliver (not
lose), no duplicate, no reorder delay, the latency floor, the first peer, no timer offset, the
shortest backoff. A decision is addressed by its key (the draw site and who draws, e.g.
``delay n1>n2 Commit``) and by how many draws of that key came before it, so that deleting a
decision, or a message, leaves the addresses of unrelated draws unchanged.

Two modes:
- **seeded** (`script=None`): each draw comes from the run's one `random.Random`, making exactly
  the calls the code made before decisions existed (a seed gives the run it always gave);
  with `record=True` every draw that took a non-default value is kept in `taken`.
- **scripted** (`script` given): each draw takes the scripted value at its address, or the
  default when the script has none (or, with a `fallback` RNG — a scenario's
  `decision_seed` — a draw from that RNG); the run's RNG is not touched. Replaying `taken` of a seeded run
  as a script gives that run again, byte for byte, and deleting entries from a script makes
  the run simpler: that is what schedule shrinking (campaign/shrink.py) does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

Decision = tuple[str, int, int]
"""(key, index, value): the `index`-th draw of `key` took `value` (a flip stores 0 or 1)."""


class Decisions:
    def __init__(self, rng: random.Random, script: Iterable[Decision] | None = None, *,
                 record: bool = False, fallback: random.Random | None = None) -> None:
        self._rng = rng
        # scripted mode: where the script has no entry, a draw from `fallback` (a scenario's
        # `decision_seed`) instead of the default; what it draws is kept in `taken`, so the
        # run replays from `taken` alone
        self._fallback = fallback
        self._script: dict[tuple[str, int], int] | None = (
            None if script is None else {(k, i): v for k, i, v in script})
        self._record = record or script is not None
        self._counts: dict[str, int] = {}
        self.taken: list[Decision] = []
        """The non-default decisions this run took, in the order it took them (kept when
        recording, and always in scripted mode: the script entries the run actually used)."""

    @property
    def scripted(self) -> bool:
        return self._script is not None

    def _next(self, key: str) -> int:
        i = self._counts.get(key, 0)
        self._counts[key] = i + 1
        return i

    def _take(self, key: str, value: int, default: int) -> int:
        if value != default:
            self.taken.append((key, self._counts[key] - 1, value))
        return value

    def draw(self, key: str, sample: Callable[[random.Random], int], default: int,
             lo: int | None = None, hi: int | None = None) -> int:
        """A value from `sample(rng)` (seeded) or the script; a scripted value outside
        [lo, hi] is clamped into it (a script written for a bigger scenario)."""
        if not self._record:
            return sample(self._rng)
        i = self._next(key)
        if self._script is None:
            value = sample(self._rng)
        else:
            scripted = self._script.get((key, i))
            if scripted is not None:
                value = scripted
            elif self._fallback is not None:
                value = sample(self._fallback)
            else:
                value = default
            if lo is not None and value < lo:
                value = lo
            if hi is not None and value > hi:
                value = hi
        return self._take(key, value, default)

    @property
    def recording(self) -> bool:
        """Whether keys are counted (a script is followed, or decisions are recorded): when not,
        a caller may skip building a costly key, which is then never read."""
        return self._record

    def flip(self, key: str, p: float) -> bool:
        """True with probability `p` (`rng.random() < p`); default False."""
        if not self._record:  # the same draw as `draw` makes, without its closure (a hot path)
            return self._rng.random() < p
        return bool(self.draw(key, lambda r: int(r.random() < p), 0, 0, 1))

    def randrange(self, key: str, n: int) -> int:
        """`rng.randrange(n)`; default 0 (the first choice, no offset)."""
        if not self._record:
            return self._rng.randrange(n)
        return self.draw(key, lambda r: r.randrange(n), 0, 0, max(n - 1, 0))

    def randint(self, key: str, lo: int, hi: int) -> int:
        """`rng.randint(lo, hi)`; default `lo`."""
        return self.draw(key, lambda r: r.randint(lo, hi), lo, lo, hi)


def parse_decision(item: object, where: str) -> Decision:
    """One `[key, index, value]` entry of a scenario's decision list (ValueError when malformed)."""
    if not (isinstance(item, list | tuple) and len(item) == 3 and isinstance(item[0], str)
            and all(isinstance(x, int) and not isinstance(x, bool) for x in item[1:])
            and item[1] >= 0):
        raise ValueError(f"{where}: expected [key, index >= 0, integer value], got {item!r}")
    return (item[0], int(item[1]), int(item[2]))


__all__ = ["Decision", "Decisions", "parse_decision"]
