"""Reductions of the search that keep every verdict: unobserved info ops, pruning by value.

`useful_info` says which ops of unknown outcome some linearization may need (the others leave
the search); `Producers` answers, for an ok op that needs one state, which ops left could still
produce it (a branch where none can is a dead end). docs/check-history.md, "The search", has
the arguments.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.layout import Layout
from checkers.linearizability.sequential import SequentialModel

FOREVER = float("inf")


def useful_info(model: SequentialModel, ops: Sequence[Operation]) -> list[bool] | None:
    """Which info ops some linearization may need; None if all (nothing to leave out).

    An info op may also never take effect, so one that no ok op can observe is left out:
    - one called after every ok op returned comes after them all in any linearization;
    - for models that say what each op needs and produces (registers): an info op whose
      produced state no ok op returning after its call needs, nor a useful info op needs to
      take effect. Leaving it out changes no state any op needs (the state an op sees is the
      last effect before it, which comes from an op called before it returns; and every effect
      that may produce a needed state is kept, with the state it needs)."""
    last_ok = -1
    n_info = 0
    for o in ops:
        if o.ret is None:
            n_info += 1
        elif o.ret > last_ok:
            last_ok = o.ret
    if not n_info:
        return None
    useful = [o.ret is not None or o.call <= last_ok for o in ops]
    needs, produces, effect_needs = model.tactics.needs, model.tactics.produces, model.tactics.effect_needs
    if needs is not None and produces is not None and effect_needs is not None and model.tactics.leads_to is not None:
        return useful_info_leading(model, ops, useful)
    if needs is not None and produces is not None and effect_needs is not None:
        read_only = model.tactics.read_only
        needed: dict[Any, float] = {}  # a state ok ops need -> the latest return of one
        waiting: dict[Any, list[int]] = {}  # produced state -> info ops producing it
        for j, o in enumerate(ops):
            if o.ret is not None:
                need = needs(o)
                if need is None and (o.f in read_only or produces(o) is None):
                    return all_or_none(useful)  # an ok op that depends on the state otherwise
                if need is not None and needed.get(need, -1) < o.ret:
                    needed[need] = o.ret
            elif useful[j]:
                result = produces(o)
                if result is None:
                    return all_or_none(useful)  # its effect depends on the state (an append)
                waiting.setdefault(result, []).append(j)
        for candidates in waiting.values():
            for j in candidates:
                useful[j] = False
        todo = list(needed)
        while todo:
            state = todo.pop()
            until = needed[state]
            for j in waiting.get(state, ()):
                if useful[j] or ops[j].call > until:
                    continue
                useful[j] = True
                need = effect_needs(ops[j])
                if need is not None and needed.get(need) != FOREVER:
                    # an info op may take effect at any time after its call
                    needed[need] = FOREVER
                    todo.append(need)
    return all_or_none(useful)


def useful_info_leading(model: SequentialModel, ops: Sequence[Operation], useful: list[bool]) -> list[bool] | None:
    """`useful_info` for models whose ops build on the state (kv's append): an info op is kept
    if the state it leaves may lead (`leads_to`, `may_lead`) to one an ok op returning after its
    call needs, or a useful info op needs to take effect. One left out leaves a state from which
    no needed one is reached before a fixed result (a put) replaces it, and the ops in between
    accept any state, so nothing any op needs changes."""
    needs, produces, effect_needs = model.tactics.needs, model.tactics.produces, model.tactics.effect_needs
    leads_to, may_lead = model.tactics.leads_to, model.tactics.may_lead
    assert needs is not None and produces is not None and effect_needs is not None and leads_to is not None
    if may_lead is None:
        return all_or_none(useful)
    needed: dict[Any, float] = {}
    candidates: list[int] = []
    for j, o in enumerate(ops):
        if o.ret is not None:
            need = needs(o)
            if need is None:
                if o.f in model.tactics.read_only:
                    return all_or_none(useful)
                continue  # a put or an append: accepts any state
            if needed.get(need, -1) < o.ret:
                needed[need] = o.ret
        elif useful[j]:
            candidates.append(j)
            useful[j] = False
    changed = True
    while changed:
        changed = False
        for j in candidates:
            if useful[j]:
                continue
            o = ops[j]
            result = produces(o)
            for need, until in needed.items():
                if until >= o.call and (leads_to(result, need) if result is not None else may_lead(o, need)):
                    useful[j] = True
                    break
            else:
                continue
            enabling = effect_needs(o)
            if enabling is not None and needed.get(enabling) != FOREVER:
                needed[enabling] = FOREVER  # an info op may take effect at any time after its call
                changed = True
    return all_or_none(useful)


def leading(model: SequentialModel, states: Iterable[Any]) -> Callable[[Any], list[Any]]:
    """A lookup `target -> those of states that may lead to target` (`model.tactics.leads_to`; without
    it, only the target itself), by the model's index (`model.tactics.leading`) when it has one."""
    if model.tactics.leads_to is None:
        known = set(states)
        return lambda target: [target] if target in known else []
    if model.tactics.leading is not None:
        return model.tactics.leading(states)
    every, leads_to = list(states), model.tactics.leads_to
    return lambda target: [s for s in every if leads_to(s, target)]


def all_or_none(useful: list[bool]) -> list[bool] | None:
    return None if all(useful) else useful


class Producers:
    """Pruning by value. For an ok op that needs one state (`model.tactics.needs`): the ops of the part
    that could produce that state (`model.tactics.produces`, `model.tactics.reaches`) as a bitset, -1 when the
    model cannot say; and in `restart[j]` those that could set a state from which it may be
    reached again (`model.tactics.leads_to`), -1 when the model cannot say, -2 until first asked.
    Only ops called before the op returns count: the others cannot come before it."""

    def __init__(self, model: SequentialModel, ops: tuple[Operation, ...], bits: list[int]) -> None:
        self.model = model
        self.ops = ops
        self.bits = bits
        self.restart = [-1] * len(ops)
        self.needed: list[Any] = [None] * len(ops)
        self.leads_to = model.tactics.leads_to or never_leads
        self.ready = False
        self.fixed_ready = False
        self.fixed: dict[Any, int] = {}  # state -> the ops that set it, whatever it was
        self.dependent: list[int] = []  # ops whose result depends on the state
        self.by_state: dict[Any, int] = {}
        self.again: dict[Any, int] = {}
        self.sources: Callable[[Any], list[Any]] | None = None  # fixed results leading to a state
        self.calls: list[int] = []
        self.prefix: list[int] = []  # the first k ops called, as a mask (unless in call order)
        self.in_call_order = False
        self.all_ops = 0

    def _prepare(self) -> None:
        ops, bits = self.ops, self.bits
        calls = [o.call for o in ops]
        if all(a <= b for a, b in zip(calls, calls[1:], strict=False)):
            self.in_call_order = True  # paired ops: the first k ops called are ops 0..k-1
        else:
            order = sorted(range(len(ops)), key=lambda k: ops[k].call)
            calls = [ops[k].call for k in order]
            prefix = [0]
            for k in order:
                prefix.append(prefix[-1] | bits[k])
            self.prefix = prefix
        self.calls = calls
        self.all_ops = (1 << len(ops)) - 1
        self.ready = True

    def _prepare_fixed(self) -> None:
        """`fixed` and `dependent` (asked by `restarts`, and by `of` without `leads_to`)."""
        model, bits = self.model, self.bits
        produces = model.tactics.produces
        for k, o in enumerate(self.ops):
            if o.f in model.tactics.read_only:
                continue
            result = None if produces is None else produces(o)
            if result is None:
                self.dependent.append(k)
            else:
                self.fixed[result] = self.fixed.get(result, 0) | bits[k]
        self.fixed_ready = True

    def of(self, j: int) -> int:
        model = self.model
        if model.tactics.needs is None or model.tactics.reaches is None:
            return -1
        need = model.tactics.needs(self.ops[j])
        if need is None:
            return -1
        if not self.ready:
            self._prepare()
        produce = self.by_state.get(need)
        if produce is None:
            reaches, ops, bits = model.tactics.reaches, self.ops, self.bits
            if model.tactics.leads_to is not None:
                # The state must lead to `need`, or an op left must produce one that does
                # (`restarts`): that alone prunes well (kv), so skip asking every append
                # whether it could produce `need` itself (all ops count as producers).
                produce = self.all_ops
            else:
                if not self.fixed_ready:
                    self._prepare_fixed()
                produce = self.fixed.get(need, 0)
                for k in self.dependent:
                    if reaches(ops[k], need):
                        produce |= bits[k]
            self.by_state[need] = produce
        self.needed[j] = need
        self.restart[j] = -2 if self.model.tactics.leads_to is not None else -1
        return produce & self._usable(j)

    def restarts(self, j: int) -> int:
        """The ops that set a state leading to what op j needs (computed when first asked)."""
        need = self.needed[j]
        again = self.again.get(need)
        if again is None:
            again = 0
            if not self.fixed_ready:
                self._prepare_fixed()
            if self.sources is None:
                self.sources = leading(self.model, self.fixed)
            fixed = self.fixed
            for result in self.sources(need):
                again |= fixed[result]
            self.again[need] = again
        again &= self._usable(j)
        self.restart[j] = again
        return again

    def _usable(self, j: int) -> int:
        """Ops called before op j returns, but j: the only ones that can come before it."""
        ret = self.ops[j].ret
        if ret is None:
            usable = self.all_ops
        else:
            k = bisect_right(self.calls, ret)
            usable = (1 << k) - 1 if self.in_call_order else self.prefix[k]
        return usable & ~self.bits[j]


def never_leads(state: Any, target: Any) -> bool:
    return True


class Pruning:
    """Pruning by value (`Producers`), set up when first needed: a search starts it only once
    it has made more configurations than it has ops (the masks cost more than they save
    before). `dead(c, ...)`: op c, which does not fit, needs a state that no op left can
    produce, nor lead to from here."""

    def __init__(self, model: SequentialModel, lay: Layout, bits: list[int]) -> None:
        self.after = len(lay.ops)
        self.model, self.lay, self.bits = model, lay, bits
        self.producers: Producers | None = None
        self.doomed: list[int | None] = [None] * len(lay.ops)
        self.free_info: dict[int, int] = {}

    def dead(self, c: int, state: Any, base: int, rel: int, info_bits: int) -> bool:
        producers = self.producers
        if producers is None:
            producers = self.producers = Producers(self.model, self.lay.ops, self.bits)
        need = self.doomed[c]
        if need is None:
            need = self.doomed[c] = producers.of(c)
        if need < 0:
            return False
        left = ~((rel << base) | ((1 << base) - 1)) | self._free(info_bits)
        if need & left:
            if producers.leads_to(state, producers.needed[c]):
                return False
            again = producers.restart[c]
            if again == -2:
                again = producers.restarts(c)
            if again < 0 or again & left:
                return False
        return True

    def _free(self, info_bits: int) -> int:
        """The positions of the info ops not linearized."""
        free = self.free_info.get(info_bits)
        if free is None:
            bits = self.bits
            free = self.free_info[info_bits] = sum(bits[p] for k, p in enumerate(self.lay.info) if not info_bits >> k & 1)
        return free
