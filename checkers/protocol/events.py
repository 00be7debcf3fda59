"""The protocol trace's events as typed values (the simulator emits plain tuples, impl/protocol.py;
docs/simulate.md lists the fields of each kind).

`parse(rows)` groups them by kind into a `ProtocolTrace`; each event is a NamedTuple whose
fields follow the tuple after its kind (`t` first: the virtual time in ns). A row of a kind this
module does not know is ignored (a newer simulator may say more than a checker reads).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

Cell = tuple[int, int]
"""(timestamp, value): last write wins by timestamp, then value."""


class Apply(NamedTuple):
    t: int
    node: str
    epoch: int


class StepSubmit(NamedTuple):
    t: int
    driver: str
    seq_node: str
    op: str
    kind: str
    entry_id: str


class WritePlan(NamedTuple):
    t: int
    coord: str
    rid: int
    keyspace: str
    key: str
    token: int
    cl: str
    epoch: int
    coord_dc: str
    contacts: tuple[str, ...]
    down: tuple[str, ...]
    timestamp: int
    value: int


class WriteAck(NamedTuple):
    t: int
    coord: str
    rid: int
    replica: str
    how: str


class WriteDone(NamedTuple):
    t: int
    coord: str
    rid: int
    outcome: str
    epoch: int


class ReadPlan(NamedTuple):
    t: int
    coord: str
    rid: int
    keyspace: str
    key: str
    token: int
    cl: str
    epoch: int
    coord_dc: str
    contacts: tuple[str, ...]


class ReadResp(NamedTuple):
    t: int
    coord: str
    rid: int
    replica: str
    timestamp: int
    value: int | None


class ReadResolve(NamedTuple):
    t: int
    coord: str
    rid: int
    epoch: int
    responders: tuple[str, ...]
    timestamp: int
    value: int | None


class ReadRepair(NamedTuple):
    t: int
    coord: str
    rid: int
    epoch: int
    plan: tuple[str, ...]
    targets: tuple[str, ...]


class ReadRepairAck(NamedTuple):
    t: int
    coord: str
    rid: int
    replica: str


class ReadDone(NamedTuple):
    t: int
    coord: str
    rid: int
    outcome: str
    timestamp: int
    value: int | None
    epoch: int


class Serve(NamedTuple):
    t: int
    replica: str
    verb: str
    """mutation, read_repair, read, hint"""
    sender: str
    sender_epoch: int
    replica_epoch: int
    keyspace: str
    token: int
    answer: str
    """ok, CoordinatorBehind, InvalidRouting, UnknownKeyspace, rehinted"""
    rid: int
    """The coordinator's request id (0 for a hint)."""


class Store(NamedTuple):
    t: int
    node: str
    keyspace: str
    key: str
    timestamp: int
    value: int
    via: str
    """mutation, read_repair, hint, stream, repair"""


class HintStore(NamedTuple):
    t: int
    coord: str
    target: str
    keyspace: str
    key: str
    timestamp: int
    value: int
    reason: str


class RepairSync(NamedTuple):
    t: int
    coord: str
    src: str
    dst: str
    keyspace: str
    keys: tuple[str, ...]


class ProtocolTrace(NamedTuple):
    applies: tuple[Apply, ...]
    steps: tuple[StepSubmit, ...]
    write_plans: tuple[WritePlan, ...]
    write_acks: tuple[WriteAck, ...]
    write_dones: tuple[WriteDone, ...]
    read_plans: tuple[ReadPlan, ...]
    read_resps: tuple[ReadResp, ...]
    read_resolves: tuple[ReadResolve, ...]
    read_repairs: tuple[ReadRepair, ...]
    read_repair_acks: tuple[ReadRepairAck, ...]
    read_dones: tuple[ReadDone, ...]
    serves: tuple[Serve, ...]
    stores: tuple[Store, ...]
    hint_stores: tuple[HintStore, ...]
    repair_syncs: tuple[RepairSync, ...]


_KINDS: dict[str, tuple[str, Any]] = {
    "apply": ("applies", Apply), "step_submit": ("steps", StepSubmit),
    "write_plan": ("write_plans", WritePlan), "write_ack": ("write_acks", WriteAck),
    "write_done": ("write_dones", WriteDone), "read_plan": ("read_plans", ReadPlan),
    "read_resp": ("read_resps", ReadResp), "read_resolve": ("read_resolves", ReadResolve),
    "read_repair": ("read_repairs", ReadRepair), "read_repair_ack": ("read_repair_acks", ReadRepairAck),
    "read_done": ("read_dones", ReadDone), "serve": ("serves", Serve), "store": ("stores", Store),
    "hint_store": ("hint_stores", HintStore), "repair_sync": ("repair_syncs", RepairSync),
}


def parse(rows: Iterable[tuple[Any, ...]]) -> ProtocolTrace:
    groups: dict[str, list[Any]] = {field: [] for field, _ in _KINDS.values()}
    for row in rows:
        known = _KINDS.get(row[0])
        if known is not None:
            groups[known[0]].append(known[1]._make(row[1:]))
    return ProtocolTrace(**{k: tuple(v) for k, v in groups.items()})


__all__ = ["Apply", "Cell", "HintStore", "ProtocolTrace", "ReadDone", "ReadPlan", "ReadRepair",
           "ReadRepairAck", "ReadResolve", "ReadResp", "RepairSync", "Serve", "StepSubmit", "Store",
           "WriteAck", "WriteDone", "WritePlan", "parse"]
