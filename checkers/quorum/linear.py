"""A small linear integer problem handed to z3 as one SMT-LIB script.

Both encodings (`z3prover`, `barrier`) are conjunctions of bounds and "sum >= k" / "sum <= k"
over non-negative integer counts. Building them through z3's Python expression API costs more
than solving them (about 2 ms of API calls against 0.4 ms of solving), so they are written as
SMT-LIB text, parsed once, and solved by `simplify` then `smt` (a complete procedure for linear
integer arithmetic; "unknown" is still handled, never taken as a verdict).

Variables are named by the caller; `var(name, upper)` declares `0 <= name <= upper`, and an
upper bound of 0 makes the variable the constant 0 without declaring anything.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

Term = str  # a variable name, or "0"


class LinearProblem:
    def __init__(self) -> None:
        self._decls: list[str] = []
        self._asserts: list[str] = []
        self._names: list[str] = []

    def var(self, name: str, upper: int | Term) -> Term:
        """A fresh integer in [0, upper]; `upper` may be another term's sum expression."""
        if upper == 0:
            return "0"
        self._decls.append(f"(declare-const {name} Int)")
        self._names.append(name)
        self._asserts.append(f"(>= {name} 0)")
        self._asserts.append(f"(<= {name} {upper})")
        return name

    @staticmethod
    def total(terms: Sequence[Term]) -> Term:
        live = [t for t in terms if t != "0"]
        if not live:
            return "0"
        return live[0] if len(live) == 1 else f"(+ {' '.join(live)})"

    def at_least(self, terms: Sequence[Term], k: int) -> None:
        self._asserts.append(f"(>= {self.total(terms)} {k})")

    def at_most(self, terms: Sequence[Term], k: int | Term) -> None:
        self._asserts.append(f"(<= {self.total(terms)} {k})")

    def equal(self, terms: Sequence[Term], k: int) -> None:
        self._asserts.append(f"(= {self.total(terms)} {k})")

    def script(self) -> str:
        return "".join(self._decls) + f"(assert (and true {' '.join(self._asserts)}))"

    def solve(self) -> dict[Term, int] | None | str:
        """Values of every variable ("0" maps to 0), None when unsatisfiable, or "unknown"."""
        solver = z3.Then("simplify", "smt").solver()
        solver.from_string(self.script())
        answer = solver.check()
        if answer == z3.unsat:
            return None
        if answer != z3.sat:
            return "unknown"
        model = solver.model()
        values: dict[Term, int] = {"0": 0}
        for name in self._names:
            value = model.eval(z3.Int(name), model_completion=True)
            values[name] = value.as_long() if isinstance(value, z3.IntNumRef) else 0
        return values
