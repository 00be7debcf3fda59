"""One run as values: `RunSpec` (what to run), `Outcome` (its verdict), `RunRecord` (a finished
run of a campaign), and the failure document that carries a run to `replay` and `shrink`.

A run is a pure function of its `RunSpec`: the kind (`sim`, `refine`, `stateful`: the run kinds
in campaign/kinds/), the seed, the case (None: generated from the seed), the known-bug switch it
plants (impl/bugs.py) and the proposed fixes it runs with (spec/fixes.py). Everything a run is
travels as that one value, into the workers and back, into failure files and out of them, so
that a part of a run's identity cannot be dropped on the way (shrinking once lost `fixes`).

The failure document (`tcmcheck fuzz` writes one per failing run):
`{"tcmcheck_failure": 1, "kind", "seed", "case", "verdict", "mutant"?, "fixes"?, "focus"?, "evidence"?}`
(`focus`: what the run's generator was aimed at, campaign/run/focus.py; the case already
reflects it, so the file alone replays; a run regenerated from its seed needs it. What the
run's kind adds (`Outcome.payload`): a sim failure's `evidence`, campaign/judge/evidence.py;
written, never read back: replay makes it again).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from attrs import evolve, field, frozen

from campaign.errors import BadInput
from campaign.formats.fields import describe, integer, obj
from campaign.judge.cause import Cause
from campaign.run.focus import NO_FOCUS, Focus

INT64_MAX = 2**63 - 1


def replay_file_command(path: str | Path) -> str:
    """The command that replays a failure file (pasteable in any shell: the path is quoted)."""
    return shlex.join(["tcmcheck", "replay", str(path)])


@frozen(kw_only=True)
class RunSpec:
    kind: str
    seed: int
    case: Mapping[str, Any] | None = field(default=None, eq=True, hash=False)
    """The run's input document; None: the kind's generator makes it from `seed`."""
    mutant: str | None = None
    fixes: frozenset[str] = frozenset()
    focus: Focus = NO_FOCUS
    """What the generator is aimed at (operation kinds, faults, levels): part of the case's
    identity when the case is generated from the seed."""

    def with_case(self, case: Mapping[str, Any] | None) -> RunSpec:
        return evolve(self, case=case)

    def replay_command(self, path: str | Path | None = None) -> str:
        """The one command that re-runs this run: its failure file when there is one (the case
        as recorded, which a shrunk or reshaped case needs), else regenerated from the seed."""
        if path is not None:
            return replay_file_command(path)
        mutant = f" --mutant {self.mutant}" if self.mutant else ""
        fix = "".join(f" --fix {f}" for f in sorted(self.fixes))
        focus = "".join(f" {shlex.quote(w)}" for w in self.focus.options())
        return f"tcmcheck replay --kind {self.kind} --seed {self.seed}{mutant}{fix}{focus}"

    def identity(self) -> dict[str, Any]:
        """The run's identity as a document's fields (a failure file's, replay's verdict's):
        kind and seed, and the mutant, fixes and focus it has."""
        doc: dict[str, Any] = {"kind": self.kind, "seed": self.seed}
        if self.mutant is not None:
            doc["mutant"] = self.mutant
        if self.fixes:
            doc["fixes"] = sorted(self.fixes)
        if self.focus:
            doc["focus"] = self.focus.to_doc()
        return doc

    def to_doc(self, outcome: Outcome) -> dict[str, Any]:
        """The failure document of this run (it must carry its case)."""
        assert self.case is not None, "a failure document needs the case"
        doc: dict[str, Any] = {"tcmcheck_failure": 1, **self.identity(), "case": self.case,
                               "verdict": outcome.to_json()}
        if outcome.payload is not None:
            doc.update(outcome.payload.to_doc())
        return doc

    def to_text(self, outcome: Outcome) -> str:
        """`to_doc` as the text of a failure file."""
        return json.dumps(self.to_doc(outcome), sort_keys=True, indent=1)

    @classmethod
    def from_doc(cls, doc: Any, where: str, *, kinds: Sequence[str], mutants: Sequence[str],
                 fixes: Sequence[str]) -> RunSpec:
        """The run a failure document describes; BadInput (naming `where`) for anything but the
        envelope's fields of the right types, one of `kinds`, one of `mutants` and some of
        `fixes` (the caller names the known ones: this module loads neither impl nor the kinds).
        The case itself is parsed by its kind (campaign.kinds.load_failure)."""
        known_fixes = fixes
        if not isinstance(doc, dict) or not {"case", "kind", "seed"} <= set(doc):
            raise BadInput(f"{where}: not a tcmcheck failure file (needs kind, seed and case)")
        if doc["kind"] not in kinds:
            raise BadInput(f"{where}: unknown run kind {describe(doc['kind'])} (known: {', '.join(kinds)})")
        seed = integer(doc["seed"], f"{where}: seed", lo=-INT64_MAX - 1, hi=INT64_MAX)
        case = obj(doc["case"], f"{where}: case")
        mutant = doc.get("mutant")
        if mutant is not None and mutant not in mutants:
            raise BadInput(f"{where}: unknown mutant {describe(mutant)} (known: {', '.join(mutants)})")
        named = doc.get("fixes", [])
        if not isinstance(named, list) or not all(isinstance(f, str) for f in named):
            raise BadInput(f"{where}: fixes must be a list of fix names")
        unknown = sorted(set(named) - set(known_fixes))
        if unknown:
            raise BadInput(f"{where}: unknown fix {unknown[0]!r} (known: {', '.join(known_fixes)})")
        if named and mutant is not None:
            raise BadInput(f"{where}: a failure file names a mutant or fixes, not both")
        focus = Focus.from_doc(doc.get("focus"), where)
        return cls(kind=doc["kind"], seed=seed, case=case, mutant=mutant, fixes=frozenset(named), focus=focus)


class Payload(Protocol):
    """What a run's kind adds to its outcome besides the verdict (sim: the schedule it took and
    the evidence of its failure, campaign/kinds/sim.py)."""

    def to_doc(self) -> dict[str, Any]:
        """What a failure document (and replay's verdict) carries of it."""
        ...


@frozen(kw_only=True)
class Outcome:
    """The verdict of one run (everything but timing): plain data, picklable."""

    valid: bool
    cause: Cause | None
    final_epoch: int
    steps: int
    counters: tuple[tuple[str, int], ...]
    details: Mapping[str, Any] = field(eq=True, hash=False)
    """The judgement's summary (sim), the per-step evidence (refine), or the error, as JSON
    values."""
    causes: tuple[Cause, ...] = ()
    """Every check that failed, in the judge's order (`cause` is the first); empty when only one
    check ran."""
    payload: Payload | None = None
    """What the run's kind adds (campaign/kinds/sim.py: its decisions and evidence); not part of
    the verdict."""

    def __attrs_post_init__(self) -> None:
        assert self.valid == (self.cause is None), "a run is valid iff it has no cause"

    @classmethod
    def failed(cls, cause: Cause, *, steps: int = 0, details: Mapping[str, Any] | None = None) -> Outcome:
        """A run that failed before it had a verdict of its own (a crash, a dead worker)."""
        return cls(valid=False, cause=cause, causes=(cause,), final_epoch=0, steps=steps, counters=(),
                   details=dict(details or {"error": cause.text}))

    def to_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "cause": None if self.cause is None else self.cause.text,
                "cause_class": None if self.cause is None else self.cause.klass,
                "final_epoch": self.final_epoch, "steps": self.steps, "counters": dict(self.counters),
                "details": dict(self.details)}


