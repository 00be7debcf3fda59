"""Event submission at a CMS member.

A commit request (entry id + transformation) joins the member's queue; the member runs one
`Proposal` at a time (impl/cms/paxos.py), so its own submissions never race each other, while
different members race through Paxos. Requests are deduplicated by entry id: one already in
the log is answered with its epoch (never proposed again), one already queued here gains a
waiter, one this member rejected before gets the same rejection (a duplicated copy of a
request must not get a second chance at a later epoch). Rejected transformations are answered with the reason and the epoch of the metadata
that rejected them; they are never logged. A member that is not (or no longer) in the CMS
forwards the request to a member it knows (at most twice), or else answers "not_cms" so the
submitter asks another.
"""

from __future__ import annotations

import json
from collections import deque
from typing import TYPE_CHECKING

from attrs import evolve

from impl.cms.paxos import Proposal
from impl.cms.request import Request
from impl.messages import Submit, SubmitResult

if TYPE_CHECKING:
    from impl.node.host import Host

MAX_FORWARDS = 2


class CmsService:
    def __init__(self, node: Host) -> None:
        self._node = node
        self._queue: deque[Request] = deque()
        self._by_id: dict[str, Request] = {}
        self.active: Proposal | None = None

    def on_submit(self, msg: Submit) -> None:
        node = self._node
        log = node.log
        committed = log.entry_ids.get(msg.entry_id)
        if committed is not None:
            self._reply(msg.origin, msg.entry_id, "committed", committed_epoch=committed)
            return
        rejected = node.disk.rejected.get(msg.entry_id)
        if rejected is not None:
            self._reply(msg.origin, msg.entry_id, "rejected", reason=rejected[0],
                        decided_epoch=rejected[1])
            return
        req = self._by_id.get(msg.entry_id)
        if req is not None:
            if msg.origin not in req.waiters:
                req.waiters.append(msg.origin)
            return
        if node.id not in node.executor.write_members(log.metadata):
            members = [m for m in node.executor.members(log.metadata) if m != node.id]
            if members and msg.hops < MAX_FORWARDS:
                # why forward: the submitter's view of the CMS was stale (or it picked us on
                # purpose); a node that knows the members passes the request on
                node.counters["forwards"] += 1
                node.send(members[node.decisions.randrange(f"forward {node.id}", len(members))], evolve(
                    msg, sender=node.id, epoch=log.applied, hops=msg.hops + 1))
                return
            self._reply(msg.origin, msg.entry_id, "not_cms", reason=f"{node.id} is not in the CMS")
            return
        kind = _kind_of(msg.transformation)
        req = Request(msg.entry_id, msg.transformation, kind, msg.origin)
        self._by_id[msg.entry_id] = req
        self._queue.append(req)
        self._kick()

    def _kick(self) -> None:
        if self.active is None and self._queue:
            req = self._queue.popleft()
            self.active = Proposal(self._node, req, self.finish)
            self.active.start()

    def finish(self, req: Request, outcome: str, *, committed_epoch: int, reason: str,
               decided_epoch: int) -> None:
        node = self._node
        if outcome == "rejected":
            node.disk.rejected[req.entry_id] = (reason, decided_epoch)
            node.counters["rejections"] += 1
            node.trace.event("reject", node.id, "-", f"{req.entry_id} @{decided_epoch} {reason}")
        for origin in req.waiters:
            self._reply(origin, req.entry_id, outcome, committed_epoch=committed_epoch,
                        reason=reason, decided_epoch=decided_epoch)
        self._by_id.pop(req.entry_id, None)
        self.active = None
        self._kick()

    def _reply(self, origin: str, entry_id: str, outcome: str, *, committed_epoch: int = -1,
               reason: str = "", decided_epoch: int = -1) -> None:
        node = self._node
        node.send(origin, SubmitResult(sender=node.id, epoch=node.log.applied, entry_id=entry_id,
                                       outcome=outcome, committed_epoch=committed_epoch,
                                       reason=reason, decided_epoch=decided_epoch))

    def on_log_advanced(self) -> None:
        if self.active is not None:
            self.active.on_log_advanced()

    @property
    def busy(self) -> bool:
        return self.active is not None or bool(self._queue)


def _kind_of(transformation: str) -> str:
    kind = json.loads(transformation).get("kind")
    return str(kind) if kind is not None else "?"
