"""Hinted handoff: a coordinator keeps a write for a replica that did not get it and replays it
when it sees that replica up again (Cassandra's `StorageProxy.shouldHint/submitHint`,
`hints/HintsService`, `HintsDispatchTrigger`, `HintsDispatchExecutor`, `HintsDispatcher`, and on
the receiving side `hints/HintVerbHandler`; trunk 6bbe85ef).

- **Storing** (`store`). A hint is kept on the coordinator's disk (Cassandra's hints are files)
  for a write replica that its failure detector saw down when the write was planned (the write
  is then not sent to it), that answered with a failure (a `CoordinatorBehind` or
  `InvalidRouting` refusal included) or did not answer within `write_timeout`
  (`AbstractWriteResponseHandler.onFailure`, run on expiry too), and for every write replica when
  a write at ANY timed out. `shouldHint` refuses: hints disabled, the replica is this node, the
  replica is not in the directory ("not part of ring"), or its hint window is closed: it has
  been down (convicted by this node's failure detector) longer than `max_hint_window`, or, with
  `hint_window_persistent`, the oldest hint stored for it is older than that.
- **Replaying** (`dispatch`). Every `hint_dispatch_interval` (Cassandra: 10 s) each node sends,
  to every target its failure detector sees UP, all the hints it holds for it as one page
  (`HintsDispatchTrigger`: stores whose target `isLive`); the target's answer deletes the hints of
  that page; an unanswered page is sent again at a later tick (the same cells again: last write
  wins makes a repeat harmless). Deviation: Cassandra closes an open hints file first and
  delivers it at the next tick; here a hint is due at the first tick after it was stored.
- **Receiving** (`Replica.on_hint`, HintVerbHandler): a hint whose token this node is a write
  replica of in its current metadata is applied — no epoch is compared (hint replay is outside
  the data path's fencing); otherwise it is hinted again to every current write replica of the
  token (`HintsService.writeForAllReplicas`, CASSANDRA-5902). Hints for a node that left the
  directory are never dispatched (no address) and never deleted (`HintsService.excise` has no
  caller at 6bbe85ef).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from attrs import frozen

from impl.sync_messages import HintAck, HintBatch
from observed.protocol import HintDeliver, HintStore

if TYPE_CHECKING:
    from impl.node.host import Host


@frozen(kw_only=True)
class Hint:
    id: int
    """Per holder, increasing: what an acknowledged page deletes."""
    created: int
    keyspace: str
    key: str
    token: int
    timestamp: int
    value: int


REASONS = ("down", "timeout", "refused", "any", "rehint")


class HintsService:
    def __init__(self, node: Host) -> None:
        self._node = node
        self._in_flight: dict[str, tuple[int, ...]] = {}  # target -> ids of the page sent

    @property
    def _store(self) -> dict[str, list[Hint]]:
        hints: dict[str, list[Hint]] = self._node.disk.hints
        return hints

    def should_hint(self, target: str) -> bool:
        """StorageProxy.shouldHint (with the persistent window)."""
        node = self._node
        s = node.settings
        if not s.hinted_handoff_enabled or target == node.id:
            return False
        if target not in node.log.metadata.directory:
            return False
        now = node.world.queue.clock.now
        expired = node.failure_detector.downtime(target) > s.max_hint_window_ns
        stored = self._store.get(target)
        if not expired and s.hint_window_persistent and stored:
            expired = now - s.max_hint_window_ns > stored[0].created
        if expired:
            node.counters["hints_past_window"] += 1
            return False
        return True

    def store(self, target: str, keyspace: str, key: str, token: int, timestamp: int, value: int,
              reason: str) -> bool:
        """Keep a hint for `target` if `should_hint`; True when kept."""
        node = self._node
        if not self.should_hint(target):
            return False
        disk = node.disk
        disk.next_hint_id += 1
        hint = Hint(id=disk.next_hint_id, created=node.world.queue.clock.now, keyspace=keyspace,
                    key=key, token=token, timestamp=timestamp, value=value)
        self._store.setdefault(target, []).append(hint)
        node.counters["hints_stored_" + reason] += 1
        node.world.protocol.emit(HintStore, coord=node.id, target=target, keyspace=keyspace, key=key,
                                 timestamp=timestamp, value=value, reason=reason)
        return True

    # --- replay ---

    def dispatch(self) -> None:
        """One HintsDispatchTrigger run: a page to every target seen UP."""
        if not self._store:
            return
        node = self._node
        for target in sorted(self._store):
            hints = self._store[target]
            if not hints or not node.failure_detector.is_alive(target) \
                    or target not in node.log.metadata.directory:
                continue
            page = tuple(hints)
            self._in_flight[target] = tuple(h.id for h in page)
            node.send(target, HintBatch(sender=node.id, epoch=node.log.applied, hints=tuple(
                (h.id, h.keyspace, h.key, h.token, h.timestamp, h.value) for h in page)))

    def on_ack(self, msg: HintAck) -> None:
        node = self._node
        done = set(msg.ids)
        kept = []
        for h in self._store.get(msg.sender, []):
            if h.id in done:
                node.counters["hints_replayed"] += 1
                node.world.protocol.emit(HintDeliver, holder=node.id, target=msg.sender, keyspace=h.keyspace,
                                         key=h.key, timestamp=h.timestamp, value=h.value)
            else:
                kept.append(h)
        if kept:
            self._store[msg.sender] = kept
        else:
            self._store.pop(msg.sender, None)
        self._in_flight.pop(msg.sender, None)

    def deliverable(self, reachable: Callable[[str, str], bool]) -> bool:
        """Whether this node holds a hint it could still deliver (its target in its directory,
        up and reachable): a run is not quiet until those are replayed."""
        if not self._store:
            return False
        node = self._node
        directory = node.log.metadata.directory
        return any(hints and target in directory and reachable(node.id, target)
                   for target, hints in self._store.items())
