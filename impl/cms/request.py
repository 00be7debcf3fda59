"""A commit request as a CMS member holds it: entry id, transformation, who waits for it."""

from __future__ import annotations


class Request:
    __slots__ = ("entry_id", "transformation", "kind", "waiters")

    def __init__(self, entry_id: str, transformation: str, kind: str, origin: str) -> None:
        self.entry_id = entry_id
        self.transformation = transformation
        self.kind = kind
        self.waiters = [origin]
