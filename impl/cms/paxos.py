"""Paxos for one log position at a time (the slot is the epoch being decided).

Acceptor (every CMS member, state persisted per slot on the node's Disk):
- `on_prepare(b)`: if the slot is committed here, answer with the committed entry; else if
  `b` is above the promised ballot, promise it and report the highest accepted (ballot,
  value); else refuse (Nack with the promised ballot).
- `on_accept(b, v)`: accept unless a higher ballot was promised (or the slot is committed).
- `on_commit`: the entry goes to the node's log like any pushed entry.

Proposer (`Proposal`, one per CMS member at a time, driven by impl/cms/service.py):
prepare at slot = applied + 1 with a fresh ballot to the members of the metadata at slot - 1;
with promises from a quorum of the read members, propose the highest-ballot value already
accepted there (it may have been chosen) or else its own entry, validated against the
metadata at slot - 1; with accepts from a quorum of the write members, the value is chosen:
commit it to everyone. Losing the slot to another value means catching up, re-validating and
retrying at the next slot. Membership can change by one member per epoch, so quorums of
consecutive configurations intersect (the CEP's reconfiguration argument).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from impl import bugs
from impl.engine import rejection_reason
from impl.entry import Entry
from impl.messages import (
    NO_BALLOT,
    Accept,
    Accepted,
    Ballot,
    Commit,
    Nack,
    Prepare,
    Promise,
)

if TYPE_CHECKING:
    from impl.cms.request import Request
    from impl.node.host import Host

Finish = Callable[..., None]
"""`CmsService.finish(request, outcome, *, committed_epoch, reason, decided_epoch)`."""


def quorum(members: tuple[str, ...]) -> int:
    return len(members) // 2 + 1


class Acceptor:
    def __init__(self, node: Host) -> None:
        self._node = node

    def on_prepare(self, msg: Prepare) -> None:
        node = self._node
        disk = node.disk
        disk.max_round = max(disk.max_round, msg.ballot[0])
        committed = node.log.get(msg.slot)
        # why `decided`: a slot at or below the applied epoch is committed even when its entry
        # is no longer held (replaced by a snapshot) and its Paxos state was forgotten
        decided = committed is not None or msg.slot <= node.log.applied
        promised, acc_b, acc_v = disk.paxos.get(msg.slot, (NO_BALLOT, NO_BALLOT, None))
        if not decided and msg.ballot > promised:
            disk.paxos[msg.slot] = (msg.ballot, acc_b, acc_v)
            node.send(msg.sender, Promise(sender=node.id, epoch=node.log.applied, slot=msg.slot,
                                          ballot=msg.ballot, accepted_ballot=acc_b,
                                          accepted=acc_v, committed=None))
        else:
            node.send(msg.sender, Nack(sender=node.id, epoch=node.log.applied, slot=msg.slot,
                                       ballot=msg.ballot, promised=promised, committed=committed))

    def on_accept(self, msg: Accept) -> None:
        node = self._node
        disk = node.disk
        disk.max_round = max(disk.max_round, msg.ballot[0])
        committed = node.log.get(msg.slot)
        decided = committed is not None or msg.slot <= node.log.applied
        promised, _, _ = disk.paxos.get(msg.slot, (NO_BALLOT, NO_BALLOT, None))
        if not decided and msg.ballot >= promised:
            disk.paxos[msg.slot] = (msg.ballot, msg.ballot, msg.value)
            node.send(msg.sender, Accepted(sender=node.id, epoch=node.log.applied,
                                           slot=msg.slot, ballot=msg.ballot))
        else:
            node.send(msg.sender, Nack(sender=node.id, epoch=node.log.applied, slot=msg.slot,
                                       ballot=msg.ballot, promised=promised, committed=committed))

    def on_commit(self, msg: Commit) -> None:
        """A chosen value: it goes to the log like any pushed entry (applied in epoch order;
        its Paxos state is forgotten once applied)."""
        self._node.log.offer(msg.entry)

    def forget_upto(self, epoch: int) -> None:
        """Paxos state of committed slots is no longer needed (the log holds the outcome)."""
        paxos = self._node.disk.paxos
        if paxos:
            for slot in [s for s in paxos if s <= epoch]:
                del paxos[slot]


PREPARING, ACCEPTING, CATCHING_UP, BACKING_OFF, DONE = range(5)


class Proposal:
    """One submission's way into the log, slot after slot, until committed or rejected."""

    def __init__(self, node: Host, request: Request, finish: Finish) -> None:
        self.node = node
        self.request = request
        self._on_finish = finish
        self.phase = DONE
        self.slot = 0
        self.ballot: Ballot = NO_BALLOT
        self.readers: tuple[str, ...] = ()
        self.writers: tuple[str, ...] = ()
        self.promises: dict[str, Promise] = {}
        self.accepts: set[str] = set()
        self.value: Entry | None = None
        self.timer: object = None
        self.attempts = 0
        self.catchup_target = 0

    # --- driving ---

    def start(self) -> None:
        node = self.node
        log = node.log
        req = self.request
        if req.entry_id in log.entry_ids:
            # why: a retried submission whose entry already committed is answered, not re-proposed
            self._finish_committed(log.entry_ids[req.entry_id])
            return
        meta = log.metadata
        self.readers = node.executor.members(meta)
        self.writers = node.executor.write_members(meta)
        if node.id not in self.writers:
            if bugs.on(node.settings, "cms-commit-fails-after-leaving-cms") and req.waiters[:1] == [node.id]:
                # CASSANDRA-19872: AbstractLocalProcessor.commit threw "Node is not a member of
                # CMS anymore" for a node's own commit; the fix retries it at a current member
                self._finish("rejected", reason="Node is not a member of CMS anymore",
                             decided_epoch=log.applied)
                return
            self._finish("not_cms", reason=f"{node.id} is not a CMS member")
            return
        self.slot = log.applied + 1
        node.disk.max_round += 1
        self.ballot = (node.disk.max_round, node.index)
        self.promises = {}
        self.accepts = set()
        self.value = None
        self.phase = PREPARING
        self._arm(node.settings.paxos_timeout_ns)
        msg = Prepare(sender=node.id, epoch=log.applied, slot=self.slot, ballot=self.ballot)
        for member in sorted(set(self.readers) | set(self.writers)):
            node.send(member, msg)

    def _arm(self, delay: int) -> None:
        self.node.cancel(self.timer)
        self.timer = self.node.timer(delay, self._on_timer, self.ballot, self.phase)

    def _on_timer(self, ballot: Ballot, phase: int) -> None:
        if ballot != self.ballot or phase != self.phase or self.phase == DONE:
            return
        if phase in (BACKING_OFF, CATCHING_UP):
            self.start()
            return
        self.node.counters["paxos_timeouts"] += 1
        self._retry()

    def _retry(self) -> None:
        """Back off (randomized, growing, capped) and start again at the then-current slot."""
        node = self.node
        node.counters["retries"] += 1
        self.attempts += 1
        s = node.settings
        cap = min(s.retry_backoff_max_ns, s.retry_backoff_ns * (2 ** min(self.attempts, 10)))
        self.phase = BACKING_OFF
        self._arm(node.decisions.randint(f"backoff {node.id}", s.retry_backoff_ns // 2,
                                         max(cap, s.retry_backoff_ns)))

    def _lost_slot(self, learned_upto: int) -> None:
        """Another value won our slot: catch up to what the acceptor knows, then retry."""
        node = self.node
        node.counters["retries"] += 1
        if node.log.applied >= learned_upto:
            self.start()
            return
        self.phase = CATCHING_UP
        self.catchup_target = learned_upto
        self._arm(node.settings.fetch_timeout_ns)

    def on_log_advanced(self) -> None:
        if self.phase == CATCHING_UP and self.node.log.applied >= self.catchup_target:
            self.start()

    # --- Paxos messages ---

    def on_promise(self, msg: Promise) -> None:
        if self.phase != PREPARING or msg.slot != self.slot or msg.ballot != self.ballot:
            return
        self.promises[msg.sender] = msg
        readers = self.readers
        got = sum(1 for r in readers if r in self.promises)
        node = self.node
        if got < quorum(readers) and not bugs.on(node.settings, "paxos-accept-without-promise-quorum"):
            return
        if node.log.applied >= self.slot:
            # why: the slot was committed here meanwhile (a pushed entry); the metadata we would
            # validate against is no longer the one at slot - 1
            self._lost_slot(node.log.applied)
            return
        # phase 2: a value already accepted by some member of the quorum may have been chosen
        best: Promise | None = None
        for r in readers:
            p = self.promises.get(r)
            if p is not None and p.accepted is not None and (
                best is None or p.accepted_ballot > best.accepted_ballot
            ):
                best = p
        if best is not None and best.accepted is not None \
                and not bugs.on(node.settings, "paxos-ignores-accepted-value"):
            self.value = best.accepted
            node.counters["paxos_recoveries"] += 1
        else:
            req = self.request
            committed = node.log.entry_ids.get(req.entry_id)
            if committed is not None:
                # why: dedup holds against every entry committed before this slot (a resent
                # request must never be chosen twice)
                self._finish_committed(committed)
                return
            meta = node.log.metadata
            result = node.executor.validate(meta, req.transformation)
            reason = rejection_reason(result)
            if reason is not None:
                self._finish("rejected", reason=reason, decided_epoch=node.log.applied)
                return
            self.value = Entry(epoch=self.slot, entry_id=req.entry_id, kind=req.kind,
                               transformation=req.transformation)
        self.phase = ACCEPTING
        self._arm(node.settings.paxos_timeout_ns)
        acc = Accept(sender=node.id, epoch=node.log.applied, slot=self.slot, ballot=self.ballot,
                     value=self.value)
        for member in sorted(set(self.readers) | set(self.writers)):
            node.send(member, acc)

    def on_accepted(self, msg: Accepted) -> None:
        if self.phase != ACCEPTING or msg.slot != self.slot or msg.ballot != self.ballot:
            return
        self.accepts.add(msg.sender)
        writers = self.writers
        if sum(1 for w in writers if w in self.accepts) < quorum(writers):
            return
        value = self.value
        assert value is not None
        node = self.node
        node.cancel(self.timer)
        node.trace.event("commit", node.id, "-", value.brief())
        node.commit_and_push(value)
        if value.entry_id == self.request.entry_id:
            self._finish_committed(value.epoch)
        else:
            node.counters["retries"] += 1
            self.start()

    def on_nack(self, msg: Nack) -> None:
        if self.phase not in (PREPARING, ACCEPTING) or msg.slot != self.slot:
            return
        if msg.ballot != self.ballot:
            return
        node = self.node
        if msg.committed is not None:
            node.log.offer(msg.committed)
            if msg.epoch > node.log.applied:
                node.fetcher.want(msg.epoch, msg.sender)
            self._lost_slot(max(msg.epoch, msg.committed.epoch))
            return
        node.disk.max_round = max(node.disk.max_round, msg.promised[0])
        self._retry()

    # --- outcomes ---

    def _finish_committed(self, epoch: int) -> None:
        self._finish("committed", committed_epoch=epoch)

    def _finish(self, outcome: str, *, committed_epoch: int = -1, reason: str = "",
                decided_epoch: int = -1) -> None:
        self.phase = DONE
        self.node.cancel(self.timer)
        self._on_finish(self.request, outcome, committed_epoch=committed_epoch,
                                 reason=reason, decided_epoch=decided_epoch)
