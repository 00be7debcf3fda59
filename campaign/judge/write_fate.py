"""What became of an acknowledged client write behind a durability cause: the evidence of a lost
write, a stale read or replicas that disagree at the end, even when the client history is
linearizable.

For each write followed: the key with its keyspace, the write (value, level, coordinator, the
replicas that acknowledged it, the coordinator's epoch), what each write replica holds at the
end, and the streams and hints that carried it or did not — all read off the run's observations
(observed/): the protocol trace (the write's plan, acknowledgements, every store of a cell and
how it came — mutation, hint, read_repair, repair, stream — and the hints stored), the end's
cells, the hints still stored and what each remove/replace streamed. Which writes: the
durability check's (campaign/judge/checks/durability.py).
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from observed.protocol import ProtocolTrace
from observed.run import Observed

MAX_FATES = 3
"""Writes followed per run (the first ones the report names; the cause line counts the rest)."""


@frozen(kw_only=True)
class WriteFate:
    """One acknowledged write and where it went."""

    kind: str
    """`lost write` (no replica holds it or a newer cell at the end, no hint carries it),
    `stale read` (a read that began after it was acknowledged missed it) or `stale replica`
    (the newest write of a key some live read replica lacks at a quiet end)."""
    key: str
    """`keyspace/key`."""
    value: int
    level: str | None = None
    coordinator: str | None = None
    epoch: int | None = None
    """The coordinator's epoch when it planned the write."""
    replicas: tuple[str, ...] = ()
    """The replicas the coordinator sent it to."""
    acknowledged_by: tuple[str, ...] = ()
    acknowledged_ns: int | None = None
    stored: tuple[tuple[str, str, int], ...] = ()
    """(node, how it came: mutation, hint, read_repair, repair, stream; when) of each store of it."""
    held: tuple[tuple[str, int | None, bool, bool], ...] = ()
    """(write replica at the end, the value on its disk or None, up, read replica)."""
    streams: tuple[str, ...] = ()
    """Each remove/replace stream of a range holding the key: who streamed from whom, and
    whether it carried the write."""
    hints: tuple[str, ...] = ()
    """Each hint stored for it, and whether it was still stored at the end."""
    read: tuple[int | None, int] | None = None
    """A stale read's (value returned, invoked at)."""

    def lines(self) -> list[str]:
        cl = f" at {self.level}" if self.level else ""
        by = f" by {self.coordinator}" if self.coordinator else ""
        epoch = f", coordinator at epoch {self.epoch}" if self.epoch is not None else ""
        sent = f", sent to {','.join(self.replicas)}" if self.replicas else ""
        acked = f", acknowledged by {','.join(self.acknowledged_by) or 'nobody'}"
        if self.acknowledged_ns is not None:
            acked += f" at {_s(self.acknowledged_ns)} s"
        out = [f"{self.kind}: {self.key}={self.value}{cl}{by}{epoch}{sent}{acked}"]
        if self.read is not None:
            out.append(f"  read at {_s(self.read[1])} s returned {_value(self.read[0])}")
        if self.stored:
            out.append("  stored on: " + ", ".join(f"{n} ({via}, {_s(t)} s)" for n, via, t in self.stored))
        if self.held:
            out.append("  at the end: " + ", ".join(
                f"{r}{'' if up else ' (down)'}{'' if read else ' (pending)'} holds {_value(v)}"
                for r, v, up, read in self.held))
        out += [f"  stream: {s}" for s in self.streams]
        out.append("  hints: " + ("; ".join(self.hints) if self.hints else "none stored"))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "value": self.value, "level": self.level,
                "coordinator": self.coordinator, "epoch": self.epoch, "replicas": list(self.replicas),
                "acknowledged_by": list(self.acknowledged_by), "acknowledged_ns": self.acknowledged_ns,
                "stored": [{"node": n, "via": v, "time_ns": t} for n, v, t in self.stored],
                "held": [{"replica": r, "value": v, "up": up, "read_replica": rd} for r, v, up, rd in self.held],
                "streams": list(self.streams), "hints": list(self.hints),
                "read": None if self.read is None else {"value": self.read[0], "invoked_ns": self.read[1]}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> WriteFate:
        read = d.get("read")
        return cls(kind=d["kind"], key=d["key"], value=d["value"], level=d.get("level"),
                   coordinator=d.get("coordinator"), epoch=d.get("epoch"), replicas=tuple(d.get("replicas", ())),
                   acknowledged_by=tuple(d.get("acknowledged_by", ())), acknowledged_ns=d.get("acknowledged_ns"),
                   stored=tuple((s["node"], s["via"], s["time_ns"]) for s in d.get("stored", ())),
                   held=tuple((h["replica"], h["value"], h["up"], h["read_replica"]) for h in d.get("held", ())),
                   streams=tuple(d.get("streams", ())), hints=tuple(d.get("hints", ())),
                   read=None if read is None else (read["value"], read["invoked_ns"]))


