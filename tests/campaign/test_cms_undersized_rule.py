"""Issue 25: the "CMS undersized" liveness rule counts as candidates only the nodes the CMS
placement could add (JOINED, up, in no in-progress sequence: CMSPlacementStrategy.DefaultNodeFilter),
and still catches a sizing driver that proposes a node in a sequence for ever."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.kinds import checked
from campaign.run.record import RunSpec

DATA = Path(__file__).parents[1] / "impl" / "sim" / "data"


def run(name: str) -> Any:
    doc: dict[str, Any] = json.loads((DATA / name).read_text())
    return checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"]))


def test_a_cms_short_only_of_nodes_in_a_sequence_is_not_undersized() -> None:
    # the policy wants 5 of 6 joined; j1 is no process and n4 is leaving (nobody drives it on),
    # so the four others are all the placement can have
    outcome = run("cms-short-of-a-leaving-node.json")
    assert outcome.valid, outcome.cause


def test_a_driver_proposing_the_leaving_node_for_ever_is_still_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # plant issue 25's bug: the driver no longer leaves nodes in a sequence out
    monkeypatch.setattr("impl.cms.reconfiguration.in_sequences", lambda metadata: frozenset())
    outcome = run("cms-undersized-replace-leave.json")
    assert outcome.cause is not None
    assert outcome.cause.text == "liveness: CMS undersized: 2 joined members, the policy wants 3 of 5 joined nodes"
