"""The liveness rule "removal refused for a CMS member" (campaign/judge/checks/cms.py): an
operator path reconfigures the CMS without the node first (ReconfigureCMS.maybeReconfigureCMS),
so a removal the CMS refuses because its node is a CMS member is a failure — unless the node was
not a full CMS member in the view maybeReconfigureCMS decided on (Cassandra's decommission reads
ClusterMetadata.current() and does not catch up first), where Cassandra's PrepareLeave refuses it
the same way ("still a part of CMS") and the operator retries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from campaign.formats.scenario import parse_scenario
from campaign.kinds import checked
from campaign.run.record import RunSpec
from impl.cluster import run_scenario

DATA = Path(__file__).parents[1] / "impl" / "sim" / "data"


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((DATA / name).read_text())
    return doc


def test_a_decommission_decided_before_the_node_became_a_cms_member_is_refused_and_not_a_failure() -> None:
    doc = load("leave-while-becoming-cms-member.json")
    result = run_scenario(parse_scenario(doc["case"]), seed=int(doc["seed"]))
    [(node, op, outcome)] = [(o.node, o.op, o.outcome) for o in result.operations if o.op == "leave"]
    assert node == "n5" and outcome.startswith("rejected: n5: is a CMS member")
    assert "not a full CMS member in n5's view" in outcome
    out = checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"]))
    assert out.valid, out.cause


def test_a_decommission_whose_node_the_cms_took_back_after_its_reconfiguration_is_not_a_failure() -> None:
    """Fresh seed 60613183213, shrunk: n4's decommission reconfigures the CMS without it; its
    PREPARE_LEAVE is lost and retried; meanwhile n2's move finishes and its ensureCMSPlacement
    makes n4 a member again (SingleNodeSequences.decommission commits maybeReconfigureCMS and
    PrepareLeave apart, with no lock between them). PrepareLeave refuses ("still a part of CMS")
    and the operator retries: Cassandra's behaviour, not a failure."""
    doc = load("leave-cms-member-again-after-reconfiguration.json")
    result = run_scenario(parse_scenario(doc["case"]), seed=int(doc["seed"]))
    [(node, op, outcome)] = [(o.node, o.op, o.outcome) for o in result.operations if o.op == "leave"]
    assert outcome.startswith(f"rejected: {node}: is a CMS member")
    assert f"not a full CMS member in {node}'s view" in outcome
    out = checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"]))
    assert out.valid, out.cause