def write_fate(observed: Observed, trace: ProtocolTrace, kind: str, ks: str, key: str, value: int,
               read: tuple[int | None, int] | None = None) -> WriteFate:
    """Where the write of `value` to `ks/key` went: its plan and acknowledgements, every store of
    it, what each write replica holds at the end, the streams of its range, its hints."""
    plan = next((p for p in trace.write_plans if p.keyspace == ks and p.key == key and p.value == value), None)
    base: dict[str, Any] = {"kind": kind, "key": f"{ks}/{key}", "value": value, "read": read}
    stored = tuple((s.node, s.via, s.t) for s in trace.stores if (s.keyspace, s.key, s.value) == (ks, key, value))
    held = tuple((c.replica, None if c.holds_nothing else c.value, c.up, c.read_replica)
                 for k in observed.cells if (k.keyspace, k.key) == (ks, key) for c in k.cells)
    hints = [f"for {h.target} held by {h.coord} ({h.reason}) at {_s(h.t)} s" for h in trace.hint_stores
             if (h.keyspace, h.key, h.value) == (ks, key, value)]
    left = [f"for {h.target} still held by {h.holder} at the end" for h in observed.hints
            if (h.keyspace, h.key, h.value) == (ks, key, value)]
    base.update(stored=stored, held=held, streams=_streams(observed, ks, key, value), hints=tuple(hints + left))
    if plan is None:
        return WriteFate(**base)
    acks = tuple(a.replica for a in trace.write_acks if (a.coord, a.rid) == (plan.coord, plan.rid))
    done = next((d for d in trace.write_dones if (d.coord, d.rid) == (plan.coord, plan.rid)), None)
    return WriteFate(**base, level=plan.cl, coordinator=plan.coord, epoch=plan.epoch, replicas=tuple(plan.contacts),
                     acknowledged_by=acks, acknowledged_ns=done.t if done is not None else None)


def _streams(observed: Observed, ks: str, key: str, value: int) -> tuple[str, ...]:
    out = []
    for rec in observed.streams:
        if rec.keyspace != ks:
            continue
        for streamed in rec.keys:
            if streamed.key != key:
                continue
            dest_cell = streamed.at_destination
            source = f"from {', '.join(rec.sources)}" if rec.sources else "from nobody (no other replica held it)"
            on_disk = any(v == value for _, v in streamed.on_disks)
            carried = "carried it" if dest_cell is not None and dest_cell[1] == value else (
                f"did not carry it ({rec.destination} then held {_value(dest_cell[1] if dest_cell else None)}"
                + ("; a disk still held it then" if on_disk else "") + ")")
            out.append(f"{rec.op} of {rec.excluded} by {rec.driver} streamed ({rec.left}, {rec.right}] to "
                       f"{rec.destination} {source} at {_s(rec.time)} s: {carried}")
    return tuple(out)


def _value(v: Any) -> str:
    return "nothing" if v is None else str(v)


def _s(ns: int) -> str:
    return f"{ns / 1e9:.3f}"


__all__ = ["MAX_FATES", "WriteFate", "write_fate"]