@frozen(kw_only=True)
class RunRecord:
    """A finished run of a campaign: the run (its case kept only when it failed: a valid run is
    regenerated from its seed), the outcome, and what the report counts."""

    run: int
    spec: RunSpec
    outcome: Outcome
    duration_s: float
    coverage: Mapping[str, Any] = field(factory=dict, eq=True, hash=False)
    """What the case exercised (the kind's `coverage`), for the report's plots."""

    @property
    def failure(self) -> str | None:
        """The failure file's text when the run failed and its case is known."""
        if self.outcome.valid or self.spec.case is None:
            return None
        return self.spec.to_text(self.outcome)

    def row(self) -> dict[str, Any]:
        """runs.parquet's row, but for `failure_file` and `finished_at` (the store adds them)."""
        o, s = self.outcome, self.spec
        return {"run": self.run, "kind": s.kind, "seed": s.seed, "valid": o.valid,
                "cause": None if o.cause is None else o.cause.text,
                "cause_class": None if o.cause is None else o.cause.klass,
                "final_epoch": o.final_epoch, "steps": o.steps,
                "counters_json": json.dumps(dict(o.counters), sort_keys=True),
                "coverage_json": json.dumps(dict(self.coverage), sort_keys=True), "mutant": s.mutant,
                "fix": ",".join(sorted(s.fixes)) or None, "focus": s.focus.text() if s.focus else None,
                "replay": s.replay_command(), "duration_s": self.duration_s}


__all__ = ["INT64_MAX", "Outcome", "Payload", "RunRecord", "RunSpec", "replay_file_command"]
