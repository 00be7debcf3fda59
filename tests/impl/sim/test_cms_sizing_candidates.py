"""Issue 25, under Cassandra's trigger points (issue 21): new CMS members are chosen as
CMSPlacementStrategy does, leaving out nodes in an in-progress sequence (DefaultNodeFilter:
`inProgressSequences.contains`), and the CMS is placed anew only where an operator path asks
(ClusterMetadataService.ensureCMSPlacement after a join, replace or move finishes;
ReconfigureCMS.maybeReconfigureCMS before a member is removed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from campaign.formats.scenario import parse_scenario
from campaign.kinds import checked
from campaign.run.findings import known_finding
from campaign.run.record import RunSpec
from impl.cluster import Cluster
from impl.engine import cms_members

DATA = Path(__file__).parent / "data"


def failure_file(name: str) -> tuple[dict[str, Any], int]:
    doc: dict[str, Any] = json.loads((DATA / name).read_text())
    return doc["case"], int(doc["seed"])


def final_cms(name: str) -> tuple[Cluster, Any]:
    case, seed = failure_file(name)
    cluster = Cluster(parse_scenario(case), seed)
    return cluster, cluster.run()


def test_a_join_places_the_cms_anew_without_the_leaving_node() -> None:
    # j1 joins through the node-driven operation while n4 is leaving (submitted directly, never
    # driven on): six JOINED, so j1's ensureCMSPlacement grows the CMS to 5, past n4
    case, seed = failure_file("cms-grows-past-a-leaving-node.json")
    outcome = checked(RunSpec(kind="sim", seed=seed, case=case))
    assert outcome.valid, outcome.cause
    cluster, result = final_cms("cms-grows-past-a-leaving-node.json")
    assert result.quiescent and "rejections" not in dict(result.counters)
    for node in cluster.nodes.values():
        if node is not None:
            assert "n4" in node.log.metadata.sequences
            assert cms_members(node.log.metadata) == ("j1", "n1", "n2", "n3", "n5")


def test_a_join_by_direct_submissions_changes_no_cms() -> None:
    # the same join submitted step by step (no node drives it, so nothing calls
    # ensureCMSPlacement): the CMS stays as the first reconfiguration left it, and that is no
    # liveness failure (no sizing point wanted more)
    case, seed = failure_file("cms-short-of-a-leaving-node.json")
    assert checked(RunSpec(kind="sim", seed=seed, case=case)).valid
    cluster, result = final_cms("cms-short-of-a-leaving-node.json")
    assert result.quiescent and "rejections" not in dict(result.counters)
    for node in cluster.nodes.values():
        if node is not None:
            assert cms_members(node.log.metadata) == ("n1", "n2", "n3")


def test_a_cms_member_replaced_by_direct_submissions_keeps_its_seat() -> None:
    # the campaign's shrunk case of issue 25 (seed 777004756): j1 replaces the CMS member n1 by
    # direct submissions; no operator path runs maybeReconfigureCMS, so n1 stays a CMS member
    # outside the directory: finding replace-cms-member, by the spec's invariant
    case, seed = failure_file("cms-undersized-replace-leave.json")
    outcome = checked(RunSpec(kind="sim", seed=seed, case=case))
    assert outcome.cause is not None and outcome.cause.klass == "invariant cms_is_consistent"
    finding = known_finding(outcome.cause.klass)
    assert finding is not None and finding.id == "replace-cms-member"
    cluster, _ = final_cms("cms-undersized-replace-leave.json")
    assert cms_members(cluster.nodes["n2"].log.metadata) == ("n1", "n2", "n3")


def test_a_retried_ensure_cms_placement_is_placed_by_the_metadata_it_executes_on() -> None:
    # fresh seed 30313 (shrunk): after d1's join, ensureCMSPlacement at 1.717 s sees n3 JOINED and
    # would add d1 and n3; its Submit is lost and retried 10 s later, after n3's PREPARE_LEAVE.
    # Cassandra's PrepareCMSReconfiguration.Complex carries only the replication and the down
    # nodes and places the CMS in execute(prev), so the retry adds d1 and n5 past the leaving n3;
    # a plan fixed when submitted was refused ("n3 must be JOINED ... not LEAVING") and the CMS
    # stayed at three of five
    case, seed = failure_file("cms-placed-where-it-executes.json")
    outcome = checked(RunSpec(kind="sim", seed=seed, case=case))
    assert outcome.valid, outcome.cause
    cluster, result = final_cms("cms-placed-where-it-executes.json")
    assert result.quiescent
    for node in cluster.nodes.values():
        if node is not None and node.alive:
            assert cms_members(node.log.metadata) == ("d1", "n1", "n2", "n4", "n5"), node.id
