"""Issue 25: the CMS sizing driver chooses new members as Cassandra's CMSPlacementStrategy does,
leaving out nodes in an in-progress sequence (DefaultNodeFilter: `inProgressSequences.contains`).

Before, it proposed the lowest-id joined node even when that node was leaving; the engine refuses
such a candidate ("is in an in-progress sequence"), the driver proposed the same plan again on
every retry, and the CMS stayed below the policy's size for the rest of the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.formats.scenario import parse_scenario
from campaign.kinds import checked
from campaign.run.record import RunSpec
from impl.cluster import Cluster
from impl.engine import cms_members

DATA = Path(__file__).parent / "data"


def failure_file(name: str) -> tuple[dict[str, Any], int]:
    doc: dict[str, Any] = json.loads((DATA / name).read_text())
    return doc["case"], int(doc["seed"])


@pytest.mark.parametrize(("name", "cms"), [
    # the campaign's shrunk case (seed 777004756): j1 replaces the CMS member n1 by direct
    # submissions and n4 prepares to leave; n1's seat must go to n5, not to the leaving n4
    ("cms-undersized-replace-leave.json", ("n2", "n3", "n5")),
    # the same stall without any replace: j1 joins while n4 is leaving, the policy grows to 5
    ("cms-grows-past-a-leaving-node.json", ("j1", "n1", "n2", "n3", "n5")),
])
def test_the_cms_reaches_the_policy_size_without_the_leaving_node(name: str, cms: tuple[str, ...]) -> None:
    case, seed = failure_file(name)
    outcome = checked(RunSpec(kind="sim", seed=seed, case=case))
    assert outcome.valid, outcome.cause
    cluster = Cluster(parse_scenario(case), seed)
    result = cluster.run()
    assert result.quiescent
    assert dict(result.counters).get("rejections", 0) <= 1  # no plan refused over and over
    for node in cluster.nodes.values():
        if node is not None:
            meta = node.log.metadata
            assert "n4" in meta.sequences  # the leave is still prepared: n4 was never eligible
            assert cms_members(meta) == cms


def test_with_only_four_eligible_nodes_the_cms_settles_at_four() -> None:
    # j1 joined by direct submissions is no process (down to the failure detector) and n4 is
    # leaving: CMSPlacementStrategy would place the CMS on the four others, and so does the
    # driver, once, instead of proposing n4 for the rest of the run
    case, seed = failure_file("cms-short-of-a-leaving-node.json")
    cluster = Cluster(parse_scenario(case), seed)
    result = cluster.run()
    assert result.quiescent
    assert "rejections" not in dict(result.counters)
    for node in cluster.nodes.values():
        if node is not None:
            assert cms_members(node.log.metadata) == ("n1", "n2", "n3", "n5")
