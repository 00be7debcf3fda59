"""The protocol trace's events: what the data path, the progress barrier, streaming, hints and
repair *decided* at each step, as named records — one schema for impl, which emits them
(impl/protocol.py), and for the checkers that read them (checkers/protocol/, the judge).

Every event has `t`, the virtual time in ns it happened at. `ProtocolTrace.of(events)` groups a
run's events by kind, in the order the simulation took them. The message trace (impl/trace.py)
records what travelled; this records decisions, and is not part of the trace hash.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attrs import fields, frozen

# --- the log and topology operations ---


@frozen(kw_only=True)
class Applied:
    """A node applied an entry or a snapshot, or restarted, and is at `epoch` now."""

    t: int
    node: str
    epoch: int


@frozen(kw_only=True)
class StepSubmit:
    """A driver submitted a step of its operation (scripted submissions have none)."""

    t: int
    driver: str
    seq_node: str
    """The node the sequence is about (the removed node of a removenode)."""
    op: str
    kind: str
    entry_id: str


@frozen(kw_only=True)
class BarrierStart:
    """A driver starts waiting at the progress barrier before `step`."""

    t: int
    driver: str
    seq_node: str
    step: str
    wait_for: int
    """The epoch the barrier's participants must have reached."""


@frozen(kw_only=True)
class BarrierPass:
    t: int
    driver: str
    seq_node: str
    wait_for: int
    level: str
    """The level the barrier passed at (it relaxes after timeouts)."""
    responded: tuple[str, ...]


# --- the coordinator's side of a write or a read ---


@frozen(kw_only=True)
class WritePlan:
    t: int
    coord: str
    rid: int
    """The coordinator's request id."""
    keyspace: str
    key: str
    token: int
    cl: str
    epoch: int
    """The coordinator's epoch when it planned."""
    coord_dc: str
    contacts: tuple[str, ...]
    down: tuple[str, ...]
    """Replicas the coordinator's failure detector saw down (hinted, not sent)."""
    timestamp: int
    value: int


@frozen(kw_only=True)
class WriteAck:
    t: int
    coord: str
    rid: int
    replica: str
    """The replica that acknowledged (`hint` for a hint counted at ANY)."""
    how: str
    """ack or hint"""


@frozen(kw_only=True)
class WriteDone:
    t: int
    coord: str
    rid: int
    outcome: str
    epoch: int
    """The coordinator's epoch when it answered."""


@frozen(kw_only=True)
class ReadPlan:
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


@frozen(kw_only=True)
class ReadSpeculate:
    """A speculative retry sent the read to one more replica."""

    t: int
    coord: str
    rid: int
    replica: str


@frozen(kw_only=True)
class ReadResp:
    t: int
    coord: str
    rid: int
    replica: str
    timestamp: int
    value: int | None


@frozen(kw_only=True)
class ReadResolve:
    t: int
    coord: str
    rid: int
    epoch: int
    responders: tuple[str, ...]
    timestamp: int
    value: int | None


@frozen(kw_only=True)
class ReadRepair:
    """A blocking read repair: the plan it was computed over and the replicas it writes to."""

    t: int
    coord: str
    rid: int
    epoch: int
    plan: tuple[str, ...]
    targets: tuple[str, ...]


@frozen(kw_only=True)
class ReadRepairAck:
    t: int
    coord: str
    rid: int
    replica: str


@frozen(kw_only=True)
class ReadDone:
    t: int
    coord: str
    rid: int
    outcome: str
    timestamp: int
    value: int | None
    epoch: int


# --- replicas, hints, streaming, repair ---


@frozen(kw_only=True)
class Serve:
    """A replica's answer to a request, with both epochs its check compared."""

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


@frozen(kw_only=True)
class Store:
    """A cell that changed on a node's disk, and how it came."""

    t: int
    node: str
    keyspace: str
    key: str
    timestamp: int
    value: int
    via: str
    """mutation, read_repair, hint, stream, repair"""


@frozen(kw_only=True)
class StreamServe:
    """A source sent a destination the rows of some ranges."""

    t: int
    source: str
    destination: str
    driver: str
    keyspace: str
    ranges: tuple[tuple[int, int], ...]
    rows: tuple[tuple[str, int, int], ...]
    """(key, timestamp, value) of each row sent."""


@frozen(kw_only=True)
class HintStore:
    t: int
    coord: str
    """The node that stores the hint."""
    target: str
    keyspace: str
    key: str
    timestamp: int
    value: int
    reason: str


@frozen(kw_only=True)
class HintDeliver:
    """A holder deleted a hint its target acknowledged."""

    t: int
    holder: str
    target: str
    keyspace: str
    key: str
    timestamp: int
    value: int


