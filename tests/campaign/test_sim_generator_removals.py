"""The sim generator's removals (replace, removenode, assassinate: their target dies first) test
something (issue 33): no removal is asked by a node an earlier removal killed, none kills the
node that asks for an earlier one (two CMS members each other's removenode targets in a 3-node
cluster: both dead, the CMS without its majority, nothing commits), and the kills leave a
majority of the nodes alive. Seeds 470 and 471 drew exactly that before."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.kinds import generate_case
from campaign.run.focus import Focus

KILLING = ("replace", "remove", "assassinate")


def removals_that_test_little(case: dict[str, Any]) -> list[str]:
    ids = [n["id"] for n in case["topology"]["nodes"]]
    killed: set[str] = set()
    askers: set[str] = set()
    wrong = []
    for o in case.get("operations", []):
        if o["op"] not in KILLING:
            continue
        if o["node"] in killed:
            wrong.append(f"{o['op']} asked by {o['node']}, killed by an earlier removal")
        if o["target"] in askers:
            wrong.append(f"{o['op']} of {o['target']}, which asks for an earlier removal")
        killed.add(o["target"])
        askers.add(o["node"])
    dead = {c["node"] for c in case["faults"]["crashes"] if c.get("restart_ms") is None and c["node"] in killed}
    if len(dead) * 2 >= len(ids):
        wrong.append(f"{len(dead)} of {len(ids)} nodes killed")
    return wrong


@pytest.mark.parametrize("focus", [Focus(), Focus.parse("remove"), Focus.parse("replace,remove")])
def test_no_generated_removal_kills_what_another_needs(focus: Focus) -> None:
    for seed in [*range(400), 123, 322, 470, 471]:
        assert removals_that_test_little(generate_case("sim", seed, focus)) == [], seed


def test_the_three_node_case_keeps_one_removal() -> None:
    ops = [(o["op"], o["node"], o["target"]) for o in generate_case("sim", 470)["operations"]]
    assert ops == [("remove", "n2", "n3")]
