"""A node's side of event submission: send the commit request to a CMS member, wait, retry.

Each submission gets an entry id `node:seq` (the sequence is persisted, so ids are never
reused after a restart). The request goes to a CMS member (the node itself when it is one);
without an answer within the submit timeout it is resent, with the same entry id, to another
member, so a retried submission can never commit twice (the CMS deduplicates entry ids). After
`max_submit_attempts` the outcome is unknown (`info`), as it is for requests in flight when
the node crashes, and for a rejection that answers a resent request (the first attempt may
still commit elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from impl import bugs
from impl.messages import Submit, SubmitResult

if TYPE_CHECKING:
    from impl.node.host import Host

Callback = Callable[[SubmitResult], None]


class Pending:
    __slots__ = ("entry_id", "transformation", "process", "attempts", "target", "timer",
                 "callback")

    def __init__(self, entry_id: str, transformation: str, process: int,
                 callback: Callback | None) -> None:
        self.entry_id = entry_id
        self.transformation = transformation
        self.process = process
        self.attempts = 0
        self.target = ""
        self.timer: object = None
        self.callback = callback


class Submitter:
    def __init__(self, node: Host) -> None:
        self._node = node
        self.pending: dict[str, Pending] = {}

    def submit(self, transformation: str, callback: Callback | None = None) -> str:
        node = self._node
        disk = node.disk
        entry_id = f"{node.id}:{disk.next_entry_seq}"
        disk.next_entry_seq += 1
        process = node.history.invoke_commit(node=node.id, entry_id=entry_id, transformation=transformation)
        p = Pending(entry_id, transformation, process, callback)
        self.pending[entry_id] = p
        self._send(p)
        return entry_id

    def _send(self, p: Pending) -> None:
        node = self._node
        p.attempts += 1
        if node.id in node.executor.write_members(node.log.metadata) and p.attempts == 1:
            p.target = node.id
        else:
            p.target = node.pick_cms_member(avoid=p.target)
        node.cancel(p.timer)
        p.timer = node.timer(node.settings.submit_timeout_ns, self._timeout, p.entry_id,
                             p.attempts)
        node.send(p.target, Submit(sender=node.id, epoch=node.log.applied, origin=node.id,
                                   entry_id=p.entry_id, transformation=p.transformation))

    def _timeout(self, entry_id: str, attempt: int) -> None:
        p = self.pending.get(entry_id)
        if p is None or p.attempts != attempt:
            return
        node = self._node
        if p.attempts >= node.settings.max_submit_attempts:
            del self.pending[entry_id]
            node.history.complete_commit(p.process, "info")
            return
        node.counters["submit_retries"] += 1
        if bugs.on(node.settings, "submit-retry-new-entry-id"):
            del self.pending[entry_id]
            p.entry_id = f"{node.id}:{node.disk.next_entry_seq}"
            node.disk.next_entry_seq += 1
            self.pending[p.entry_id] = p
            node.history.resent_as(p.process, p.entry_id)
        self._send(p)

    def on_result(self, msg: SubmitResult) -> None:
        p = self.pending.get(msg.entry_id)
        if p is None:
            return
        node = self._node
        if msg.outcome == "not_cms":
            # why the pause: no member may be known yet (before the CMS is initialized)
            node.counters["submit_retries"] += 1
            node.cancel(p.timer)
            p.timer = node.timer(node.settings.retry_backoff_max_ns, self._timeout,
                                 p.entry_id, p.attempts)
            return
        del self.pending[msg.entry_id]
        node.cancel(p.timer)
        if msg.outcome == "committed":
            node.history.complete_commit(p.process, "ok", epoch=msg.committed_epoch)
        elif p.attempts == 1:
            node.history.complete_commit(p.process, "fail", rejection=msg.reason, epoch=msg.decided_epoch)
        else:
            # why info: an earlier attempt may still be live at another CMS member, and it may
            # commit at a later epoch where the transformation is valid again; only a rejection
            # of the one and only attempt is definite
            node.counters["indefinite_rejections"] += 1
            node.history.complete_commit(p.process, "info", rejection=msg.reason, epoch=msg.decided_epoch)
        if p.callback is not None:
            p.callback(msg)

    def crash(self) -> None:
        """Requests in flight when the node crashes end as `info`: they may still commit."""
        node = self._node
        for p in self.pending.values():
            node.history.complete_commit(p.process, "info")
        self.pending.clear()
