"""Consistency levels: plain names shared by spec, impl and checkers (each counts by itself)."""

from __future__ import annotations

import enum


class ConsistencyLevel(enum.Enum):
    ONE = "ONE"
    TWO = "TWO"
    THREE = "THREE"
    QUORUM = "QUORUM"
    ALL = "ALL"
    LOCAL_ONE = "LOCAL_ONE"
    LOCAL_QUORUM = "LOCAL_QUORUM"
    EACH_QUORUM = "EACH_QUORUM"
    NODE_LOCAL = "NODE_LOCAL"

    @property
    def is_local(self) -> bool:
        return self in (ConsistencyLevel.LOCAL_ONE, ConsistencyLevel.LOCAL_QUORUM)

    def __repr__(self) -> str:
        return f"ConsistencyLevel.{self.name}"
