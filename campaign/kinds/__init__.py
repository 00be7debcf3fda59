"""The run kinds behind one registry: each is a `Kind` — a record of plain functions that
generate a case from the run's seed, parse a case (BadInput for one a run could not take), check
it, measure it for shrinking, and count what it covers.

- `sim` (campaign/kinds/sim.py): a generated scenario simulated and judged;
- `refine` (campaign/kinds/refine.py): spec and impl's metadata rules driven side by side;
- `stateful` (campaign/kinds/stateful.py): a Hypothesis stateful machine run from the seed.

`run_one(spec)` is the one function every engine, the mutant matrix and `replay` run: a run is a
pure function of its `RunSpec`. A new kind is one module with these five functions and a line in
`KINDS` (docs/extending.md).
"""

from __future__ import annotations

import random
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.fields import describe
from campaign.formats.jsonio import in_file, load_json, parsing
from campaign.judge import cause as C
from campaign.kinds import refine, sim, stateful
from campaign.run.focus import NO_FOCUS, Focus
from campaign.run.record import Outcome, RunRecord, RunSpec
from impl.bugs import NAMES as MUTANTS
from impl.metadata import InvalidTopology
from spec.fixes import FIXES


@frozen(kw_only=True)
class Kind:
    name: str
    generate: Callable[[random.Random, Focus], dict[str, Any]]
    """The run's case, drawn from `random.Random(seed)` alone, aimed by the run's focus."""
    parse: Callable[[Any], None]
    """BadInput for a case a run of this kind could not take (a hand-edited failure file)."""
    check: Callable[[RunSpec, bool], Outcome]
    """Run and judge a case (`spec.case` set); the flag asks sim to record its schedule."""
    size: Callable[[dict[str, Any]], int]
    """What shrinking makes smaller."""
    coverage: Callable[[dict[str, Any]], dict[str, Any]]
    """What the case exercises, for the report: {"transformations": {...}, "faults": {...}}."""
    done: Callable[[Outcome], dict[str, Any]]
    """What the run did, beyond what its case asked for, from its outcome (sim: the protocol
    paths it took, how its operations ended)."""


KINDS: dict[str, Kind] = {
    m.__name__.rsplit(".", 1)[1]: Kind(name=m.__name__.rsplit(".", 1)[1], generate=m.generate, parse=m.parse,
                                       check=m.check, size=m.size, coverage=m.coverage, done=m.done)
    for m in (sim, refine, stateful)
}
DEFAULT_KINDS = ("sim", "refine")
"""What `tcmcheck fuzz` runs without `--kinds` (docs/stateful.md: why not stateful too)."""


def kind(name: str) -> Kind:
    """The kind named `name`; BadInput naming the known ones."""
    found = KINDS.get(name)
    if found is None:
        raise BadInput(f"unknown run kind {describe(name)} (known: {', '.join(KINDS)})")
    return found


def generate_case(kind: str, seed: int, focus: Focus = NO_FOCUS) -> dict[str, Any]:
    """The case of a run of `kind` with `seed` and `focus` (what `generated` adds to a spec
    without one)."""
    return KINDS[kind].generate(random.Random(seed), focus)


def generated(spec: RunSpec) -> tuple[RunSpec, Outcome | None]:
    """The run with its case (generated from the seed when it has none), or a failing outcome
    when the generator crashed: it runs the spec, so a spec exception while generating is a
    found bug, replayed from the seed (there is no case to write to a failure file)."""
    if spec.case is not None:
        return spec, None
    try:
        return spec.with_case(generate_case(spec.kind, spec.seed, spec.focus)), None
    except Exception as e:  # noqa: BLE001 (any crash is the verdict)
        return spec, Outcome.failed(C.crash(e), details={"traceback": traceback.format_exc()})


def checked(spec: RunSpec, *, record_decisions: bool = False) -> Outcome:
    """The kind's check of `spec` (which has its case), with an exception inside spec, impl or a
    checker turned into a failing outcome (cause `crash: TYPE: message`, the traceback in
    details): a crash is a finding, and one run's crash must not end the campaign. Bad input
    (`BadInput`, impl's `InvalidTopology`) still raises: that is the case's fault, not the
    code's."""
    assert spec.case is not None
    try:
        return KINDS[spec.kind].check(spec, record_decisions)
    except (BadInput, InvalidTopology):
        raise
    except Exception as e:  # noqa: BLE001 (any crash is the verdict)
        steps = len(spec.case.get("transformations", spec.case.get("submissions", [])))
        return Outcome.failed(C.crash(e), steps=steps, details={"traceback": traceback.format_exc()})


def run_one(spec: RunSpec, *, run: int = 0) -> RunRecord:
    """Generate (if need be), check and record one run; never raises for the run's own sake."""
    started = time.monotonic()  # wall clock only for the duration column, never for a verdict
    spec, crashed = generated(spec)
    if crashed is not None:
        return RunRecord(run=run, spec=spec, outcome=crashed, duration_s=round(time.monotonic() - started, 4))
    assert spec.case is not None
    try:
        outcome = checked(spec)
    except Exception as e:  # noqa: BLE001 (a generated case the parsers refuse is a generator bug)
        outcome = Outcome.failed(C.bad_generated_input(e), details={"error": str(e)})
    return _record(run, spec, outcome, time.monotonic() - started)


def error_record(run: int, spec: RunSpec, cause: C.Cause, duration_s: float) -> RunRecord:
    """A run that gave no verdict: its worker died or it ran past its time limit. It is still a
    failing row with a failure file (the case regenerated from the seed), so that it is replayed
    like any other failure: a hang or an out-of-memory is a finding too."""
    spec, crashed = generated(spec)
    if crashed is not None:
        return RunRecord(run=run, spec=spec, outcome=crashed, duration_s=round(duration_s, 4))
    return _record(run, spec, Outcome.failed(cause), duration_s)


def _record(run: int, spec: RunSpec, outcome: Outcome, duration_s: float) -> RunRecord:
    """A valid run keeps no case (its seed regenerates it); a failing one keeps it for its file."""
    assert spec.case is not None
    kind = KINDS[spec.kind]
    coverage = {**kind.coverage(dict(spec.case)), **kind.done(outcome)}
    return RunRecord(run=run, spec=spec if not outcome.valid else spec.with_case(None), outcome=outcome,
                     duration_s=round(duration_s, 4), coverage=coverage)


def load_failure(path: str | Path) -> RunSpec:
    """The run a failure file describes, its case parsed as a run will parse it, so that a
    hand-edited case is bad input (exit 2) before it runs — not a "crash" verdict that looks
    like a found bug."""
    spec = RunSpec.from_doc(load_json(path, "failure"), str(path), kinds=tuple(KINDS), mutants=MUTANTS,
                            fixes=FIXES)
    try:
        with parsing(str(path)):
            KINDS[spec.kind].parse(spec.case)
    except BadInput as e:
        raise in_file(e, path) from None
    return spec


__all__ = ["DEFAULT_KINDS", "KINDS", "Kind", "checked", "error_record", "generate_case", "generated", "kind",
           "load_failure",
           "run_one"]
