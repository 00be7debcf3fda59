"""The liveness rule "operation stuck" (campaign/judge/checks/liveness.py): an operation is stuck when it
made no step for a submission's whole patience although its barrier could be met. Its age runs
from its last committed step or from its start, whichever is later: `fuzz --focus replace` seed 178
begins a second replace 22.6 s before the run ends (after its target's 40 s to be convicted), and
its REGISTER had not committed yet — no patience's worth of time to be stuck in."""

from __future__ import annotations

import json
from pathlib import Path

from campaign.kinds import checked, load_failure

DATA = Path(__file__).parents[1] / "impl" / "sim" / "data"


def test_an_operation_begun_near_the_end_of_the_run_is_not_stuck() -> None:
    spec = load_failure(DATA / "replace-begun-near-the-end.json")
    doc = json.loads((DATA / "replace-begun-near-the-end.json").read_text())
    late = max(o["at_ms"] for o in doc["case"]["operations"])
    assert doc["case"]["settings"]["end_time_ms"] - late < 30_000
    out = checked(spec)
    assert out.valid, out.cause
