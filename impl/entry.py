"""The log's values beside its entries: snapshots, and the chain hash.

A log entry (`Entry`, one transformation at one epoch) is what a run observes, so it lives in
observed/entry.py with `canonical_json`; they are named here too because impl's modules write
and read them everywhere. `chain` hashes a log prefix so that a snapshot can vouch for the
entries it replaces: chain(e) = H(chain(e-1), entry e), chain(base) given by the initial
metadata.
"""

from __future__ import annotations

import hashlib
from typing import Any

from attrs import frozen

from observed.entry import Entry, canonical_json


@frozen(kw_only=True)
class Snapshot:
    """ClusterMetadata at `epoch` (the engine's `to_json()`), with the log's chain hash there."""

    epoch: int
    chain: str
    metadata: Any  # why Any: whatever impl.metadata's to_json returns; only from_json reads it
    entry_ids: tuple[tuple[str, int], ...] = ()
    """Every entry id committed at or before `epoch`, with its epoch. Cassandra's CMS keeps the
    whole distributed log (DistributedMetadataLogKeyspace) however it snapshots, so a member
    that catches up from a snapshot must still recognise a resent entry id as committed."""


GENESIS_CHAIN = "0" * 32


def chain_hash(prev: str, entry: Entry) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{prev}|{entry.epoch}|{entry.entry_id}|{entry.transformation}".encode())
    return h.hexdigest()


__all__ = ["GENESIS_CHAIN", "Entry", "Snapshot", "canonical_json", "chain_hash"]
