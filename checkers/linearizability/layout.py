"""One part's operations laid out for the search (`search.py`): positions, deadlines, windows.

Every op of the part gets a *position*, its rank in call order. An ok op must be linearized
before any op called after it returned, so while the earliest return still ahead is op o's,
the ops that may come next are those called before it: positions below `limit[o]`, the
*window*. Ops of unknown outcome (info) have no return; they are candidates from their call on.

A set of linearized ops is kept relative to its first gap (`base`, the number of leading
positions all done, and `rel`, the bits of the positions from there on): it stays as small
as the window whatever the length of the history, so memo keys hash in constant time
(Porcupine clones and hashes a bitset of the whole part at every step). Info ops count as
done in that set from the start (their outcome is tracked apart), so they never hold up
`base`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.sequential import SequentialModel, stepper

_BITS: list[int] = [1 << j for j in range(256)]

PLAIN_ORDER_OPS = 64
"""Parts of at most this many ops are searched in plain call order, without the producers'
index: the evidence's shrinking asks dozens of such small trials per violation, where building
and consulting the order costs more than it saves (etcd corpus with evidence: ~20% of its time;
docs/performance/check-history.md). The order changes how fast a search decides, never what it decides."""

MORE = -2
"""In a list of candidates from `Layout.later`: the rest of the window goes here (`Layout.rest`)."""


def bits_of(n: int) -> list[int]:
    """[1 << j for j in range(n)], from a list kept for the purpose."""
    while len(_BITS) < n:
        _BITS.extend(1 << j for j in range(len(_BITS), 2 * len(_BITS)))
    return _BITS[:n]


class Layout:
    """The ops of one part in call order, with what the search looks up at every step."""

    __slots__ = (
        "base", "by_ret", "forced", "ok_twin", "info", "info_rank", "info_steps", "leads_to", "limit", "model",
        "indexed", "needs", "ops", "producers_of", "reads_needing", "rel", "steps", "twin",
    )

    def __init__(self, model: SequentialModel, ops: Sequence[Operation]) -> None:
        ordered = list(ops)
        calls = [o.call for o in ordered]
        if any(a > b for a, b in zip(calls, calls[1:], strict=False)):
            ordered.sort(key=lambda o: o.call)  # (paired ops come in call order already)
            calls = [o.call for o in ordered]
        self.model = model
        self.ops: tuple[Operation, ...] = tuple(ordered)
        compile_op = model.tactics.compile_op
        self.steps = [compile_op(o) for o in ordered] if compile_op is not None else [stepper(model, o) for o in ordered]
        read_only = model.tactics.read_only
        self.forced = [o.f in read_only for o in ordered]
        self.needs = model.tactics.needs
        self.leads_to = model.tactics.leads_to
        self._windows(calls)
        self._infos()
        self._indexes()
        self.ok_twin = [-1] * len(ordered)  # (filled in by `backtracking`)
        self.producers_of: dict[Any, set[int]] | None = None
        self.indexed = False

    def _windows(self, calls: list[int]) -> None:
        """`by_ret`: the ok positions by return; `limit[i]`: the ops called by op i's return.
        A call and a return at one position (ops built by hand): the call first, since
        intervals are closed and ops that touch overlap."""
        rets: list[Any] = [o.ret for o in self.ops]
        self.by_ret = by_ret = sorted([i for i, r in enumerate(rets) if r is not None], key=rets.__getitem__)
        limit = [0] * len(rets)
        n, j = len(calls), 0
        for i in by_ret:
            r = rets[i]
            while j < n and calls[j] <= r:
                j += 1
            limit[i] = j
        self.limit = limit

    def _infos(self) -> None:
        """The info ops: their positions, their ranks (`info_rank`, by position), and `twin[k]`:
        two info ops alike (same f, key and input) are interchangeable once both are called,
        so the later one is tried only after the earlier one (its bit; 0: none)."""
        ops = self.ops
        self.info = [i for i, o in enumerate(ops) if o.ret is None]
        self.info_rank = {p: k for k, p in enumerate(self.info)}
        self.info_steps = [self.steps[p] for p in self.info]
        twin = [0] * len(self.info)
        alike: dict[Hashable, int] = {}
        for k, p in enumerate(self.info if len(self.info) > 1 else ()):
            o = ops[p]
            try:
                twin[k] = alike.get((o.f, o.key, o.input), 0)
                alike[(o.f, o.key, o.input)] = 1 << k
            except TypeError:  # an unhashable input (ops built by hand): no twin
                pass
        self.twin = twin
        rel = sum(1 << p for p in self.info)
        base = 0
        while rel & 1:
            rel >>= 1
            base += 1
        self.base, self.rel = base, rel

    def _indexes(self) -> None:
        """`reads_needing[state]`: the positions of the ok reads that need `state` (a read that
        fits is linearized at once). None: the model cannot say."""
        self.reads_needing: dict[Any, list[int]] | None = None
        needs = self.needs
        if needs is None:
            return
        reads: dict[Any, list[int]] = {}
        try:
            for i, o in enumerate(self.ops):
                if self.forced[i] and o.ret is not None:
                    need = needs(o)
                    if need is not None:
                        reads.setdefault(need, []).append(i)
        except TypeError:  # an unhashable state (ops built by hand): no index
            return
        self.reads_needing = reads

    def backtracking(self) -> None:
        """What only a search that backtracks needs, made when it first does (a search that
        runs straight through is spared it): the twins of alike ok ops (`ok_twin`), and
        `producers_of[state]`, the positions of the ops that leave `state` whatever it was
        (tried first for an op that needs it)."""
        if self.indexed:
            return
        self.indexed = True
        self._ok_twins()
        produces = self.model.tactics.produces
        if self.needs is None or produces is None or len(self.ops) <= PLAIN_ORDER_OPS:
            return
        made: dict[Any, set[int]] = {}
        try:
            for i, o in enumerate(self.ops):
                if not self.forced[i]:
                    result = produces(o)
                    if result is not None:
                        made.setdefault(result, set()).add(i)
        except TypeError:
            return
        self.producers_of = made

    def _ok_twins(self) -> None:
        """`ok_twin[i]`: the op alike op i (same f, key, input and output; not a read) that
        returns just before it, or -1. While both are candidates, only that one needs trying before op i:
        a linearization that takes op i first can swap the two (same effect; the earlier
        return is met wherever op i was, since every op placed before its twin was called
        by then)."""
        twin = self.ok_twin
        last: dict[Hashable, int] = {}
        ops = self.ops
        try:
            for i in self.by_ret:
                o = ops[i]
                if self.forced[i]:
                    continue  # (a read that fits is taken at once anyway)
                alike = (o.f, o.key, o.input, o.output)
                twin[i] = last.get(alike, -1)
                last[alike] = i
        except TypeError:  # an unhashable value (ops built by hand): no twins
            twin[:] = [-1] * len(self.ops)

    def later(self, o: int, state: Any, base: int, rel: int, info_bits: int) -> list[int]:
        """The candidates to try after op o (the earliest deadline) at a configuration:
        first those that may give o the state it needs (it needs one, and does not fit), then
        the other ok ops of the window in call order, then the info ops called by then. When
        the first are found in the index of producers, the others are listed only if they
        fail (`MORE` stands for them, for `rest` to fill in)."""
        if len(self.ops) <= PLAIN_ORDER_OPS:
            return self.rest(o, base, rel, info_bits, ())
        self.backtracking()
        need = self.needs(self.ops[o]) if self.needs is not None else None
        if need is not None and self.leads_to is None and self.producers_of is not None:
            made = self.producers_of.get(need)
            if made:
                hi, rank = self.limit[o], self.info_rank
                first = sorted(p for p in made if p != o and p < hi and (
                    (p >= base and not rel >> (p - base) & 1) if p not in rank else not info_bits >> rank[p] & 1))
                if first:
                    first.append(MORE)
                    return first
            return self.rest(o, base, rel, info_bits, ())
        every = self.rest(o, base, rel, info_bits, ())
        if need is None:
            return every
        first = self._helpers(need, state, self.limit[o], every)
        if not first:
            return every
        helping = set(first)
        return first + [i for i in every if i not in helping]

    def rest(self, o: int, base: int, rel: int, info_bits: int, tried: Collection[int]) -> list[int]:
        """The ok ops of o's window not linearized in call order, then the info ops called by
        then not taken, but o and those `tried`."""
        hi, rank = self.limit[o], self.info_rank
        rest = [i for i in range(base, hi) if not rel >> (i - base) & 1 and i != o and i not in tried]
        rest += [p for p in self.info if p < hi and not info_bits >> rank[p] & 1 and p not in tried]
        return rest

    def _helpers(self, need: Any, state: Any, hi: int, candidates: list[int]) -> list[int]:
        """Of `candidates`, those that leave `need` whatever the state, then (models whose ops
        build on the state) those that leave a state leading to it from this one."""
        made = self.producers_of.get(need) if self.producers_of is not None else None
        found = [i for i in candidates if i in made] if made else []
        leads_to: Callable[[Any, Any], bool] | None = self.leads_to
        if leads_to is not None and leads_to(state, need):
            steps, forced = self.steps, self.forced
            for i in candidates:
                if forced[i] or (made and i in made):
                    continue
                after = steps[i](state)
                if after is not None and after != state and leads_to(after, need):
                    found.append(i)
        return found