@frozen(kw_only=True)
class RepairSessionStart:
    t: int
    coord: str
    session: int
    keyspace: str
    ranges: tuple[tuple[int, int], ...]
    participants: tuple[tuple[str, ...], ...]
    """The participants of each range, in `ranges`' order."""
    epoch: int


@frozen(kw_only=True)
class SyncTask:
    """A repair session's coordinator asked `src` to stream `keys` to `dst` (RepairJob's sync
    tasks: every pair of participants of a range whose cells differ, both ways)."""

    t: int
    coord: str
    session: int
    src: str
    dst: str
    keyspace: str
    keys: tuple[str, ...]


@frozen(kw_only=True)
class RepairSessionDone:
    t: int
    coord: str
    session: int
    """0: the repair failed or finished before a session began."""
    keyspace: str
    outcome: str
    """completed, or `failed: why`"""


Event = (Applied | StepSubmit | BarrierStart | BarrierPass | WritePlan | WriteAck | WriteDone | ReadPlan
         | ReadSpeculate | ReadResp | ReadResolve | ReadRepair | ReadRepairAck | ReadDone | Serve | Store
         | StreamServe | HintStore | HintDeliver | RepairSessionStart | SyncTask | RepairSessionDone)

KINDS: tuple[tuple[str, type[Any]], ...] = (
    ("applies", Applied), ("steps", StepSubmit), ("barrier_starts", BarrierStart),
    ("barrier_passes", BarrierPass), ("write_plans", WritePlan), ("write_acks", WriteAck),
    ("write_dones", WriteDone), ("read_plans", ReadPlan), ("read_speculates", ReadSpeculate),
    ("read_resps", ReadResp), ("read_resolves", ReadResolve), ("read_repairs", ReadRepair),
    ("read_repair_acks", ReadRepairAck), ("read_dones", ReadDone), ("serves", Serve), ("stores", Store),
    ("stream_serves", StreamServe), ("hint_stores", HintStore), ("hint_delivers", HintDeliver),
    ("repair_starts", RepairSessionStart), ("sync_tasks", SyncTask), ("repair_dones", RepairSessionDone),
)
"""Every event kind, with the `ProtocolTrace` field that groups it."""


@frozen(kw_only=True)
class ProtocolTrace:
    """A run's events grouped by kind, each group in the order the simulation took them."""

    applies: tuple[Applied, ...] = ()
    steps: tuple[StepSubmit, ...] = ()
    barrier_starts: tuple[BarrierStart, ...] = ()
    barrier_passes: tuple[BarrierPass, ...] = ()
    write_plans: tuple[WritePlan, ...] = ()
    write_acks: tuple[WriteAck, ...] = ()
    write_dones: tuple[WriteDone, ...] = ()
    read_plans: tuple[ReadPlan, ...] = ()
    read_speculates: tuple[ReadSpeculate, ...] = ()
    read_resps: tuple[ReadResp, ...] = ()
    read_resolves: tuple[ReadResolve, ...] = ()
    read_repairs: tuple[ReadRepair, ...] = ()
    read_repair_acks: tuple[ReadRepairAck, ...] = ()
    read_dones: tuple[ReadDone, ...] = ()
    serves: tuple[Serve, ...] = ()
    stores: tuple[Store, ...] = ()
    stream_serves: tuple[StreamServe, ...] = ()
    hint_stores: tuple[HintStore, ...] = ()
    hint_delivers: tuple[HintDeliver, ...] = ()
    repair_starts: tuple[RepairSessionStart, ...] = ()
    sync_tasks: tuple[SyncTask, ...] = ()
    repair_dones: tuple[RepairSessionDone, ...] = ()

    @classmethod
    def of(cls, events: Iterable[Event]) -> ProtocolTrace:
        group = {kind: name for name, kind in KINDS}
        groups: dict[str, list[Any]] = {name: [] for name, _ in KINDS}
        for e in events:
            groups[group[type(e)]].append(e)
        return cls(**{name: tuple(v) for name, v in groups.items()})


def field_names(kind: type[Any]) -> tuple[str, ...]:
    """An event kind's fields, `t` first (docs/simulate.md lists them)."""
    return tuple(f.name for f in fields(kind))


__all__ = ["KINDS", "Applied", "BarrierPass", "BarrierStart", "Event", "HintDeliver", "HintStore",
           "ProtocolTrace", "ReadDone", "ReadPlan", "ReadRepair", "ReadRepairAck", "ReadResolve", "ReadResp",
           "ReadSpeculate", "RepairSessionDone", "RepairSessionStart", "Serve", "StepSubmit", "Store",
           "StreamServe", "SyncTask", "WriteAck", "WriteDone", "WritePlan", "field_names"]
