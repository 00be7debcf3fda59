"""A replica's side of the data path: mutations, reads and read repairs, with TCM's epoch checks.

Followed: Cassandra's `AbstractMutationVerbHandler.checkTokenOwnership` and
`ReadCommandVerbHandler` (TCM): every request carries the coordinator's epoch.
- A replica behind the coordinator catches up (the node's fetcher) before it answers; the
  request waits for the log to reach the coordinator's epoch (dropped if the node crashes, and
  the coordinator times out, as with a lost message).
- A node that is not in the token's write group (mutations) or read group (reads) of its own,
  caught-up metadata answers `InvalidRouting`.
- If that group last changed at an epoch after the coordinator's, the coordinator planned with
  an outdated group: `CoordinatorBehind`.
In gossip mode none of this happens: a replica stores and answers whatever it is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from impl import bugs
from impl.data import versioned
from impl.data.partitioner import token as token_of
from impl.messages import (
    COORDINATOR_BEHIND,
    INVALID_ROUTING,
    UNKNOWN_KEYSPACE,
    Message,
    Mutation,
    MutationAck,
    Read,
    ReadResponse,
    StreamComplete,
    StreamData,
    StreamRequest,
)
from impl.node.storage import ReplicaStorage

if TYPE_CHECKING:
    from impl.node.host import Host


WAIT = "wait"  # the request waits for the log to reach the coordinator's epoch


class Replica:
    def __init__(self, node: Host) -> None:
        self._node = node
        self.storage = ReplicaStorage(node.disk.data)
        self._waiting: list[Message] = []
        self._tokens: dict[str, int] = {}
        # the token's groups under the current metadata (cleared when the metadata changes)
        self._groups_of: object = None
        self._groups: dict[tuple[str, int, bool], frozenset[str]] = {}

    def token(self, key: str) -> int:
        t = self._tokens.get(key)
        if t is None:
            t = self._tokens[key] = token_of(key)
        return t

    # --- epoch checks ---

    def _check(self, msg: Mutation | Read, *, writes: bool) -> str | None:
        """None when this node may serve the request, else the error to answer. May park the
        request until the log reaches the coordinator's epoch (returns "wait")."""
        node = self._node
        if node.settings.mode == "gossip" or bugs.on(node.settings, "replica-skips-epoch-check"):
            return None
        if msg.epoch > node.log.applied:
            self._waiting.append(msg)
            node.fetcher.want(msg.epoch, msg.sender)
            return WAIT
        meta = node.log.metadata
        if msg.keyspace not in meta.keyspaces:
            return UNKNOWN_KEYSPACE
        key = (msg.keyspace, msg.token, writes)
        if self._groups_of is not meta:
            self._groups_of = meta
            self._groups = {}
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = frozenset(versioned.group(meta, msg.keyspace, msg.token,
                                                                  writes=writes) or ())
        if node.id not in group:
            node.counters["invalid_routing"] += 1
            return INVALID_ROUTING
        if node.disk.placement_epochs.last_modified(msg.keyspace, msg.token,
                                                     writes=writes) > msg.epoch \
                and not bugs.on(node.settings, "replica-ignores-last-modified"):
            node.counters["coordinator_behind"] += 1
            return COORDINATOR_BEHIND
        return None

    def on_log_advanced(self) -> None:
        if not self._waiting:
            return
        ready = [m for m in self._waiting if m.epoch <= self._node.log.applied]
        if ready:
            self._waiting = [m for m in self._waiting if m.epoch > self._node.log.applied]
            for m in ready:
                if isinstance(m, Mutation):
                    self.on_mutation(m)
                elif isinstance(m, Read):
                    self.on_read(m)

    # --- verbs ---

    def on_mutation(self, msg: Mutation) -> None:
        node = self._node
        error = self._check(msg, writes=True)
        if error == WAIT:
            return
        if error is None:
            self.storage.apply(msg.keyspace, msg.key, msg.timestamp, msg.value)
        node.send(msg.sender, MutationAck(sender=node.id, epoch=node.log.applied,
                                          request_id=msg.request_id, error=error or ""))

    def on_read(self, msg: Read) -> None:
        node = self._node
        error = self._check(msg, writes=False)
        if error == WAIT:
            return
        if error is not None:
            node.send(msg.sender, ReadResponse(sender=node.id, epoch=node.log.applied,
                                               request_id=msg.request_id, error=error))
            return
        cell = self.storage.read(msg.keyspace, msg.key)
        ts, value = cell if cell is not None else (-1, None)
        node.send(msg.sender, ReadResponse(sender=node.id, epoch=node.log.applied,
                                           request_id=msg.request_id, timestamp=ts, value=value))

    # --- streaming (the source and destination sides) ---

    def on_stream_request(self, msg: StreamRequest) -> None:
        node = self._node
        keys = {k for (ks, k) in node.disk.data if ks == msg.keyspace}
        rows = self.storage.rows_in(msg.keyspace, {k: self.token(k) for k in keys}, msg.ranges)
        node.send(msg.destination, StreamData(sender=node.id, epoch=node.log.applied,
                                              request_id=msg.request_id, keyspace=msg.keyspace,
                                              rows=tuple(rows), driver=msg.driver))

    def on_stream_data(self, msg: StreamData) -> None:
        node = self._node
        for key, ts, value in msg.rows:
            self.storage.apply(msg.keyspace, key, ts, value)
        node.send(msg.driver, StreamComplete(sender=node.id, epoch=node.log.applied,
                                             request_id=msg.request_id))
