"""Bigger campaigns (opt-in: `pytest -m slow`): the default-sized campaign of each kind."""

from __future__ import annotations

import pytest

from campaign import fuzz as F

KNOWN_REFINE_CAUSES = {"quorum: disjoint-across-epochs (across CANCEL_SEQUENCE)"}
"""Found by this campaign and reported: CANCEL_SEQUENCE after MID reverts reads and writes in
one epoch, so a read quorum of the MID epoch and a write quorum of the cancel epoch can miss
each other (smallest case: 3 nodes, RF 3, REGISTER/PREPARE/START/MID_REPLACE, CANCEL). Remove
the entry when the spec's cancel no longer does that."""


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
