"""The models `check-history` knows, by name (`MODELS`): their semantics, each with its tactics.

A model is a `SequentialModel` record (`sequential.py`: init, step, partition, describe, the `f`
names it reads and which inputs it refuses), not a class to subclass; its `Tactics` (`tactics.py`)
only make it fast. Here: `REGISTER`, `CAS_REGISTER`, `KV` and `LOG`; Knossos' mutex,
multi-register, set and queues are in `knossos_models.py`. `with_initial` changes a model's
initial value (Porcupine's kv histories start every key at "", ours at null).
"""

from __future__ import annotations

from typing import Any

from attrs import evolve

from checkers.linearizability.frozen import thaw
from checkers.linearizability.history import Operation
from checkers.linearizability.knossos_models import KNOSSOS_MODELS
from checkers.linearizability.log_fast import commit_outcome
from checkers.linearizability.sequential import (
    NO_TACTICS,
    Malformed,
    SequentialModel,
    Tactics,
    by_key,
    no_partition,
    stepper,
)
from checkers.linearizability.tactics import (
    CAS_FUNCTIONS,
    CAS_TACTICS,
    KV_FUNCTIONS,
    KV_TACTICS,
    LOG_TACTICS,
    REGISTER_FUNCTIONS,
    REGISTER_TACTICS,
)
from checkers.linearizability.values import cas_step, kv_step, register_step, value_state

__all__ = [
    "CAS_REGISTER", "KV", "LOG", "MODELS", "NO_TACTICS", "REGISTER", "SequentialModel", "Tactics",
    "by_key", "no_partition", "stepper", "with_initial",
]


# --- registers and kv ------------------------------------------------------------------------


def value_ops_malformed(op: Operation) -> Malformed | None:
    """A cas takes `[expected, new]`; an append, a string."""
    if op.f == "cas" and not (isinstance(op.input, tuple) and len(op.input) == 2):
        return Malformed(at="call", reason=f"a cas takes [expected, new], got {thaw(op.input)!r}")
    if op.f == "append" and not isinstance(op.input, str):
        return Malformed(at="call", reason=f"append takes a string, got {thaw(op.input)!r}")
    return None


REGISTER = SequentialModel(
    name="register",
    init=(None,),
    step=register_step,
    partition=by_key,
    describe_state=value_state,
    functions=REGISTER_FUNCTIONS,
    tactics=REGISTER_TACTICS,
)
"""A read/write register per key, initially null: read -> value, write(v)."""

CAS_REGISTER = SequentialModel(
    name="cas-register",
    init=(None,),
    step=cas_step,
    partition=by_key,
    describe_state=value_state,
    functions=CAS_FUNCTIONS,
    malformed=value_ops_malformed,
    tactics=CAS_TACTICS,
)
"""A compare-and-set register per key: read, write(v), cas([expected, new]) (ok = swapped)."""

KV = SequentialModel(
    name="kv",
    init=(None,),
    step=kv_step,
    partition=by_key,
    describe_state=value_state,
    functions=KV_FUNCTIONS,
    malformed=value_ops_malformed,
    tactics=KV_TACTICS,
)
"""A map of independent keys, partitioned per key, so a state is one key's value.

get/read -> value, put/write(v), append(s) (string concatenation; null counts as ""), cas."""


# --- the metadata log ------------------------------------------------------------------------


def _log_step(state: int, op: Operation) -> int | None:
    if op.f == "read":
        if op.ret is None or op.output == state:
            return state
        return None
    if op.f == "commit":
        kind, epoch = commit_outcome(op.output)
        if kind == "unknown":
            # Took effect (it got the next epoch); "rejected" or "never" is linearizing it last.
            return state + 1
        if kind == "committed":
            return epoch if epoch == state + 1 else None
        return state if epoch is None or epoch == state else None
    return None


def _epoch_state(state: int) -> str:
    return f"epoch {state}"


def _log_malformed(op: Operation) -> Malformed | None:
    """A commit returns an epoch or a rejection; a read, an epoch."""
    if op.f == "commit":
        try:
            commit_outcome(op.output)
        except ValueError as e:
            return Malformed(at="return", reason=str(e))
    elif op.ret is not None and (not isinstance(op.output, int) or isinstance(op.output, bool)):
        return Malformed(at="return", reason=f"a log read returns an epoch (integer), got {thaw(op.output)!r}")
    return None


LOG = SequentialModel(
    name="log",
    init=0,
    step=_log_step,
    describe_state=_epoch_state,
    functions=frozenset({"commit", "read"}),
    malformed=_log_malformed,
    tactics=LOG_TACTICS,
)
"""The metadata log: commit(transformation) -> the next epoch or a rejection; read -> the epoch."""


MODELS: dict[str, SequentialModel] = {m.name: m for m in (REGISTER, CAS_REGISTER, KV, LOG, *KNOSSOS_MODELS)}


def with_initial(model: SequentialModel, value: Any) -> SequentialModel:
    """The same model starting from another value (registers and kv: the value of every key)."""
    if model.name == "log":
        return evolve(model, init=int(value))
    if model.name in (REGISTER.name, CAS_REGISTER.name, KV.name):
        return evolve(model, init=(value,))
    raise ValueError(f"the {model.name} model has no initial value to set")
