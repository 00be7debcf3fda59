"""The typed getters every scenario field goes through (campaign/formats/fields.py's, with this
format's bounds: finite, in range, never a bool for a number), and `Nodes`, the topology's node
ids that every other field may name."""

from __future__ import annotations

from typing import Any

from campaign.errors import BadInput
from campaign.formats import fields
from impl.data.consistency import LEVELS
from impl.sim.clock import ms_to_ns


class Nodes:
    """The node ids a scenario may name: the topology's, and those its joins and replaces add."""

    def __init__(self, nodes_doc: Any) -> None:
        if not isinstance(nodes_doc, list) or not nodes_doc:
            raise BadInput("topology: \"nodes\" must be a non-empty list")
        self.ids: set[str] = set()
        for n in nodes_doc:
            if not isinstance(n, dict) or not isinstance(n.get("id"), str) or not n["id"]:
                raise BadInput("topology: every node needs a string \"id\"")
            if n["id"] in self.ids:
                raise BadInput(f"topology: node {n['id']} appears twice")
            self.ids.add(n["id"])
        self.topology_ids = frozenset(self.ids)
        self.dcs = {str(n.get("dc", "dc1")) for n in nodes_doc}

    def node(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in self.ids:
            raise BadInput(f"{where}: unknown node {value!r}")
        return value

    def node_list(self, value: Any, where: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise BadInput(f"{where}: expected a list of node ids")
        return tuple(self.node(v, where) for v in value)


def unique(ids: tuple[str, ...], where: str) -> None:
    twice = sorted({n for n in ids if ids.count(n) > 1})
    if twice:
        raise BadInput(f"{where}: node {twice[0]!r} is listed twice")


def obj(value: Any, where: str) -> dict[str, Any]:
    return fields.obj(value, where)


def lst(value: Any, where: str) -> list[Any]:
    return fields.lst(value, where)


def keys(doc: dict[str, Any], allowed: set[str], where: str) -> None:
    fields.known_keys(doc, allowed, where)


def num(value: Any, where: str) -> float:
    """A non-negative finite number of milliseconds (or ms-like quantity) up to MAX_MS."""
    return fields.number(value, where, lo=0, hi=fields.MAX_MS)


def ms(value: Any, where: str) -> int:
    return ms_to_ns(num(value, where))


def integer(value: Any, where: str, *, lo: int, hi: int = 10**9) -> int:
    return fields.integer(value, where, lo=lo, hi=hi)


def prob(value: Any, where: str) -> float:
    v = fields.number(value, where)
    if not 0 <= v <= 1:
        raise BadInput(f"{where}: a probability must lie in [0, 1], got {value!r}")
    return v


def levels(value: Any, where: str, *, writes: bool = False) -> tuple[str, ...]:
    """A list of consistency levels; ANY only for writes (Cassandra's validateForRead: "ANY
    ConsistencyLevel is only supported for writes")."""
    out = lst(value, where)
    if not writes and "ANY" in out:
        raise BadInput(f"{where}: ANY ConsistencyLevel is only supported for writes")
    known = LEVELS + (("ANY",) if writes else ())
    if not out or not all(v in known for v in out):
        raise BadInput(f"{where}: expected a non-empty list of {', '.join(known)}")
    return tuple(out)


def only(doc: dict[str, Any], where: str) -> tuple[int, ...] | None:
    """A workload's `only`: the indices of the generated items to keep (a shrunk workload)."""
    if "only" not in doc:
        return None
    count = integer(doc.get("count", 0), f"{where}.count", lo=0)
    raw = lst(doc["only"], f"{where}.only")
    out = tuple(integer(x, f"{where}.only", lo=0, hi=max(count - 1, 0)) for x in raw)
    if count == 0 and out:
        raise BadInput(f"{where}.only: a workload of count 0 has nothing to keep")
    if len(set(out)) != len(out):
        raise BadInput(f"{where}.only: an index is listed twice")
    return tuple(sorted(out))


__all__ = ["Nodes", "integer", "keys", "levels", "lst", "ms", "num", "obj", "only", "prob", "unique"]
