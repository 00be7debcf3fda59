"""Where no quorum can form at all: the ranges on which a "proved" verdict is vacuous.

Counts come from the replication factor (Cassandra's `ConsistencyLevel.blockFor`), not from
how many replicas a range has, so a keyspace whose RF exceeds its replicas (RF 5 on 3 nodes, or a
DC factor above the DC's size) has ranges where no read or no write at the chosen level can
complete: Cassandra answers `UnavailableException`. Intersection then holds trivially there,
which is safe but says nothing; `tcmcheck prove` warns instead of letting "proved" stand alone.
"""

from __future__ import annotations

from attrs import frozen

from checkers.quorum.levels import DC_DEPENDENT, read_rule, write_rule
from checkers.quorum.model import History
from spec.consistency import ConsistencyLevel
from spec.tokens import Range


@frozen(kw_only=True)
class Unavailable:
    """At `epoch`, no `side` ("read" or "write") request on `range` of `keyspace` completes:
    the level needs `needed` replicas of its group and the group has `replicas`."""

    epoch: int
    keyspace: str
    range: Range
    side: str
    replicas: int
    needed: int


def unavailable_ranges(
    history: History,
    *,
    read_cl: ConsistencyLevel,
    write_cl: ConsistencyLevel,
    read_dc: str | None = None,
    write_dc: str | None = None,
) -> tuple[Unavailable, ...]:
    """Every (epoch, keyspace, range, side) whose quorum rule no subset of its group meets.

    A DC-dependent level with no coordinator DC given counts as unavailable only when it is
    unavailable from every DC (the prover tries coordinators in each)."""
    dc_of = history.dc_map()

    def dcs(cl: ConsistencyLevel, dc: str | None) -> tuple[str | None, ...]:
        return history.dc_names() if dc is None and cl in DC_DEPENDENT else (dc,)

    found: list[Unavailable] = []
    for e in history.epochs:
        for ks in e.keyspaces:
            for g in ks.ranges:
                sides = (("read", [read_rule(read_cl, ks.replication, g.reads, dc_of, d)
                                   for d in dcs(read_cl, read_dc)]),
                         ("write", [write_rule(write_cl, ks.replication, g.reads, g.writes, dc_of, d)
                                    for d in dcs(write_cl, write_dc)]))
                for side, rules in sides:
                    if any(rule.satisfiable for rule in rules):
                        continue
                    worst = max((r for rule in rules for r in rule.requirements if len(r.among) < r.count),
                                key=lambda r: r.count - len(r.among))
                    found.append(Unavailable(epoch=e.epoch, keyspace=ks.keyspace, range=g.range,
                                             side=side, replicas=len(worst.among), needed=worst.count))
    return tuple(found)


def vacuity_warning(found: tuple[Unavailable, ...], history: History, read_cl: ConsistencyLevel,
                    write_cl: ConsistencyLevel) -> str:
    """One line for the operator ('' when every range can form its quorums)."""
    if not found:
        return ""
    cases = 2 * sum(len(ks.ranges) for e in history.epochs for ks in e.keyspaces)
    first = found[0]
    level = read_cl if first.side == "read" else write_cl
    keyspaces = sorted({u.keyspace for u in found})
    return (f"vacuous on {len(found)} of {cases} (epoch, range, read/write) cases in keyspace(s) "
            f"{', '.join(keyspaces)}: no quorum can form there, e.g. a {first.side} at "
            f"{level.name} on {first.keyspace} ({first.range.left}, {first.range.right}] at epoch "
            f"{first.epoch} needs {first.needed} replicas and the range has {first.replicas} "
            f"(replication factor above the nodes available: every such request is unavailable)")
