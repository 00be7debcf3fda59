"""Run kind `stateful`: a Hypothesis stateful machine run from the run's seed, shrunk on failure.

A run's case is `{"machine": "system"|"metadata", "examples": K, "steps": S}` (drawn from the
seed: mostly the system machine, strategies/system_machine.py, sometimes the metadata machine,
strategies/metadata_machine.py). The machine's Hypothesis test runs K examples of up to S steps
with the run's seed (`hypothesis.seed`), no example database and no wall-clock limits that
change what is generated, so the same seed and code give the same examples, the same shrunk
counterexample and the same verdict: `tcmcheck replay --kind stateful --seed N` re-runs it.
A failure's details hold the shrunk program, which runs when pasted after the import line it
starts with.
"""

from __future__ import annotations

import random
import traceback
import traceback as tb
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import hypothesis.stateful
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.internal.conjecture import providers

from campaign.errors import BadInput
from campaign.judge import cause as C
from campaign.run.focus import NO_FOCUS, Focus
from campaign.run.record import Outcome, RunSpec
from strategies.metadata_machine import MetadataMachine
from strategies.system_machine import SystemMachine

MACHINES: dict[str, type[Any]] = {"system": SystemMachine, "metadata": MetadataMachine}
EXAMPLES = {"system": 4, "metadata": 8}
"""Examples per run: a run takes about as long as a sim run (a few tenths of a second)."""
STEPS = 30
MAX_EXAMPLES, MAX_STEPS = 100_000, 1_000


def generate(rng: random.Random, focus: Focus = NO_FOCUS) -> dict[str, Any]:
    """A machine and its budget (a focus does not steer a Hypothesis machine)."""
    machine = "system" if rng.random() < 0.75 else "metadata"
    return {"machine": machine, "examples": EXAMPLES[machine], "steps": STEPS}


def done(outcome: Outcome) -> dict[str, Any]:
    """Nothing beyond what the case asked for (sim's counts the paths its run took)."""
    return {}


def parse(case: Any) -> None:
    """BadInput for a case a stateful run could not take."""
    parse_case(case)


def size(case: dict[str, Any]) -> int:
    """Hypothesis shrinks a stateful failure itself: its size is the steps asked for."""
    return int(case.get("steps", 0))


def coverage(case: dict[str, Any]) -> dict[str, Any]:
    return {"transformations": {}, "faults": {}}


def parse_case(case: Any) -> tuple[str, int, int]:
    """(machine, examples, steps) of a case; BadInput for anything a run could not take."""
    if not isinstance(case, dict):
        raise BadInput("a stateful case must be an object")
    extra = set(case) - {"machine", "examples", "steps"}
    if extra:
        raise BadInput(f"a stateful case has unknown field {sorted(extra)[0]!r}")
    machine = case.get("machine")
    if machine not in MACHINES:
        raise BadInput(f"machine: expected one of {', '.join(MACHINES)}, got {machine!r}")
    out = [machine]
    for name, most in (("examples", MAX_EXAMPLES), ("steps", MAX_STEPS)):
        v = case.get(name)
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= most:
            raise BadInput(f"{name}: expected an integer from 1 to {most}, got {v!r}")
        out.append(v)
    return out[0], out[1], out[2]


def machine_class(machine: str, mutant: str | None = None, fixes: frozenset[str] = frozenset()) -> Any:
    cls = MACHINES[machine]
    if machine == "system" and (mutant is not None or fixes):
        cls = cls.planted(frozenset([mutant]) if mutant else frozenset(), fixes)
    return cls


def run_machine(cls: Any, seed: int, examples: int, steps: int) -> BaseException | None:
    """Run `cls`'s test from `seed`; the (shrunk) failure, or None when every example passed."""
    return run_counted(cls, seed, examples, steps)[0]


def run_counted(cls: Any, seed: int, examples: int, steps: int) -> tuple[BaseException | None, int]:
    """`run_machine`, and how many steps the machine took in all (shrinking included)."""

    # why these settings: no database (a run depends on its seed alone), no deadline or health
    # check (timing must not change a verdict), no explain phase (slow, and only adds comments)
    s = settings(max_examples=examples, stateful_step_count=steps, database=None, deadline=None,
                 derandomize=False, suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                 phases=(Phase.generate, Phase.target, Phase.shrink), print_blob=False,
                 verbosity=Verbosity.normal)
    taken = [0]

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        taken[0] += 1
        cls.check_invariants(self, *args, **kwargs)

    # the same name: a printed program still says `state = SystemMachine()`
    counting = type(cls.__name__, (cls,), {"check_invariants": counted, "__module__": cls.__module__})
    # why getattr: the function is typed in some Hypothesis releases and not in others, so a
    # direct call needs a `type: ignore` in one and fails mypy's unused-ignore check in the other
    make_test: Any = hypothesis.stateful.get_state_machine_test
    test = make_test(counting, settings=s)
    hypothesis_seed(seed)(test)
    with no_local_constants():
        try:
            test()
        except Exception as e:  # noqa: BLE001 (any failure of the machine is the verdict)
            return e, taken[0]
    return None, taken[0]


@contextmanager
def no_local_constants() -> Iterator[None]:
    """Hypothesis mixes literals from every local module in `sys.modules` into what it draws
    (`providers._get_local_constants`), so a run would depend on what its worker imported
    before (a sim run first, say): with that pool empty, the seed alone decides the examples."""

    get = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if get is None or cache is None:  # a Hypothesis without the feature: nothing to turn off
        yield
        return
    empty = providers.Constants()  # type: ignore[attr-defined]
    cache.cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = get
        cache.cache.clear()


def program(machine: str, error: BaseException) -> str:
    """The shrunk counterexample as a program that runs when pasted."""
    module = MACHINES[machine].__module__
    lines = [n for n in getattr(error, "__notes__", []) if n.startswith("state")]
    return f"from {module} import *  # noqa: F403\n" + "\n".join(lines) + "\n"


def _where(machine: str, error: BaseException) -> str:
    """The rule or invariant of the machine that failed (its innermost frame in the machine's
    module, or a module it builds on)."""

    name = "?"
    for frame in tb.extract_tb(error.__traceback__):
        if "/strategies/" in frame.filename.replace("\\", "/"):
            name = frame.name
    return name


def check(spec: RunSpec, record_decisions: bool = False) -> Outcome:
    """Run the machine's Hypothesis test from the run's seed (no schedule to record)."""
    assert spec.case is not None
    machine, examples, steps = parse_case(spec.case)
    # hypothesis.seed takes any int; keep it in 64 bits like every other run seed
    error, taken = run_counted(machine_class(machine, spec.mutant, spec.fixes), spec.seed, examples, steps)
    if error is None:
        return Outcome(valid=True, cause=None, final_epoch=0, steps=taken, counters=(("steps", taken),),
                       details={"machine": machine})
    message = str(error).splitlines()[0] if str(error) else type(error).__name__
    cause = C.stateful(machine, _where(machine, error), message)
    shown = program(machine, error)
    details = {"machine": machine, "program": shown,
               "traceback": "".join(traceback.format_exception_only(type(error), error))}
    # steps: of the shrunk program (rules and invariant checks), what a reader has to follow
    return Outcome(valid=False, cause=cause, causes=(cause,), final_epoch=0,
                   steps=sum(1 for ln in shown.splitlines() if ln.startswith("state.")),
                   counters=(("steps", taken),), details=details)


__all__ = ["done", "MACHINES", "check", "coverage", "generate", "machine_class", "parse", "parse_case", "program",
           "run_counted", "run_machine", "size"]
