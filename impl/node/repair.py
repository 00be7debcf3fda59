"""Anti-entropy repair: `nodetool repair -full KEYSPACE [-st L -et R]` run on a node (Cassandra's
`service/ActiveRepairService.getNeighbors / prepareForRepair`, `repair/RepairCoordinator`,
`RepairJob.createStandardSyncTasks`, `Validator`, `SymmetricRemoteSyncTask`,
`StreamingRepairTask`; trunk 6bbe85ef).

A session on the coordinating node takes its own metadata as it is when the repair starts:
- **Ranges**: the given sub-range, which must lie inside one range the node replicates ("...is
  not fully contained in one; this would lead to imprecise repair" / "Nothing to repair for ...
  - aborting" otherwise), or every range it replicates. A range with fewer than two replicas is
  left alone (RF < 2).
- **Participants**: the range's read replicas in that metadata, the coordinator included;
  pending (write-only) replicas take no part. Repair ignores TCM: no epoch is carried or
  checked, and the participants are not looked at again if the placement changes meanwhile.
  A participant the coordinator's failure detector sees down fails the whole session
  ("Endpoint not alive: X"), as an unforced repair does.
- **Validation**: each participant answers with its cells in its ranges, as of receipt.
- **Sync**: for every pair of participants of a range, every key whose cells differ is streamed
  both ways (each side sends its *current* cell); the receiver keeps the newest (last write
  wins), like any write. The session completes when every sync completed; it fails when a
  participant does not answer within `repair_timeout`.
Merkle trees are not built: a tree only decides which token sub-ranges are streamed, a differing
leaf is streamed whole both ways, and with last write wins re-sending an equal cell changes
nothing, so comparing cells per key (a tree with one key per leaf, Cassandra's finest
resolution) ends in the same state — deterministically, and naming the keys that moved. Only
full repair: our storage has no repaired/unrepaired split (an incremental repair of data never
marked repaired is a full one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from impl.data.partitioner import token as token_of
from impl.node.storage import in_range
from impl.sync_messages import (
    RepairRows,
    RepairSync,
    RepairSyncComplete,
    ValidationRequest,
    ValidationResponse,
)
from observed.protocol import Event, RepairSessionDone, RepairSessionStart, SyncTask
from spec.tokens import Range

if TYPE_CHECKING:
    from impl.node.host import Host

Ranges = tuple[tuple[int, int], ...]


def read_ranges(meta: Any, keyspace: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """(left, right, read replicas) of every range of the keyspace's placement."""
    key = meta.keyspaces[keyspace].replication.key
    return [(left, right, tuple(r)) for left, right, r, _ in meta.placements[key].ranges()]


def repair_plan(meta: Any, keyspace: str, is_up: Callable[[str], bool]) -> list[tuple[str, Ranges]]:
    """Who repairs what when the whole keyspace is repaired: each range by its lowest-id live
    read replica (what `nodetool repair -pr` on every node covers: the ring once)."""
    if keyspace not in meta.keyspaces:
        return []
    out: dict[str, list[tuple[int, int]]] = {}
    for left, right, reads in read_ranges(meta, keyspace):
        live = sorted(r for r in reads if is_up(r))
        if live:
            out.setdefault(live[0], []).append((left, right))
    return [(node, tuple(ranges)) for node, ranges in sorted(out.items())]


class _Session:
    def __init__(self, sid: int, keyspace: str, groups: dict[tuple[int, int], tuple[str, ...]]) -> None:
        self.id = sid
        self.keyspace = keyspace
        self.groups = groups  # range -> participants
        self.cells: dict[str, dict[str, tuple[int, int]]] = {}  # participant -> key -> cell
        self.syncs: set[tuple[str, str]] = set()
        self.timer: object = None
        self.syncing = False


