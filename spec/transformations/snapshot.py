"""TRIGGER_SNAPSHOT: an epoch at which every node may snapshot; it changes nothing else."""

from __future__ import annotations

from attrs import frozen

from spec.metadata import ClusterMetadata
from spec.transformations.base import Result, Success, Transformation


@frozen(kw_only=True)
class TriggerSnapshot(Transformation):
    kind = "TRIGGER_SNAPSHOT"

    def execute(self, m: ClusterMetadata) -> Result:
        return Success(m.next_epoch())
