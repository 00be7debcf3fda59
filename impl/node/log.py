"""LocalLog: a node's copy of the metadata log, applied strictly in epoch order.

Entries that arrive early (epoch > applied + 1) wait in an in-memory buffer until the gap is
filled. What is applied is persisted on the node's `Disk` (entries, snapshots, the base it
started from) and survives a crash; the buffer and the current metadata are memory and are
rebuilt on restart by replaying from the newest snapshot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from impl import bugs, snapshots
from impl.data.versioned import PlacementHistory
from impl.engine import Executor
from impl.entry import GENESIS_CHAIN, Entry, Snapshot, chain_hash
from impl.metadata.keys import CORE_METADATA, diff_keys


class Disk:
    """Everything a node persists. The crash handler keeps this object and drops the rest."""

    def __init__(self, base: Snapshot, base_metadata: Any) -> None:
        self.base = base  # the point this log starts from (epoch 0, or an installed snapshot)
        self.base_metadata = base_metadata
        self.entries: dict[int, Entry] = {}
        self.chains: dict[int, str] = {}
        self.snapshots: list[Snapshot] = []
        # acceptor state per slot: (promised ballot, accepted ballot, accepted entry)
        self.paxos: dict[int, tuple[tuple[int, int], tuple[int, int], Entry | None]] = {}
        self.max_round = 0
        self.next_entry_seq = 1
        # entry id -> (reason, epoch) of requests this CMS member rejected: a duplicated or
        # delayed copy of the same request gets the same answer instead of a second chance
        self.rejected: dict[str, tuple[str, int]] = {}
        # the replica's data: (keyspace, key) -> (timestamp, value), last write wins
        self.data: dict[tuple[str, str], tuple[int, int]] = {}
        # the metadata at every placement change applied here (VersionedEndpoints)
        self.placement_epochs = PlacementHistory()
        # the topology operation this node drives, if any (survives a crash: resume)
        self.operation: Any = None
        self.next_request_id = 0
        # how many times the node started: its gossip heartbeat's generation
        self.generation = 0
        # hints this node keeps for other nodes (impl/node/hints.py): target -> hints in order
        self.hints: dict[str, Any] = {}
        self.next_hint_id = 0


ApplyHook = Callable[[Entry | None, Snapshot | None], None]


class LocalLog:
    def __init__(
        self,
        *,
        disk: Disk,
        executor: Executor,
        snapshot_interval: int,
        on_apply: ApplyHook,
        on_apply_failure: Callable[[Entry, str], None],
        mutants: frozenset[str] = frozenset(),
    ) -> None:
        self._mutants = mutants  # known-bug switches (impl/bugs.py) that act in the log
        self.disk = disk
        self._executor = executor
        self._interval = snapshot_interval
        self._on_apply = on_apply
        self.last_install: tuple[int, tuple[str, ...]] = (0, ())
        """(the epoch before, the metadata keys it reported modified) of the last snapshot install."""
        self._on_failure = on_apply_failure
        self.pending: dict[int, Entry] = {}
        self.entry_ids: dict[str, int] = {}
        self._recovering = True
        self._recover()

    def _recover(self) -> None:
        d = self.disk
        start: Snapshot = d.base
        metadata = d.base_metadata
        newest = d.snapshots[-1] if d.snapshots else None
        if newest is not None and newest.epoch > start.epoch:
            start = newest
            metadata = self._executor.engine.from_json(newest.metadata)
            self._executor.remember(newest.chain, metadata)
        self.applied = start.epoch
        self.chain = start.chain
        self.metadata = metadata
        # why the snapshot's ids too: an entry id committed before the snapshot is still
        # committed; forgetting it let a resent request commit a second time (sim 11002453)
        self.entry_ids = dict(start.entry_ids)
        self.entry_ids.update((e.entry_id, ep) for ep, e in d.entries.items())
        e = self.applied + 1
        while e in d.entries:
            self._apply(d.entries[e], persist=False)
            e += 1
        self._recovering = False

    # --- applying ---

    def offer(self, entry: Entry) -> bool:
        """Take a committed entry from anywhere; True if the applied epoch moved."""
        if entry.epoch <= self.applied:
            return False
        if entry.epoch > self.applied + 1:
            self.pending.setdefault(entry.epoch, entry)
            return False
        if bugs.on(self._mutants, "apply-failure-stalls") and entry.epoch % 10 == 0:
            # mutant: a (transient) failure applying this entry, retried forever
            self.pending.setdefault(entry.epoch, entry)
            return False
        self._apply(entry, persist=True)
        pending = self.pending
        while pending:
            nxt = pending.get(self.applied + 1)
            if nxt is None or (bugs.on(self._mutants, "apply-failure-stalls") and nxt.epoch % 10 == 0):
                break
            del pending[nxt.epoch]
            self._apply(nxt, persist=True)
        if pending:
            # why: anything at or below the applied epoch is now redundant
            for ep in [ep for ep in pending if ep <= self.applied]:
                del pending[ep]
        return True

    def _apply(self, entry: Entry, *, persist: bool) -> None:
        chain = chain_hash(self.chain, entry)
        metadata, failure = self._executor.apply(self.metadata, entry, chain)
        if failure is not None:
            self._on_failure(entry, failure)
        self.metadata = metadata
        self.applied = entry.epoch
        self.chain = chain
        self.entry_ids[entry.entry_id] = entry.epoch
        d = self.disk
        if persist:
            d.entries[entry.epoch] = entry
            d.chains[entry.epoch] = chain
            if snapshots.is_snapshot_epoch(entry.epoch, self._interval):
                d.snapshots.append(snapshots.take(metadata, entry.epoch, chain, self.entry_ids))
        if not self._recovering:
            self._on_apply(entry, None)

    def install(self, snap: Snapshot) -> bool:
        """Jump to a snapshot ahead of the applied epoch (a far-behind catch-up)."""
        if snap.epoch <= self.applied:
            return False
        d = self.disk
        metadata = self._executor.engine.from_json(snap.metadata)
        if bugs.on(self._mutants, "snapshot-install-stale"):
            metadata = self.metadata  # mutant: the snapshot's epoch taken, its content not
        else:
            self._executor.remember(snap.chain, metadata)
        # ForceSnapshot.execute's affected keys: MetadataKeys.diffKeys(prev, baseState) since
        # CASSANDRA-19128; before it, every core key whatever changed
        keys = (CORE_METADATA if bugs.on(self._mutants, "force-snapshot-reports-all-keys")
                else diff_keys(self.metadata, metadata))
        self.last_install = (self.applied, keys)
        d.base = snap
        d.base_metadata = metadata
        # why: entries below the snapshot are no longer needed to rebuild the metadata
        for ep in [ep for ep in d.entries if ep <= snap.epoch]:
            del d.entries[ep]
            d.chains.pop(ep, None)
        if not d.snapshots or d.snapshots[-1].epoch < snap.epoch:
            d.snapshots.append(snap)
        self.metadata = metadata
        self.applied = snap.epoch
        self.chain = snap.chain
        self.entry_ids.update(snap.entry_ids)
        self._on_apply(None, snap)
        pending = self.pending
        for ep in [ep for ep in pending if ep <= self.applied]:
            del pending[ep]
        nxt = pending.pop(self.applied + 1, None)
        if nxt is not None:
            self.offer(nxt)
        return True

    # --- serving ---

    def get(self, epoch: int) -> Entry | None:
        """The committed entry at `epoch` if this node knows it (applied or buffered)."""
        e = self.disk.entries.get(epoch)
        return e if e is not None else self.pending.get(epoch)

    def serve(self, after: int, *, snapshot_if_behind: int) -> tuple[Snapshot | None, tuple[Entry, ...]]:
        """What to send a node that has applied `after`: the entries after it, or, when it is
        more than `snapshot_if_behind` epochs behind (or asks for entries this node no longer
        holds), the newest snapshot plus the tail after that snapshot."""
        d = self.disk
        start = after
        snap: Snapshot | None = None
        if after < d.base.epoch or self.applied - after > snapshot_if_behind:
            snap = snapshots.newest_after(d.snapshots, after)
            if snap is not None:
                start = snap.epoch
            elif after < d.base.epoch:
                return None, ()
        entries = tuple(d.entries[e] for e in range(start + 1, self.applied + 1))
        return snap, entries

    @property
    def first_held(self) -> int:
        return self.disk.base.epoch + 1


def initial_disk(metadata: Any) -> Disk:
    """A fresh node's disk: its log starts at the initial metadata (epoch 0). The chain starts
    from the metadata's digest, so logs grown from different starts never look equal."""
    genesis = hashlib.blake2b(f"{GENESIS_CHAIN}|{metadata.digest()}".encode(), digest_size=16)
    return Disk(Snapshot(epoch=metadata.epoch, chain=genesis.hexdigest(), metadata=None), metadata)
