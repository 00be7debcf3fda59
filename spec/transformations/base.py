"""What every transformation is: `execute(metadata) -> Success | Rejected`, pure, no I/O."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from attrs import frozen

from spec.metadata import ClusterMetadata


@frozen
class Success:
    metadata: ClusterMetadata


@frozen
class Rejected:
    """A refusal the CEP allows, with a stable reason tests can match."""

    reason: str


Result = Success | Rejected


class Transformation(ABC):
    """One committed step of cluster metadata; `kind` is Cassandra's `Transformation.Kind` name."""

    __slots__ = ()
    kind: ClassVar[str]

    @abstractmethod
    def execute(self, metadata: ClusterMetadata) -> Result: ...
