"""Trace invariant `fencing`: a replica serves only what TCM's data-path checks allow
(Cassandra's `AbstractMutationVerbHandler.checkTokenOwnership`, `ReadCommandVerbHandler`,
`HintVerbHandler`; trunk 6bbe85ef), judged at the epoch the replica held when it served.

- A mutation or read repair served (`ok`): the replica is in the token's write group at its
  epoch, and the coordinator's epoch is at least the epoch at which that group last changed —
  else the replica had to answer `CoordinatorBehind`.
- A read served: the replica is in the token's read group at its epoch (Cassandra does not
  compare reads with the group's last change).
- A hint applied: the replica is in the token's write group at its epoch (no epoch is compared:
  hint replay is outside the fencing, and a non-replica re-hints it).
A replica that served while behind the coordinator (Cassandra catches up asynchronously when the
routing agrees) is fine: its own epoch is what it checked against. Refusing too much is not this
invariant's business (a liveness matter).
"""

from __future__ import annotations

from checkers.protocol.placements import Placements
from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from observed.protocol import ProtocolTrace

WRITE_VERBS = ("mutation", "read_repair", "hint")


def check_fencing(trace: ProtocolTrace, placements: Placements) -> ProtocolVerdict:
    out: list[Violation] = []
    checked = 0
    for s in trace.serves:
        if s.answer != "ok":
            continue
        g = placements.groups(s.replica_epoch, s.keyspace, s.token)
        if g is None:
            continue
        checked += 1
        reads, writes = g
        group = writes if s.verb in WRITE_VERBS else reads
        where = f"{s.keyspace} token {s.token}"
        if s.replica not in group:
            which = "write" if s.verb in WRITE_VERBS else "read"
            out.append(Violation(
                invariant="fencing", time=s.t,
                detail=f"{s.replica} at e{s.replica_epoch} served a {s.verb} of {where} from "
                       f"{s.sender} but is not in its {which} group ({','.join(sorted(group))})",
                evidence=(("replica", s.replica), ("verb", s.verb), ("sender", s.sender),
                          ("replica_epoch", str(s.replica_epoch)))))
        elif s.verb in ("mutation", "read_repair"):
            last = placements.last_modified(s.replica_epoch, s.keyspace, s.token, writes=True)
            if s.sender_epoch < last:
                out.append(Violation(
                    invariant="fencing", time=s.t,
                    detail=f"{s.replica} at e{s.replica_epoch} served a {s.verb} of {where} from "
                           f"{s.sender} at e{s.sender_epoch}, behind the write group's last change "
                           f"at e{last} (CoordinatorBehind was due)",
                    evidence=(("replica", s.replica), ("sender", s.sender),
                              ("sender_epoch", str(s.sender_epoch)), ("last_modified", str(last)))))
        if len(out) >= MAX_VIOLATIONS:
            break
    return ProtocolVerdict(violations=tuple(out), checked=checked)


def reads_behind(trace: ProtocolTrace, placements: Placements) -> frozenset[tuple[str, int]]:
    """(coordinator, request id) of the reads some replica served to a coordinator whose epoch was
    before the token's read group's last change at the replica's epoch: legal in Cassandra
    (ReadCommandVerbHandler compares no lastModified), and what finding `stale-coordinator-read`
    is made of."""
    out = set()
    for s in trace.serves:
        if s.verb == "read" and s.answer == "ok" and placements.groups(s.replica_epoch, s.keyspace, s.token) \
                and s.sender_epoch < placements.last_modified(s.replica_epoch, s.keyspace, s.token, writes=False):
            out.add((s.sender, s.rid))
    return frozenset(out)


__all__ = ["check_fencing", "reads_behind"]
