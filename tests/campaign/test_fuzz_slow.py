"""Bigger campaigns (opt-in: `pytest -m slow`): the default-sized campaign of each kind."""

from __future__ import annotations

import pytest

from campaign import fuzz as F
from campaign.known_findings import KNOWN_FINDINGS

KNOWN_REFINE_CAUSES = {f.cause_class for f in KNOWN_FINDINGS}
"""Found by the campaign and reported (campaign/known_findings.py): CANCEL_SEQUENCE after MID
reverts reads and writes in one epoch."""


@pytest.mark.slow
def test_a_thousand_generated_simulations_satisfy_every_checker() -> None:
    records = F.run_campaign(1000, 11, kinds=("sim",), workers=2)
    bad = [(r.seed, r.outcome.cause) for r in records if not r.outcome.valid]
    assert not bad


@pytest.mark.slow
def test_a_thousand_refinement_runs_agree_step_by_step_and_prove_quorums() -> None:
    records = F.run_campaign(1000, 12, kinds=("refine",), workers=2)
    assert len(records) == 1000
    unknown = [(r.seed, r.outcome.cause) for r in records
               if not r.outcome.valid and F.cause_class(r.outcome.cause) not in KNOWN_REFINE_CAUSES]
    assert not unknown
