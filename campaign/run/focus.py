"""What a campaign is aimed at: `tcmcheck fuzz --focus replace,remove --faults crash --levels QUORUM`.

A `Focus` is part of a run's identity (`RunSpec.focus`): the generators of the run kinds that
make operations (sim: campaign/kinds/sim_generator.py; refine: strategies/cases.py) draw from it
instead of their default mix, so the same seed with another focus is another case. It travels
with the run into its failure file (which also holds the case, so the file alone replays) and
into the replay command regenerated from a seed.

- `operations`: the operation kinds started (each PREPARE, or each operation a node drives):
  only those named. `cancel` names the operator's cancel: operations are cancelled part way in
  most runs (and in none when other kinds are named without it). Each run kind makes only some kinds (`KIND_OPERATIONS`).
- `faults`: the random faults of a sim run: those named are in every run, the others in none
  (`none`: no random fault at all). The death of a replace's or removenode's target is part of
  the operation, not a fault: it stays.
- `levels`: the consistency levels of a sim run's client load: a pair of read and write levels
  is drawn among those naming one of these (ANY: the write-at-ANY workload in every run).

The empty focus draws exactly as before there was a focus: a default campaign's rows stay the
same byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.fields import describe

KIND_OPERATIONS: dict[str, tuple[str, ...]] = {
    "sim": ("join", "leave", "move", "replace", "remove", "assassinate", "cancel"),
    "refine": ("join", "leave", "move", "replace", "remove", "unregister", "cancel"),
}
"""The operation kinds each run kind can be aimed at (stateful runs are Hypothesis machines,
not steered by a focus)."""
OPERATIONS = tuple(dict.fromkeys(op for ops in KIND_OPERATIONS.values() for op in ops))
FAULTS = ("loss", "duplicate", "reorder", "partition", "crash", "none")
LEVELS = ("ONE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "ANY")
"""The levels a sim run's client load uses (campaign/kinds/sim_generator.py `_clients`)."""
_FIELDS = {"operations": ("--focus", OPERATIONS), "faults": ("--faults", FAULTS), "levels": ("--levels", LEVELS)}


@frozen
class Focus:
    """The operation kinds, faults and levels a run's generator is aimed at (empty: not aimed)."""

    operations: tuple[str, ...] = ()
    faults: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.operations or self.faults or self.levels)

    def operations_for(self, kind: str) -> tuple[str, ...]:
        """The focused operation kinds a run of `kind` makes, cancel apart (empty: any)."""
        return tuple(op for op in self.operations if op in KIND_OPERATIONS.get(kind, ()) and op != "cancel")

    @property
    def cancels(self) -> bool:
        return "cancel" in self.operations

    def cancel_chance(self, default: float) -> float:
        """The chance an operation is cancelled: most with `cancel` named, none when other
        operation kinds are named without it, else the generator's `default`."""
        if self.cancels:
            return 0.8
        return 0.0 if self.operations else default

    def to_doc(self) -> dict[str, list[str]]:
        """The failure file's and campaign.json's `focus`: only the fields set."""
        return {name: list(getattr(self, name)) for name in _FIELDS if getattr(self, name)}

    def options(self) -> list[str]:
        """The command-line words that give this focus (`--focus replace --faults crash`)."""
        words: list[str] = []
        for name, (flag, _) in _FIELDS.items():
            if getattr(self, name):
                words += [flag, ",".join(getattr(self, name))]
        return words

    def text(self) -> str:
        """One line for the report: the options, or `none`."""
        return " ".join(self.options()) or "none"

    @classmethod
    def from_doc(cls, doc: Any, where: str) -> Focus:
        """The focus a failure file or campaign.json records; BadInput naming `where`."""
        if doc is None:
            return cls()
        if not isinstance(doc, Mapping):
            raise BadInput(f"{where}: focus must be an object")
        unknown = sorted(set(doc) - set(_FIELDS))
        if unknown:
            raise BadInput(f"{where}: focus has unknown field {describe(unknown[0])} (known: {', '.join(_FIELDS)})")
        values = {}
        for name, value in doc.items():
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise BadInput(f"{where}: focus.{name} must be a list of names")
            values[name] = _names(value, name, f"{where}: focus.{name}")
        return cls(**values)

    @classmethod
    def parse(cls, operations: str | None = None, faults: str | None = None, levels: str | None = None,
              *, kinds: Sequence[str] = ()) -> Focus:
        """The command line's focus (`--focus`, `--faults`, `--levels`, comma-separated), checked
        against the run kinds of the campaign: BadInput, in one line, for an unknown name, a
        name twice, or a focus no run kind of the campaign can follow."""
        values = {name: _names(_split(raw), name, _FIELDS[name][0])
                  for name, raw in (("operations", operations), ("faults", faults), ("levels", levels))
                  if raw is not None}
        focus = cls(**values)
        if kinds:
            focus.check_kinds(kinds)
        return focus

    def check_kinds(self, kinds: Sequence[str]) -> None:
        steered = [k for k in kinds if k in KIND_OPERATIONS]
        if self and not steered:
            raise BadInput(f"--focus/--faults/--levels: {', '.join(kinds)} runs are not steered by a focus "
                           "(add sim or refine to --kinds)")
        if (self.faults or self.levels) and "sim" not in kinds:
            flag = "--faults" if self.faults else "--levels"
            raise BadInput(f"{flag}: only sim runs have faults and client levels (add sim to --kinds)")
        for kind in steered:
            made = KIND_OPERATIONS[kind]
            missing = [op for op in self.operations if op not in made]
            if missing and self.operations and not any(op in made for op in self.operations):
                raise BadInput(f"--focus: {kind} runs make no {', '.join(missing)} "
                               f"(they make {', '.join(made)}); change --focus or --kinds")


NO_FOCUS = Focus()


def _split(raw: str) -> list[str]:
    return [w.strip() for w in raw.split(",") if w.strip()]


def _names(words: Iterable[str], name: str, where: str) -> tuple[str, ...]:
    flag, known = _FIELDS[name]
    out: list[str] = []
    for w in words:
        v = w.upper() if name == "levels" else w.lower()
        if v not in known:
            raise BadInput(f"{where}: unknown {name[:-1]} {describe(w)} (known: {', '.join(known)})")
        if v in out:
            raise BadInput(f"{where}: {v} is named twice")
        out.append(v)
    if not out:
        raise BadInput(f"{where}: name at least one of {', '.join(known)}")
    if name == "faults" and "none" in out and len(out) > 1:
        raise BadInput(f"{where}: none excludes every other fault")
    return tuple(out)


__all__ = ["FAULTS", "KIND_OPERATIONS", "LEVELS", "NO_FOCUS", "OPERATIONS", "Focus"]
