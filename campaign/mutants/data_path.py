"""Which generated cases can show an issue-22 data-path switch (focus `data`, impl/bugs.py), and
the one shape they need: the default `sim` generator reaches these paths on its own (client
load beside operations, multi-DC levels, hints, moves), so a case is run as generated, only
filtered to those that can exercise the switch — except `barrier-read-group-only`, whose bug
shows only where a barrier's write group differs from its read group (a leave's gaining
replica) while the replicas it would wait for lag behind.
"""

from __future__ import annotations

import copy
from typing import Any

LEVELS = {"each-quorum-pending-local-dc-only": "EACH_QUORUM", "local-quorum-ignores-pending": "LOCAL_QUORUM"}
OPS = {"move-skips-streaming": ("move",), "stream-from-remaining-replica": ("join", "leave", "move"),
       "barrier-read-group-only": ("leave",), "fencing-accepts-one-behind": ("join", "leave", "move",
                                                                             "replace", "remove")}


def exercises(name: str, case: dict[str, Any]) -> bool:
    """A case with a client load (and the level, or the operation kind, the switch is about)."""
    clients = case.get("clients", [])
    if not clients:
        return False
    level = LEVELS.get(name)
    if level is not None and not any(level in c.get("write_cl", []) for c in clients):
        return False
    ops = [o["op"] for o in case.get("operations", [])]
    if name == "barrier-read-group-only":
        return bool(ops) and len(case["topology"]["nodes"]) >= 6
    wanted = OPS.get(name)
    return wanted is None or any(o in wanted for o in ops) or (name != "move-skips-streaming" and bool(ops))


def leave_first(case: dict[str, Any]) -> dict[str, Any]:
    """barrier-read-group-only: the case's first operation becomes a decommission of a node of
    the upper half (not a CMS member), alone; the generic `ops` shape then cuts other upper
    nodes off the CMS for the leave, so that a range's read group can meet the buggy barrier
    (the leaving node and one more) while its read and write groups cannot (the gaining
    replica is cut off)."""
    case = copy.deepcopy(case)
    ids = sorted(n["id"] for n in case["topology"]["nodes"])
    first = case["operations"][0]
    case["operations"] = [{"op": "leave", "node": ids[len(ids) // 2], "at_ms": first["at_ms"]}]
    case.pop("cancels", None)
    return case


__all__ = ["exercises", "leave_first"]
