"""The bug-finding matrix: a campaign per known-bug switch (impl/bugs.py) until it is detected.

For each switch, runs of its kind (`refine` for engine switches whose focus is the metadata
rules, `sim` otherwise) on seeds 1, 2, ... (skipping generated scenarios that cannot exercise
the switch: the `ops` focus wants node-driven operations), each case reshaped for the switch
(campaign/mutants/bias.py), until one run fails or the budget in wall-clock seconds is spent; the
failing run is then shrunk. The runs go through the same run function and campaign loop as
`tcmcheck fuzz` (`campaign.kinds.run_one` on `campaign.fuzz.run_campaign`). Without a switch
(`mutant=None`) the same campaign must report nothing but known findings.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

from attrs import evolve, frozen

from campaign.engines.base import Task
from campaign.fuzz import run_campaign
from campaign.kinds import KINDS, checked
from campaign.kinds.sim import steps as sim_steps
from campaign.mutants import data_path
from campaign.mutants.bias import CMS_POLICY_SWITCHES, biased
from campaign.run.findings import known_finding
from campaign.run.focus import NO_FOCUS
from campaign.run.record import RunRecord, RunSpec
from campaign.shrink import shrink
from impl.bugs import BY_NAME


@frozen(kw_only=True)
class Detection:
    name: str
    detected: bool
    seconds: float | None
    cause: str | None
    seed: int | None
    kind: str
    runs: int
    size: int | None = None
    """Before shrinking: refine, transformations and nodes (`case_size`); sim, steps."""
    shrunk_size: int | None = None
    events: int | None = None
    """sim: events (non-default schedule decisions) before shrinking and after."""
    shrunk_events: int | None = None
    failure: str | None = None
    """The failure file: the shrunk one (it carries its decision list) when shrinking ran."""

    def sizes(self) -> dict[str, list[int]] | None:
        """`shrunk_size` in JSON: {"steps": [before, after], "events": [before, after]}."""
        if self.size is None or self.shrunk_size is None:
            return None
        out = {"steps": [self.size, self.shrunk_size]}
        if self.events is not None and self.shrunk_events is not None:
            out["events"] = [self.events, self.shrunk_events]
        return out

    def sizes_text(self) -> str:
        """"steps 96->7 events 3178->4" for the table."""
        sizes = self.sizes()
        return "" if sizes is None else " ".join(f"{k} {a}->{b}" for k, (a, b) in sizes.items())

    def replay(self, path: str | None = None) -> str:
        if self.seed is None:
            return ""
        return RunSpec(kind=self.kind, seed=self.seed, mutant=self.name).replay_command(path)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "detected": self.detected, "seconds": self.seconds,
                "cause": self.cause, "shrunk_size": self.sizes(), "size": self.size,
                "seed": self.seed, "runs": self.runs}


def kind_of(name: str | None) -> str:
    return "refine" if name is not None and BY_NAME[name].focus == "refine" else "sim"


def exercises(name: str | None, case: dict[str, Any]) -> bool:
    """Whether a generated case can show the switch at all (the campaign's bias)."""
    if name is None:
        return True
    focus = BY_NAME[name].focus
    if name == "removenode-nothing-to-stream-hangs":
        return bool(case.get("operations")) and len(case["topology"]["nodes"]) >= 4
    if focus == "data":
        return data_path.exercises(name, case)
    if focus == "ops":
        return bool(case.get("operations")) and bool(case.get("clients")) \
            and len(case["topology"]["nodes"]) >= 6
    if name == "cms-not-reconfigured-after-operation":
        # only there can a replace (3 nodes) or a join (5 to 6) leave the CMS short without it
        return len(case["topology"]["nodes"]) in (3, 5)
    if name == "assassinate-skips-cms-reconfiguration":
        return len(case["topology"]["nodes"]) >= 3
    if name in CMS_POLICY_SWITCHES:
        return len(case["topology"]["nodes"]) >= 4
    if name == "discovery-never-resets-unchanged-rounds":
        return len(case["topology"]["nodes"]) >= 5
    if focus == "cms":
        return case.get("cms", {}).get("policy") == "auto" or bool(case.get("faults", {}).get("crashes"))
    return True


def _inconclusive(case: dict[str, Any], rec: RunRecord) -> bool:
    """A kv verdict of the writes-at-ALL, reads-at-ONE variant with an indefinite write and no
    durability failure: a write that ended `info` part way is seen by some ONE reads and not by
    others, which is Cassandra's semantics, so such a run says nothing either way (for the
    switch or without). (A write still in flight can do the same without any `info`: see
    docs/mutants.md on the soundness of this variant's linearizability verdicts.)"""
    one = any(c.get("read_cl") == ["ONE"] for c in case.get("clients", []))
    info = dict(rec.outcome.counters).get("client_write_info", 0)
    cause = rec.outcome.cause
    if not (one and info > 0 and cause is not None and cause.family == "clients"):
        return False
    # why the durability checks still count: they leave out the keys with an indefinite write
    # (and writes still in flight), so what they report is a lost acknowledged write
    return not any(c.family == "durability" for c in rec.outcome.causes)



SHRINK_CHECKS = {"sim": 600, "refine": 60}
"""Runs a switch's failure may spend on shrinking (a sim run takes 0.05-0.5 s)."""


def campaign(name: str | None, budget_s: float, *, first_seed: int = 1, max_runs: int | None = None,
             shrink_found: bool = True, plant: bool = True) -> tuple[Detection, list[RunRecord]]:
    """Runs for switch `name` until the first failure or the budget; all records returned.
    `plant=False` runs the very same (reshaped) cases with the switch off: the control, which
    must fail with nothing but known findings."""
    kind = kind_of(name)
    started = time.monotonic()  # wall clock only for the budget and the seconds column
    found: list[Detection] = []

    def tasks() -> Iterator[Task]:
        seed, run = first_seed, 0
        while time.monotonic() - started < budget_s and (max_runs is None or run < max_runs):
            case = KINDS[kind].generate(random.Random(seed), NO_FOCUS)
            if exercises(name, case):
                yield run, RunSpec(kind=kind, seed=seed, case=biased(name, case, seed=seed),
                                   mutant=name if plant else None)
                run += 1
            seed += 1

    def on_record(rec: RunRecord) -> bool:
        cause = rec.outcome.cause
        if cause is None or _inconclusive(dict(rec.spec.case or {}), rec):
            return True
        # why the control: a case that fails with the switch off too shows a finding (or
        # Cassandra's semantics), not the switch
        if plant and name is not None and not checked(evolve(rec.spec, mutant=None)).valid:
            return True
        if plant or known_finding(cause.klass) is None:
            found.append(_detected(name, rec, time.monotonic() - started, rec.run + 1, shrink_found))
            return False
        return True

    records = run_campaign(tasks(), on_record=on_record)
    if found:
        return found[0], records
    return Detection(name=name or "-", detected=False, seconds=None, cause=None, seed=None, kind=kind,
                     runs=len(records)), records


def _detected(name: str | None, rec: RunRecord, seconds: float, runs: int, shrink_found: bool) -> Detection:
    spec = rec.spec
    assert spec.case is not None and rec.outcome.cause is not None
    size = sim_steps(dict(spec.case)) if spec.kind == "sim" else KINDS[spec.kind].size(dict(spec.case))
    failure = rec.failure
    shrunk = events = shrunk_events = None
    if shrink_found:
        small = shrink(spec, max_checks=SHRINK_CHECKS.get(spec.kind, 60))
        failure = small.spec.to_text(small.outcome)
        if small.sim_before is not None and small.sim_after is not None:
            shrunk, events, shrunk_events = small.sim_after.steps, small.sim_before.events, small.sim_after.events
        else:
            shrunk = small.size_after
    return Detection(name=name or "-", detected=True, seconds=round(seconds, 2), cause=rec.outcome.cause.text,
                     seed=spec.seed, kind=spec.kind, runs=runs, size=size, shrunk_size=shrunk, events=events,
                     shrunk_events=shrunk_events, failure=failure)


__all__ = ["SHRINK_CHECKS", "Detection", "campaign", "exercises", "kind_of"]
