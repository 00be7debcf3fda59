"""PeerLogFetcher: fetch the log entries a node is missing, one fetch per epoch.

A node learns of a higher epoch from any message but streaming (each carries its sender's epoch)
or from an entry that arrives ahead of a gap. `want(epoch, peer)` starts a fetch from that
peer unless a fetch already in flight covers the epoch (however many messages reveal it, one
fetch asks for it). A fetch that times out, or whose answer did not reach the wanted epoch, is
retried against a CMS member (the CMS "may be able to provide a more up to date view of the
log"), with a bounded number of attempts: a later message revealing the epoch restarts it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from impl import bugs
from impl.messages import FetchLog, LogEntries

if TYPE_CHECKING:
    from impl.node.host import Host

MAX_ATTEMPTS = 6


class PeerLogFetcher:
    def __init__(self, node: Host) -> None:
        self._node = node
        self._next_request = 1
        # request id -> (peer, the epoch that request is expected to reach, timeout event)
        self._inflight: dict[int, tuple[str, int, object]] = {}
        self.covered = 0  # highest epoch an in-flight fetch is expected to deliver
        self.wanted = 0  # highest epoch known to exist
        self._attempts = 0
        self._trusted = 0  # mutant catchup-trusts-lagging-peer: an epoch taken as fetched

    def want(self, epoch: int, peer: str) -> None:
        node = self._node
        if epoch > self.wanted:
            self.wanted = epoch
        if epoch <= node.log.applied:
            return
        if epoch <= max(self.covered, self._trusted):
            node.counters["fetches_deduplicated"] += 1
            return
        self._attempts = 0
        self._start(peer, epoch)

    def _start(self, peer: str, target: int) -> None:
        node = self._node
        rid = self._next_request
        self._next_request += 1
        node.counters["fetches"] += 1
        timer = node.timer(node.settings.fetch_timeout_ns, self._timeout, rid)
        self._inflight[rid] = (peer, target, timer)
        self.covered = max(self.covered, target)
        node.send(peer, FetchLog(sender=node.id, epoch=node.log.applied, request_id=rid,
                                 after=node.log.applied))

    def _recompute_covered(self) -> None:
        self.covered = max((t for _, t, _ in self._inflight.values()), default=0)

    def _timeout(self, rid: int) -> None:
        entry = self._inflight.pop(rid, None)
        if entry is None:
            return
        self._recompute_covered()
        self._node.counters["fetch_timeouts"] += 1
        self._retry(avoid=entry[0])

    def _retry(self, avoid: str) -> None:
        node = self._node
        if node.log.applied >= self.wanted or self.wanted <= self.covered:
            return
        self._attempts += 1
        if self._attempts > MAX_ATTEMPTS:
            self._attempts = 0
            return
        node.counters["fetch_retries"] += 1
        self._start(node.pick_cms_member(avoid=avoid), self.wanted)

    def on_entries(self, msg: LogEntries, apply: Callable[[LogEntries], None]) -> None:
        entry = self._inflight.pop(msg.request_id, None)
        if entry is not None:
            self._node.cancel(entry[2])
            self._recompute_covered()
        apply(msg)
        if entry is not None and bugs.on(self._node.settings, "catchup-trusts-lagging-peer"):
            # the peer's log taken as complete up to the epoch asked for: that epoch counts as
            # fetched, so a later message revealing it (or anything below) starts no fetch
            self._trusted = max(self._trusted, entry[1])
            self.wanted = self._node.log.applied
        if entry is not None and self._node.log.applied < self.wanted:
            self._retry(avoid=msg.sender)
        elif self._node.log.applied >= self.wanted:
            self._attempts = 0

    def reset(self) -> None:
        for _, _, timer in self._inflight.values():
            self._node.cancel(timer)
        self._inflight.clear()
        self.covered = 0
