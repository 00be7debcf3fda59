"""OPS.json -> spec operations, with references to nodes checked before anything runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from campaign.errors import BadInput
from campaign.formats.jsonio import field, load_json
from campaign.formats.topology import parse_node, parse_tokens
from campaign.formats.transformations import parse_transformation
from spec import operations as O
from spec.nodes import NodeId
from spec.sequences import OperationKind, Step
from spec.topology import Topology

_KINDS = tuple(k.value for k in OperationKind)
_UNTIL = {"PREPARE": Step.PREPARE, "START": Step.START, "MID": Step.MID, "FINISH": Step.FINISH}


def load_operations(path: str | Path, topology: Topology | None = None) -> tuple[O.Operation, ...]:
    return parse_operations(load_json(path, "operations"), str(path), topology)


def _until(raw: dict[str, Any], where: str) -> Step:
    value = field(raw, "until", str, where, default="FINISH")
    if value not in _UNTIL:
        raise BadInput(f"{where}: 'until' must be PREPARE, START, MID or FINISH, not {value!r}")
    return _UNTIL[value]


def parse_operations(doc: Any, where: str = "operations", topology: Topology | None = None) -> tuple[O.Operation, ...]:
    """Parse, and when `topology` is given, check every node an operation names exists by then."""
    if not isinstance(doc, list):
        raise BadInput(f"{where}: expected a list of operations")
    known: set[str] | None = None if topology is None else {n.id for n in topology.nodes}
    ops: list[O.Operation] = []

    def node_ref(raw: dict[str, Any], w: str, key: str = "node") -> NodeId:
        node = field(raw, key, str, w)
        if known is not None and node not in known:
            raise BadInput(f"{w}: unknown node {node!r}")
        return NodeId(node)

    for i, raw in enumerate(doc):
        w = f"{where}: op {i}"
        kind = field(raw, "op", str, w)
        w = f"{w} ({kind})"
        op: O.Operation
        if kind == "join":
            node = parse_node(field(raw, "node", dict, w), w, tokens_required=True)
            op = O.Join(node=node, until=_until(raw, w),
                        operator_checks=field(raw, "operator_checks", bool, w, default=True))
            if known is not None:
                known.add(node.id)
        elif kind in ("leave", "remove"):
            cls = O.Leave if kind == "leave" else O.Remove
            op = cls(node=node_ref(raw, w), until=_until(raw, w), force=field(raw, "force", bool, w, default=False),
                     operator_checks=field(raw, "operator_checks", bool, w, default=True))
        elif kind == "move":
            op = O.Move(node=node_ref(raw, w), tokens=parse_tokens(field(raw, "tokens", list, w), w), until=_until(raw, w),
                        operator_checks=field(raw, "operator_checks", bool, w, default=True))
        elif kind == "replace":
            by = parse_node(field(raw, "by", dict, w), f"{w}: by", tokens_required=False)
            if by.tokens:
                raise BadInput(f"{w}: the replacement takes the replaced node's tokens; do not give it any")
            op = O.Replace(node=node_ref(raw, w), by=by, until=_until(raw, w),
                           operator_checks=field(raw, "operator_checks", bool, w, default=True))
            if known is not None:
                known.add(by.id)
        elif kind == "resume":
            op = O.Resume(node=node_ref(raw, w), until=_until(raw, w))
        elif kind == "cancel":
            expected = field(raw, "kind", str, w, default=None)
            if expected is not None and expected not in _KINDS:
                raise BadInput(f"{w}: 'kind' must be one of {', '.join(_KINDS)}, not {expected!r}")
            op = O.Cancel(node=node_ref(raw, w), kind=None if expected is None else OperationKind(expected))
        elif kind == "assassinate":
            op = O.Assassinate(node=NodeId(field(raw, "node", str, w)),
                               operator_checks=field(raw, "operator_checks", bool, w, default=True))
        elif kind == "abortbootstrap":
            op = O.AbortBootstrap(node=node_ref(raw, w),
                                  operator_checks=field(raw, "operator_checks", bool, w, default=True))
        elif kind == "transformation":
            t = parse_transformation(field(raw, "transformation", dict, w), w)
            op = O.Apply(transformation=t)
            if known is not None and t.kind == "REGISTER":
                known.add(getattr(t, "node"))  # noqa: B009  # every REGISTER has node
        else:
            raise BadInput(f"{w}: unknown op (join, leave, move, replace, remove, assassinate, abortbootstrap, "
                           "resume, cancel, transformation)")
        ops.append(op)
    return tuple(ops)
