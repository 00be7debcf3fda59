"""A log entry: one transformation at one epoch, with the submitter's entry id.

`transformation` is the canonical JSON text of docs/transformations-json.md (sorted keys, no
spaces), so entries are small frozen values that compare and hash cheaply; `kind` is its
`kind` field. `chain` hashes a log prefix so that a snapshot can vouch for the entries it
replaces: chain(e) = H(chain(e-1), entry e), chain(base) given by the initial metadata.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from attrs import frozen


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@frozen(kw_only=True)
class Entry:
    epoch: int
    entry_id: str
    kind: str
    transformation: str

    def brief(self) -> str:
        return f"e{self.epoch}:{self.entry_id}:{self.kind}"


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
