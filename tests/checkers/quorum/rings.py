"""Hand-built histories from the CEP's examples, so tests run without ../shared or the spec."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from checkers.quorum.model import (
    EpochPlacements,
    History,
    KeyspacePlacement,
    ReplicationParams,
    SimpleStrategy,
)
from spec.tokens import Range

RF3 = SimpleStrategy(replication_factor=3)
Groups = tuple[str, str]  # reads, writes as strings of one-letter node ids ("ABC")
Table = Mapping[tuple[int, int], Groups]


def keyspace(name: str, params: ReplicationParams, table: Table) -> KeyspacePlacement:
    return KeyspacePlacement.of(name, params, ((Range(lo, hi), set(rd), set(wr)) for (lo, hi), (rd, wr) in table.items()))


def history(tables: Sequence[Table], *, params: ReplicationParams = RF3,
            dcs: Mapping[str, str] | None = None, cms: Iterable[tuple[str, str]] = ()) -> History:
    """One keyspace "ks" per epoch, epochs numbered from 0; every node in dc1 unless `dcs` says."""
    cms_sets = list(cms)
    nodes = {n for t in tables for rd, wr in t.values() for n in rd + wr}
    nodes |= {n for rd, wr in cms_sets for n in rd + wr}
    epochs = []
    for i, t in enumerate(tables):
        reads, writes = cms_sets[i] if cms_sets else ("", "")
        epochs.append(EpochPlacements(epoch=i, keyspaces=(keyspace("ks", params, t),),
                                      cms_reads=frozenset(reads), cms_writes=frozenset(writes)))
    return History.of(epochs, {n: (dcs or {}).get(n, "dc1") for n in nodes})


def same(**ranges: str) -> dict[str, Groups]:
    return {k: (v, v) for k, v in ranges.items()}


# CEP "Consistency Guarantees": A=100, B=200, C=300, D=400, SimpleStrategy RF 3; X joins at 150.
RF3_BEFORE: Table = {(400, 100): ("ABC", "ABC"), (100, 200): ("BCD", "BCD"),
                     (200, 300): ("CDA", "CDA"), (300, 400): ("DAB", "DAB")}
RF3_SPLIT: Table = {(400, 100): ("ABC", "ABC"), (100, 150): ("BCD", "BCD"), (150, 200): ("BCD", "BCD"),
                    (200, 300): ("CDA", "CDA"), (300, 400): ("DAB", "DAB")}
RF3_START: Table = {(400, 100): ("ABC", "ABCX"), (100, 150): ("BCD", "BCDX"), (150, 200): ("BCD", "BCD"),
                    (200, 300): ("CDA", "CDA"), (300, 400): ("DAB", "DABX")}
RF3_MID: Table = {(400, 100): ("AXB", "ABCX"), (100, 150): ("XBC", "BCDX"), (150, 200): ("BCD", "BCD"),
                  (200, 300): ("CDA", "CDA"), (300, 400): ("DAX", "DABX")}
RF3_FINISH: Table = {(400, 100): ("AXB", "AXB"), (100, 150): ("XBC", "XBC"), (150, 200): ("BCD", "BCD"),
                     (200, 300): ("CDA", "CDA"), (300, 400): ("DAX", "DAX")}
# epochs 0..5: initial, Register X, PrepareJoin, StartJoin, MidJoin, FinishJoin
RF3_JOIN_X = (RF3_BEFORE, RF3_BEFORE, RF3_SPLIT, RF3_START, RF3_MID, RF3_FINISH)


def rf3_join_x() -> History:
    """The CEP's join of X at 150 into A=100, B=200, C=300, D=400 (RF 3), epochs 0..5; CMS = {A}."""
    return history(RF3_JOIN_X, cms=[("A", "A")] * len(RF3_JOIN_X))
