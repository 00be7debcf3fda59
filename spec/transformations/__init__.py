"""Every transformation of cluster metadata, one small frozen class each, by Cassandra's kind."""

from collections.abc import Callable

from spec.nodes import NodeId
from spec.sequences import OperationKind, Step
from spec.transformations.alter_topology import AlterTopology
from spec.transformations.base import Rejected, Result, Success, Transformation
from spec.transformations.cancel import CancelSequence
from spec.transformations.cms_reconfiguration import (
    AdvanceCMSReconfiguration,
    CancelCMSReconfiguration,
    PrepareCMSReconfiguration,
)
from spec.transformations.initialize import InitializeCMS
from spec.transformations.join import FinishJoin, MidJoin, PrepareJoin, StartJoin
from spec.transformations.leave import FinishLeave, MidLeave, PrepareLeave, StartLeave
from spec.transformations.move import FinishMove, MidMove, PrepareMove, StartMove
from spec.transformations.register import Register, Unregister
from spec.transformations.replace import FinishReplace, MidReplace, PrepareReplace, StartReplace
from spec.transformations.schema_change import AlterSchema
from spec.transformations.snapshot import TriggerSnapshot
from spec.transformations.startup import Startup
from spec.transformations.unsafe import Assassinate, UnsafeJoin

ALL: tuple[type[Transformation], ...] = (
    Register, Unregister,
    PrepareJoin, StartJoin, MidJoin, FinishJoin,
    PrepareLeave, StartLeave, MidLeave, FinishLeave,
    PrepareMove, StartMove, MidMove, FinishMove,
    PrepareReplace, StartReplace, MidReplace, FinishReplace,
    CancelSequence, UnsafeJoin, Assassinate, AlterSchema, AlterTopology,
    PrepareCMSReconfiguration, AdvanceCMSReconfiguration, CancelCMSReconfiguration,
    TriggerSnapshot, InitializeCMS, Startup,
)
BY_KIND: dict[str, type[Transformation]] = {t.kind: t for t in ALL}

_STEP_CLASSES: dict[OperationKind, tuple[type[Transformation], type[Transformation], type[Transformation]]] = {
    OperationKind.JOIN: (StartJoin, MidJoin, FinishJoin),
    OperationKind.LEAVE: (StartLeave, MidLeave, FinishLeave),
    OperationKind.REMOVE: (StartLeave, MidLeave, FinishLeave),
    OperationKind.MOVE: (StartMove, MidMove, FinishMove),
    OperationKind.REPLACE: (StartReplace, MidReplace, FinishReplace),
}


def step_of(kind: OperationKind, step: Step, node: NodeId) -> Transformation:
    """The START, MID or FINISH transformation of an operation of `kind` performed by `node`."""
    if step is Step.PREPARE:
        raise ValueError("PREPARE takes the operation's arguments; build it directly")
    cls: Callable[..., Transformation] = _STEP_CLASSES[kind][step - Step.START]
    return cls(node=node)

__all__ = [
    "ALL", "BY_KIND", "step_of", "Rejected", "Result", "Success", "Transformation",
    "Register", "Unregister",
    "PrepareJoin", "StartJoin", "MidJoin", "FinishJoin",
    "PrepareLeave", "StartLeave", "MidLeave", "FinishLeave",
    "PrepareMove", "StartMove", "MidMove", "FinishMove",
    "PrepareReplace", "StartReplace", "MidReplace", "FinishReplace",
    "CancelSequence", "UnsafeJoin", "Assassinate", "AlterSchema", "AlterTopology",
    "PrepareCMSReconfiguration", "AdvanceCMSReconfiguration", "CancelCMSReconfiguration",
    "TriggerSnapshot", "InitializeCMS", "Startup",
]
