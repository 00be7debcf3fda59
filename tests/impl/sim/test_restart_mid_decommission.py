"""The research candidate of issue 21, reached (issue 33): a node restarted in the middle of its
own decommission, on trunk 6bbe85ef, finishes it at startup and joins again at once, streaming
nothing; a later trunk resumes no leave at startup. The harness follows the later trunk and keeps
6bbe85ef's behaviour as the switch `restart-rejoins-after-decommission` (impl/bugs.py).

Trunk 6bbe85ef: `StorageService.initServer` refuses to start only a node whose bootstrap state is
DECOMMISSIONED (`SystemKeyspace.wasDecommissioned()`, l.765), which only `shutdownNetworking` sets
(l.3613), at the very end of `SingleNodeSequences.decommission`. Restarted before that, the
node's state is still COMPLETED, so `joinRing` runs `Startup.startup(!isSurveyMode,
shouldBootstrap(), ...)` with `shouldBootstrap()` false; `Startup.startup` first finishes the
node's own sequence (`InProgressSequences.finishInProgressSequences(self)`: START/MID/
FINISH_LEAVE), then, its state LEFT, falls into `case REGISTERED: case LEFT:` and commits
`getInitialTransformation(true, false, false)`: an `UnsafeJoin` (`finishJoiningRing &&
!shouldBootstrap`), which `PrepareJoin` accepts from LEFT (`ALLOWED_STATES = REGISTERED, LEFT`).
A later trunk's `Startup.startup` calls `finishInProgressSequences(self, true)`, which stops at a
sequence that is not `finishDuringStartup()`, and has `case LEAVING:` "Node is currently being
decommissioned, resume with `nodetool decommission`"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from attrs import evolve

from campaign.formats.scenario import parse_scenario
from campaign.kinds import checked, load_failure
from campaign.run.record import RunSpec
from impl.cluster import run_scenario
from observed.frozen import thaw

DATA = Path(__file__).parent / "data"
SWITCH = "restart-rejoins-after-decommission"


def _n4_steps(case: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    result = run_scenario(parse_scenario(case), seed=seed)
    assert [(o.node, o.op, o.outcome) for o in result.operations] == [("n4", "leave", "completed")]
    return [thaw(c.transformation) for c in sorted(result.commits, key=lambda c: c.complete_index or 0)
            if c.outcome == "ok" and c.entry_id.startswith("n4:") and c.kind != "SCHEMA_CHANGE"]


def test_on_6bbe85ef_a_node_restarted_mid_decommission_finishes_it_and_rejoins_by_unsafe_join() -> None:
    # n4 decommissions at 0.286 s, crashes at 2.003 s (its PREPARE_LEAVE committed), restarts at
    # 3.556 s: the leave goes on, and right after FINISH_LEAVE n4 commits UNSAFE_JOIN
    doc = json.loads((DATA / "leave-after-driver-restart.json").read_text())
    assert {"at_ms": 2003, "node": "n4", "restart_ms": 3556} in doc["case"]["faults"]["crashes"]
    steps = _n4_steps({**doc["case"], "mutants": [SWITCH]}, int(doc["seed"]))
    assert [t["kind"] for t in steps] == ["PREPARE_LEAVE", "START_LEAVE", "MID_LEAVE", "FINISH_LEAVE", "UNSAFE_JOIN"]
    tokens = next(n["tokens"] for n in doc["case"]["topology"]["nodes"] if n["id"] == "n4")
    assert steps[-1] == {"kind": "UNSAFE_JOIN", "node": "n4", "tokens": sorted(tokens)}
    outcome = checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"], mutant=SWITCH))
    assert outcome.cause is not None and outcome.cause.text == (
        "liveness: decommission undone: n4's decommission completed, and n4 ends JOINED "
        "(joined again with no operation asking)")


def test_by_default_the_resumed_decommission_stays_done() -> None:
    doc = json.loads((DATA / "leave-after-driver-restart.json").read_text())
    steps = _n4_steps(doc["case"], int(doc["seed"]))
    assert [t["kind"] for t in steps] == ["PREPARE_LEAVE", "START_LEAVE", "MID_LEAVE", "FINISH_LEAVE"]
    outcome = checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"]))
    assert outcome.valid, outcome.cause


def test_the_switch_is_caught_on_its_stored_case_and_the_case_passes_without_it() -> None:
    # the shrunk case `tcmcheck mutants --only restart-rejoins-after-decommission` wrote
    spec = load_failure(DATA / "restart-rejoins-after-decommission.json")
    assert spec.mutant == SWITCH
    broken = checked(spec)
    assert broken.cause is not None and broken.cause.klass == "liveness: decommission undone"
    clean = checked(evolve(spec, mutant=None))
    assert clean.valid, clean.cause
