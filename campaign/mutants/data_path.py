"""Which generated cases can show an issue-22 data-path switch (focus `data`, impl/bugs.py): the
default `sim` generator reaches these paths on its own (client load beside operations, multi-DC
levels, hints, moves), so a case is run as generated, only filtered to those that can exercise
the switch.
"""

from __future__ import annotations

from typing import Any

LEVELS = {"each-quorum-pending-local-dc-only": "EACH_QUORUM", "local-quorum-ignores-pending": "LOCAL_QUORUM"}
OPS = {"move-skips-streaming": ("move",), "stream-from-remaining-replica": ("join", "leave", "move")}


def exercises(name: str, case: dict[str, Any]) -> bool:
    """A case with a client load (and the level, or the operation kind, the switch is about)."""
    clients = case.get("clients", [])
    if not clients:
        return False
    level = LEVELS.get(name)
    if level is not None and not any(level in c.get("write_cl", []) for c in clients):
        return False
    ops = [o["op"] for o in case.get("operations", [])]
    wanted = OPS.get(name)
    return bool(ops) and (wanted is None or any(o in wanted for o in ops))


__all__ = ["exercises"]
