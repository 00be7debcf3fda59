"""The placements of every epoch of a run, as the trace invariants look them up: the read and
write groups of a token, the epoch at which a token's group last changed (Cassandra's
`VersionedEndpoints.lastModified`), the keyspace's replication, the nodes' datacenters.

Built from the spec's replay of the committed log (`SpecReplay.states`: epoch -> spec metadata),
never from what a simulated node recorded: the checkers judge impl against the spec's placements.
Lookups are memoized (a run asks about a few dozen keys at a few hundred epochs).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping

from spec.metadata import ClusterMetadata
from spec.placement import ReplicaGroups
from spec.replication import ReplicationParams

Groups = tuple[frozenset[str], frozenset[str]]
"""(reads, writes)"""


class Placements:
    def __init__(self, states: Mapping[int, ClusterMetadata]) -> None:
        self._states = dict(states)
        self.epochs = tuple(sorted(self._states))
        dcs: dict[str, str] = {}
        for m in self._states.values():
            for n in m.directory:
                dcs.setdefault(n.id, n.location.dc)
        self.dc_of: dict[str, str] = dcs
        self._lookup: dict[tuple[int, int], frozenset[str]] = {}
        self._groups: dict[tuple[int, str, int], Groups | None] = {}
        self._changes: dict[tuple[str, int, bool], tuple[int, ...]] = {}

    def state(self, epoch: int) -> ClusterMetadata | None:
        return self._states.get(epoch)

    def params(self, epoch: int, keyspace: str) -> ReplicationParams | None:
        m = self._states.get(epoch)
        if m is None or keyspace not in m.schema.names():
            return None
        return m.schema.replication(keyspace)

    def _for_token(self, groups: ReplicaGroups, token: int) -> frozenset[str]:
        key = (id(groups), token)
        hit = self._lookup.get(key)
        if hit is None:
            entries = groups.entries
            rights = [r.right for r, _ in entries]
            i = bisect_left(rights, token)
            hit = self._lookup[key] = frozenset(entries[i if i < len(rights) else 0][1])
        return hit

    def groups(self, epoch: int, keyspace: str, token: int) -> Groups | None:
        """The token's (read group, write group) at `epoch`; None when the epoch or keyspace is
        unknown."""
        key = (epoch, keyspace, token)
        if key in self._groups:
            return self._groups[key]
        m = self._states.get(epoch)
        out: Groups | None = None
        if m is not None and keyspace in m.placements.keyspaces():
            p = m.placements.get(keyspace)
            if p.reads.entries:
                out = (self._for_token(p.reads, token), self._for_token(p.writes, token))
        self._groups[key] = out
        return out

    def last_modified(self, epoch: int, keyspace: str, token: int, *, writes: bool) -> int:
        """The newest epoch <= `epoch` at which the token's group (write or read) differed from
        the epoch before (the first known epoch when it never changed)."""
        k = (keyspace, token, writes)
        changes = self._changes.get(k)
        if changes is None:
            out: list[int] = []
            before: frozenset[str] | None = None
            for e in self.epochs:
                g = self.groups(e, keyspace, token)
                now = None if g is None else g[1 if writes else 0]
                if not out or now != before:
                    out.append(e)
                before = now
            changes = self._changes[k] = tuple(out)
        i = bisect_right(changes, epoch)
        return changes[i - 1] if i else 0


__all__ = ["Groups", "Placements"]