class RepairService:
    def __init__(self, node: Host) -> None:
        self._node = node
        self._sessions: dict[int, _Session] = {}

    @property
    def busy(self) -> bool:
        return bool(self._sessions)

    def _emit(self, kind: type[Event], **fields: Any) -> None:
        self._node.world.protocol.emit(kind, coord=self._node.id, **fields)

    # --- the coordinating side ---

    def start(self, keyspace: str, sub_range: tuple[int, int] | None, *, ranges: Ranges = ()) -> None:
        node = self._node
        meta = node.log.metadata
        node.counters["repairs"] += 1
        if keyspace not in meta.keyspaces:
            self._failed(keyspace, f"unknown keyspace {keyspace}")
            return
        mine = [(lo, hi, reads) for lo, hi, reads in read_ranges(meta, keyspace) if node.id in reads]
        if sub_range is not None:
            wanted = Range(*sub_range)
            holder = [(lo, hi, reads) for lo, hi, reads in mine if Range(lo, hi).contains(wanted)]
            if not holder:
                touching = any(Range(lo, hi).intersects(wanted) for lo, hi, _ in mine)
                self._failed(keyspace, (f"Requested range {sub_range} intersects a local range but is not "
                                        "fully contained in one") if touching else
                             f"Nothing to repair for {sub_range} in {keyspace} - aborting")
                return
            groups = {sub_range: holder[0][2]}
        else:
            chosen = set(ranges)
            groups = {(lo, hi): reads for lo, hi, reads in mine if not chosen or (lo, hi) in chosen}
        groups = {r: p for r, p in groups.items() if len(p) >= 2}
        if not groups:
            self._emit(RepairSessionDone, session=0, keyspace=keyspace, outcome="completed")
            return
        for participants in groups.values():
            down = [p for p in participants if not node.failure_detector.is_alive(p)]
            if down:
                self._failed(keyspace, f"Endpoint not alive: {down[0]}")
                return
        session = _Session(node.next_request_id(), keyspace, groups)
        self._sessions[session.id] = session
        self._emit(RepairSessionStart, session=session.id, keyspace=keyspace, ranges=tuple(sorted(groups)),
                   participants=tuple(groups[r] for r in sorted(groups)), epoch=node.log.applied)
        session.timer = node.timer(node.settings.repair_timeout_ns, self._timeout, session.id)
        for p in sorted({p for ps in groups.values() for p in ps}):
            mine_ranges = tuple(r for r in sorted(groups) if p in groups[r])
            node.send(p, ValidationRequest(sender=node.id, epoch=node.log.applied, session=session.id,
                                           keyspace=keyspace, ranges=mine_ranges))

    def _failed(self, keyspace: str, why: str, session: int = 0) -> None:
        self._node.counters["repairs_failed"] += 1
        self._node.trace.event("repair", self._node.id, "-", f"failed: {why}")
        self._emit(RepairSessionDone, session=session, keyspace=keyspace, outcome="failed: " + why)

    def _timeout(self, sid: int) -> None:
        session = self._sessions.pop(sid, None)
        if session is not None:
            self._failed(session.keyspace, "timeout", session.id)

    def on_validation_response(self, msg: ValidationResponse) -> None:
        session = self._sessions.get(msg.session)
        if session is None or session.syncing or msg.sender in session.cells:
            return
        session.cells[msg.sender] = {key: (ts, value) for key, ts, value in msg.rows}
        participants = {p for ps in session.groups.values() for p in ps}
        if participants <= set(session.cells):
            self._sync(session)

    def _sync(self, session: _Session) -> None:
        """RepairJob.createStandardSyncTasks: every pair of a range, both directions."""
        node = self._node
        session.syncing = True
        wanted: dict[tuple[str, str], set[str]] = {}
        for (lo, hi), participants in sorted(session.groups.items()):
            for i, p in enumerate(participants):
                for q in participants[i + 1:]:
                    a, b = session.cells[p], session.cells[q]
                    keys = {k for k in set(a) | set(b) if in_range(token_of(k), lo, hi)
                            and a.get(k) != b.get(k)}
                    if keys:
                        wanted.setdefault((p, q), set()).update(keys)
                        wanted.setdefault((q, p), set()).update(keys)
        for (src, dst), keys in sorted(wanted.items()):
            session.syncs.add((src, dst))
            node.counters["repair_syncs"] += 1
            self._emit(SyncTask, session=session.id, src=src, dst=dst, keyspace=session.keyspace,
                       keys=tuple(sorted(keys)))
            node.send(src, RepairSync(sender=node.id, epoch=node.log.applied, session=session.id,
                                      keyspace=session.keyspace, keys=tuple(sorted(keys)),
                                      destination=dst))
        self._maybe_done(session)

    def on_sync_complete(self, msg: RepairSyncComplete) -> None:
        session = self._sessions.get(msg.session)
        if session is None:
            return
        session.syncs.discard((msg.source, msg.sender))
        self._maybe_done(session)

    def _maybe_done(self, session: _Session) -> None:
        if session.syncing and not session.syncs:
            self._sessions.pop(session.id, None)
            self._node.cancel(session.timer)
            self._emit(RepairSessionDone, session=session.id, keyspace=session.keyspace, outcome="completed")

    # --- the participating side ---

    def on_validation_request(self, msg: ValidationRequest) -> None:
        node = self._node
        rows = tuple((key, ts, value) for (ks, key), (ts, value) in sorted(node.disk.data.items())
                     if ks == msg.keyspace and any(in_range(token_of(key), lo, hi) for lo, hi in msg.ranges))
        node.send(msg.sender, ValidationResponse(sender=node.id, epoch=node.log.applied,
                                                 session=msg.session, rows=rows))

    def on_repair_sync(self, msg: RepairSync) -> None:
        node = self._node
        rows = tuple((key, *node.disk.data[(msg.keyspace, key)]) for key in msg.keys
                     if (msg.keyspace, key) in node.disk.data)
        node.counters["repair_rows"] += len(rows)
        node.send(msg.destination, RepairRows(sender=node.id, epoch=node.log.applied,
                                              session=msg.session, keyspace=msg.keyspace, rows=rows,
                                              coordinator=msg.sender))

    def on_repair_rows(self, msg: RepairRows, store: Callable[[str, str, int, int, str], bool]) -> None:
        node = self._node
        for key, ts, value in msg.rows:
            store(msg.keyspace, key, ts, value, "repair")
        node.send(msg.coordinator, RepairSyncComplete(sender=node.id, epoch=node.log.applied,
                                                      session=msg.session, source=msg.sender))
