"""What replicas hold: a replica's cell of a key at the end of a run, the hints still stored, and
what a remove or replace streamed.

A cell is `(timestamp, value)`: last write wins by timestamp, then by value (values are the
unique integers the client workloads write).
"""

from __future__ import annotations

from attrs import frozen

Cell = tuple[int, int]
"""(timestamp, value) of a stored write."""

NOTHING: Cell = (-1, -1)
"""What a replica that holds nothing for a key has (older than any write)."""


@frozen(kw_only=True)
class ReplicaCell:
    """What one write replica of a key holds on its disk."""

    replica: str
    timestamp: int
    """-1: nothing."""
    value: int
    up: bool
    read_replica: bool
    """In the key's read group (else a pending replica, in the write group only)."""

    @property
    def cell(self) -> Cell:
        return (self.timestamp, self.value)

    @property
    def holds_nothing(self) -> bool:
        return self.timestamp < 0


@frozen(kw_only=True)
class KeyCells:
    """Every write replica's cell of one client key, in the final placement of the most advanced
    live node, down replicas included (a disk outlives a crash)."""

    keyspace: str
    key: str
    cells: tuple[ReplicaCell, ...]

    def readable(self) -> tuple[ReplicaCell, ...]:
        """The cells a read can reach: the live read replicas'."""
        return tuple(c for c in self.cells if c.up and c.read_replica)


@frozen(kw_only=True)
class StoredHint:
    """A hint still stored at the end."""

    holder: str
    target: str
    keyspace: str
    key: str
    timestamp: int
    value: int

    @property
    def cell(self) -> Cell:
        return (self.timestamp, self.value)


@frozen(kw_only=True)
class StreamedKey:
    """One key of a streamed range: what the destination held once streaming ended, and every
    distinct cell any node's disk held then."""

    key: str
    at_destination: Cell | None
    on_disks: tuple[Cell, ...]


@frozen(kw_only=True)
class StreamRecord:
    """What one new replica received for one range when a remove or replace streamed (recorded
    by the world, as evidence for the judge: finding `remove-replace-single-source`)."""

    time: int
    op: str
    """remove or replace"""
    driver: str
    excluded: str | None
    """The removed or replaced node."""
    keyspace: str
    left: int
    right: int
    destination: str
    sources: tuple[str, ...]
    """The nodes whose data reached the destination (empty: nobody held the range)."""
    faithful: bool
    """Every source is a replica of the range before the operation other than the excluded
    node (Cassandra's candidates); False for a stream from anywhere else (a bug)."""
    keys: tuple[StreamedKey, ...]
    """Each key of the keyspace in the range."""


__all__ = ["NOTHING", "Cell", "StoredHint", "KeyCells", "ReplicaCell", "StreamRecord", "StreamedKey"]
