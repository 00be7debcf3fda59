"""A committed log entry as a run observed it: one transformation at one epoch, with the
submitter's entry id.

`transformation` is the canonical JSON text of docs/transformations-json.md (sorted keys, no
spaces), so entries are small frozen values that compare and hash cheaply (impl's log chain
hashes them, impl/entry.py); `kind` is its `kind` field.
"""

from __future__ import annotations

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


__all__ = ["Entry", "canonical_json"]
