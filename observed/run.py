"""`Observed`: everything one simulated run observed, as plain frozen records — what impl's
cluster returns at the end of a run (or at any moment, for the stateful machine) and what the
judge's checks read. Picklable, no impl type, JSON values rather than JSON text.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from observed.calls import ClientCall, CommitCall, history_of
from observed.cells import KeyCells, StoredHint, StreamRecord
from observed.entry import Entry
from observed.frozen import FrozenMap
from observed.history import Op
from observed.protocol import Event, ProtocolTrace


@frozen(kw_only=True)
class NodeResult:
    id: str
    up: bool
    applied_epoch: int
    log_hash: str
    """The chain hash at the applied epoch: equal iff the logs up to there are equal, whether
    the node replayed every entry or installed a snapshot."""
    first_epoch: int
    """The first epoch whose entry the node holds (1, or a snapshot's epoch + 1)."""
    entries: tuple[Entry, ...]
    snapshot_epochs: tuple[int, ...]


@frozen(kw_only=True)
class OperationEnd:
    """A topology operation a node drove that ended, and how (`completed`, `cancelled`,
    `rejected: ...`, `failed: ...`, `refused: ...`, `skipped: ...`)."""

    node: str
    op: str
    outcome: str


@frozen(kw_only=True)
class Unfinished:
    """An operation still in progress at the end on a live node."""

    node: str
    op: str
    could_finish: bool
    """The live nodes meet its barrier at the lowest level it may relax to."""


@frozen(kw_only=True)
class Holding:
    """What a node's metadata held when it installed a snapshot, restarted, or at the end: its
    placements, each node's state and tokens, the CMS read and write sets (impl's
    `metadata_view`), to be compared with the spec's replay of the log up to `epoch`."""

    node: str
    epoch: int
    when: str
    """snapshot, restart or end"""
    view: FrozenMap


@frozen(kw_only=True)
class Install:
    """A snapshot install, with the metadata keys it reported modified (Cassandra's
    ForceSnapshot result: MetadataKeys.diffKeys)."""

    node: str
    before: int
    """The node's epoch before the install."""
    after: int
    """The snapshot's epoch."""
    keys: tuple[str, ...]


@frozen(kw_only=True)
class ApplyFailure:
    node: str
    epoch: int
    reason: str


@frozen(kw_only=True)
class Observed:
    seed: int
    trace_hash: str
    trace_events: int
    final_epoch: int
    end_time: int
    quiescent: bool
    nodes: tuple[NodeResult, ...]
    clients: tuple[ClientCall, ...] = ()
    """Every client read and write, in the order they were invoked."""
    commits: tuple[CommitCall, ...] = ()
    """Every commit request (and election), in the order they were invoked."""
    counters: tuple[tuple[str, int], ...] = ()
    conflicts: tuple[str, ...] = ()
    """Any epoch seen holding two different entries (on two nodes, or one node twice)."""
    apply_failures: tuple[ApplyFailure, ...] = ()
    trace: tuple[str, ...] = ()
    """The message trace's lines, when kept (`simulate --trace`)."""
    operations: tuple[OperationEnd, ...] = ()
    """Every topology operation that ended, in time order."""
    holdings: tuple[Holding, ...] = ()
    epoch_regressions: tuple[str, ...] = ()
    """Any node whose applied epoch went backwards (across a restart, or by a snapshot)."""
    unfinished: tuple[Unfinished, ...] = ()
    decisions: tuple[tuple[str, int, int], ...] = ()
    """The non-default decisions the run took (impl/sim/decisions.py), when recorded or
    scripted: as a scenario's `decisions`, they replay this very run."""
    streams: tuple[StreamRecord, ...] = ()
    """Every range a remove or replace streamed (or had nothing to stream from), in time order."""
    installs: tuple[Install, ...] = ()
    protocol: tuple[Event, ...] = ()
    """The protocol trace (observed/protocol.py), in the order the simulation took it."""
    cells: tuple[KeyCells, ...] = ()
    """Every client key's write replicas and what their disks hold, in the final placement of the
    most advanced live node."""
    hints: tuple[StoredHint, ...] = ()
    """Every hint still stored."""

    @property
    def client_history(self) -> tuple[Op, ...]:
        return history_of(self.clients)

    @property
    def commit_history(self) -> tuple[Op, ...]:
        return history_of(self.commits)

    def protocol_trace(self) -> ProtocolTrace:
        return ProtocolTrace.of(self.protocol)

    def counter(self, name: str) -> int:
        return dict(self.counters).get(name, 0)

    def node(self, node_id: str) -> NodeResult:
        return next(n for n in self.nodes if n.id == node_id)

    def summary(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "trace_hash": self.trace_hash,
            "trace_events": self.trace_events,
            "final_epoch": self.final_epoch,
            "end_time_ns": self.end_time,
            "quiescent": self.quiescent,
            "nodes": {n.id: {"up": n.up, "applied_epoch": n.applied_epoch,
                             "log_hash": n.log_hash, "first_epoch": n.first_epoch}
                      for n in self.nodes},
            "counters": dict(self.counters),
            "conflicts": list(self.conflicts),
            "apply_failures": [[f.node, f.epoch, f.reason] for f in self.apply_failures],
            "operations": [[o.node, o.op, o.outcome] for o in self.operations],
        }


__all__ = ["ApplyFailure", "Holding", "Install", "NodeResult", "Observed", "OperationEnd", "Unfinished"]
