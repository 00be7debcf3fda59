"""What a remove or replace did not stream: the client writes a new replica lacks after it
received a range from its one source (finding `remove-replace-single-source`), which both the
clients' verdict and the durability check are explained by.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from impl.scenario import Scenario
from observed.calls import completed
from observed.cells import Cell
from observed.run import Observed


@frozen(kw_only=True)
class StreamLosses:
    lost: frozenset[tuple[str, Any]] = frozenset()
    """(key, value) of each write lost so."""
    why: tuple[str, ...] = ()
    """A line per lost write saying how."""


def stream_losses(scenario: Scenario, observed: Observed) -> StreamLosses:
    """The client writes a remove or replace did not stream to a new replica, with a line each
    saying how.

    Evidence (`Observed.streams`): a write acknowledged before a remove or replace finished
    streaming a range, held by some node then, yet not by the new replica after it received the
    range from its one source — a replica of the range before the operation other than the
    removed/replaced node (Cassandra's candidates) — or from nobody (no other replica: RF 1).
    A stream from any other node (a bug, e.g. switch stream-from-non-replica) or from several
    sources is no evidence."""
    keyspaces = {c.keyspace for c in scenario.clients}
    writes = [c for c in observed.clients if c.f == "write"]
    # every write, completed or not: (key, value) -> invoked
    written = {(c.key, c.value): c.invoked for c in writes}
    # (key, value) -> (invoked, ok) of the acknowledged ones, in the order they completed
    acked = {(c.key, c.value): (c.invoked, c.completed or 0) for c in completed(writes) if c.outcome == "ok"}
    lost: dict[tuple[str, Any], None] = {}
    why: list[str] = []
    for rec in observed.streams:
        if rec.keyspace not in keyspaces or not rec.faithful or len(rec.sources) > 1:
            continue
        for streamed in rec.keys:
            key, dest_cell = streamed.key, streamed.at_destination
            on_disk = {value: ts for ts, value in streamed.on_disks}
            dest_write = acked.get((key, dest_cell[1])) if dest_cell is not None else None
            # acknowledged writes, and writes that ended unknown (read before the stream lost
            # them, or overwritten by a write it lost)
            candidates = [(value, times) for (k, value), times in acked.items() if k == key and times[1] <= rec.time]
            candidates += [(value, (at, rec.time)) for (k, value), at in written.items()
                           if k == key and (k, value) not in acked and at <= rec.time]
            for value, times in candidates:
                if not _newer(value, times, dest_cell, on_disk, dest_write) or (key, value) in lost:
                    continue
                lost[(key, value)] = None
                source = f"from {rec.sources[0]} only" if rec.sources else "from nobody"
                how = "acknowledged" if (key, value) in acked else "written"
                why.append(f"{rec.keyspace}/{key}={value} {how}, not on {rec.destination} after "
                           f"{rec.op} of {rec.excluded} streamed ({rec.left}, {rec.right}] {source}")
    return StreamLosses(lost=frozenset(lost), why=tuple(why))


def _newer(value: Any, this: tuple[int, int], dest_cell: Cell | None, on_disk: dict[Any, int],
           dest_write: tuple[int, int] | None) -> bool:
    """Whether the acknowledged write of `value` (invoked, ok at `this`) is missing on a
    destination holding `dest_cell`: it holds nothing, or a cell older by timestamp (both still
    on some disk), or, for a write overwritten everywhere, one whose write was not invoked after
    this one completed (not shown newer)."""
    if dest_cell is None:
        return True
    if dest_cell[1] == value:
        return False
    if value in on_disk:
        return (on_disk[value], value) > (dest_cell[0], dest_cell[1])
    return dest_write is None or dest_write[0] <= this[1]


__all__ = ["StreamLosses", "stream_losses"]
