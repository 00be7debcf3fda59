"""A replica's side of the data path: mutations, reads, read repairs and hints, with TCM's epoch
checks; the source and destination sides of streaming.

Followed (trunk 6bbe85ef):
- **Mutations and read repairs** (`db/AbstractMutationVerbHandler.checkTokenOwnership`; read
  repair's handler extends it). A coordinator ahead of this node is served at once when this
  node is in the token's write group of its own metadata (it catches up asynchronously: the
  node's `deliver` starts the fetch); when it is not in the group, it first catches up to the
  coordinator's epoch (blocking: the request waits for the log) and looks again. Not in the
  group: `InvalidRouting`. The group last changed (`lastModified`) at an epoch after the
  coordinator's: `CoordinatorBehind`.
- **Reads** (`db/ReadCommandVerbHandler.checkTokenOwnership`): only routing — this node must be in
  the token's read group (after a blocking catch-up to the coordinator's epoch when it is not),
  else `InvalidRouting`. Reads are not compared with the group's last modification: Cassandra
  has no such check for reads (its only read-side `CoordinatorBehindException` is about schema).
- **Hints** (`hints/HintVerbHandler`): applied when this node is a write replica of the token
  in its current metadata, with no epoch compared; otherwise hinted again to the token's
  current write replicas.
In gossip mode none of this happens: a replica stores and answers whatever it is sent.
Every decision is a `serve` event of the protocol trace; every cell that changes a `store`.
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
from impl.sync_messages import HintAck, HintBatch
from observed.protocol import Serve, Store, StreamServe
from spec import fixes

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

    def store(self, keyspace: str, key: str, timestamp: int, value: int, via: str) -> bool:
        """Apply a cell (last write wins); a `store` event when it changed what this node holds."""
        if not self.storage.apply(keyspace, key, timestamp, value):
            return False
        self._node.world.protocol.emit(Store, node=self._node.id, keyspace=keyspace, key=key, timestamp=timestamp,
                                       value=value, via=via)
        return True

    # --- epoch checks ---

    def _group(self, keyspace: str, token: int, writes: bool) -> frozenset[str]:
        meta = self._node.log.metadata
        key = (keyspace, token, writes)
        if self._groups_of is not meta:
            self._groups_of = meta
            self._groups = {}
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = frozenset(versioned.group(meta, keyspace, token,
                                                                  writes=writes) or ())
        return group

    def _check(self, msg: Mutation | Read, *, writes: bool) -> str | None:
        """None when this node may serve the request, else the error to answer. May park the
        request until the log reaches the coordinator's epoch (returns "wait")."""
        node = self._node
        if node.settings.mode == "gossip" or bugs.on(node.settings, "replica-skips-epoch-check"):
            return None
        meta = node.log.metadata
        if msg.keyspace not in meta.keyspaces:
            if msg.epoch > node.log.applied:
                return self._wait(msg)
            return UNKNOWN_KEYSPACE
        group_writes = writes and not bugs.on(node.settings, "fencing-mutation-checks-read-group")
        if node.id not in self._group(msg.keyspace, msg.token, group_writes):
            if msg.epoch > node.log.applied:
                return self._wait(msg)  # not a replica here: catch up blockingly, then look again
            node.counters["invalid_routing_" + ("write" if writes else "read")] += 1
            return INVALID_ROUTING
        if not writes and not fixes.on(node.settings.fixes, fixes.FENCE_READS_BY_LAST_MODIFIED):
            return None  # ReadCommandVerbHandler compares no lastModified (finding stale-coordinator-read)
        behind = 1 if bugs.on(node.settings, "fencing-accepts-one-behind") else 0
        if node.disk.placement_epochs.last_modified(msg.keyspace, msg.token,
                                                     writes=group_writes) > msg.epoch + behind \
                and not bugs.on(node.settings, "replica-ignores-last-modified"):
            node.counters["coordinator_behind_" + ("write" if writes else "read")] += 1
            return COORDINATOR_BEHIND
        return None

    def _wait(self, msg: Mutation | Read) -> str:
        self._waiting.append(msg)
        self._node.fetcher.want(msg.epoch, msg.sender)
        return WAIT

    def _served(self, msg: Mutation | Read, verb: str, answer: str) -> None:
        node = self._node
        if answer == "ok" and msg.epoch > node.log.applied:
            node.counters["served_behind"] += 1  # in the group: served at once, caught up async
        node.world.protocol.emit(Serve, replica=node.id, verb=verb, sender=msg.sender, sender_epoch=msg.epoch,
                                 replica_epoch=node.log.applied, keyspace=msg.keyspace, token=msg.token,
                                 answer=answer, rid=msg.request_id)

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
        verb = "read_repair" if msg.repair else "mutation"
        self._served(msg, verb, error or "ok")
        if error is None:
            self.store(msg.keyspace, msg.key, msg.timestamp, msg.value, verb)
        node.send(msg.sender, MutationAck(sender=node.id, epoch=node.log.applied,
                                          request_id=msg.request_id, error=error or ""))

    def on_read(self, msg: Read) -> None:
        node = self._node
        error = self._check(msg, writes=False)
        if error == WAIT:
            return
        self._served(msg, "read", error or "ok")
        if error is not None:
            node.send(msg.sender, ReadResponse(sender=node.id, epoch=node.log.applied,
                                               request_id=msg.request_id, error=error))
            return
        cell = self.storage.read(msg.keyspace, msg.key)
        ts, value = cell if cell is not None else (-1, None)
        node.send(msg.sender, ReadResponse(sender=node.id, epoch=node.log.applied,
                                           request_id=msg.request_id, timestamp=ts, value=value))

    def on_hint(self, msg: HintBatch) -> None:
        """HintVerbHandler: apply each hint if this node is a write replica of its token now,
        else hint it again to the token's current write replicas; no epoch is compared."""
        node = self._node
        meta = node.log.metadata
        protocol = node.world.protocol
        for _, ks, key, token, ts, value in msg.hints:
            replicas = meta.write_replicas(ks, token) if ks in meta.keyspaces else ()
            if node.id in replicas or bugs.on(node.settings, "hint-replay-ignores-ownership"):
                protocol.emit(Serve, replica=node.id, verb="hint", sender=msg.sender, sender_epoch=msg.epoch,
                              replica_epoch=node.log.applied, keyspace=ks, token=token, answer="ok", rid=0)
                self.store(ks, key, ts, value, "hint")
                continue
            protocol.emit(Serve, replica=node.id, verb="hint", sender=msg.sender, sender_epoch=msg.epoch,
                          replica_epoch=node.log.applied, keyspace=ks, token=token, answer="rehinted", rid=0)
            for r in replicas:
                node.hints.store(r, ks, key, token, ts, value, "rehint")
        node.send(msg.sender, HintAck(sender=node.id, epoch=node.log.applied,
                                      ids=tuple(h[0] for h in msg.hints)))

    # --- streaming (the source and destination sides) ---

    def on_stream_request(self, msg: StreamRequest) -> None:
        node = self._node
        keys = {k for (ks, k) in node.disk.data if ks == msg.keyspace}
        rows = self.storage.rows_in(msg.keyspace, {k: self.token(k) for k in keys}, msg.ranges)
        node.world.protocol.emit(StreamServe, source=node.id, destination=msg.destination, driver=msg.driver,
                                 keyspace=msg.keyspace, ranges=msg.ranges, rows=tuple(rows))
        node.send(msg.destination, StreamData(sender=node.id, epoch=node.log.applied,
                                              request_id=msg.request_id, keyspace=msg.keyspace,
                                              rows=tuple(rows), driver=msg.driver))

    def on_stream_data(self, msg: StreamData) -> None:
        node = self._node
        for key, ts, value in msg.rows:
            self.store(msg.keyspace, key, ts, value, "stream")
        node.send(msg.driver, StreamComplete(sender=node.id, epoch=node.log.applied,
                                             request_id=msg.request_id))
