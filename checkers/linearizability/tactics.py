"""The tactics of the registers, kv and the log (`sequential.Tactics`): how each is decided fast.

None of this decides a verdict on its own: a guess is checked from scratch (`witness.witnessed`),
a pruning rule claims something of `step` that tests check (`tests/checkers/linearizability/
test_values.py`, `test_against_brute_force.py`), and a model with none of it (`NO_TACTICS`) gets
the same verdicts, slower. The functions themselves live by concern: `values.py` (what a
register's or a kv key's state is, and its compiled steps), `register_fast.py`, `kv_fast.py`,
`kv_offsets.py` (guesses), `log_fast.py` (the log's exact fast path).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from checkers.linearizability.history import Operation
from checkers.linearizability.kv_fast import propose
from checkers.linearizability.kv_offsets import by_offsets
from checkers.linearizability.log_fast import check_log
from checkers.linearizability.register_fast import chains_or_conflict
from checkers.linearizability.sequential import Tactics
from checkers.linearizability.values import (
    cas_replay,
    compiler,
    effect_needs,
    kv_builds,
    kv_leading,
    kv_leads_to,
    kv_may_lead,
    kv_replay,
    needs,
    produces,
    reaches,
    register_replay,
    step_kinds,
)
from checkers.linearizability.verdict import PartitionResult

REGISTER_FUNCTIONS = frozenset({"read", "write"})
CAS_FUNCTIONS = frozenset({"read", "write", "cas"})
KV_FUNCTIONS = frozenset({"read", "get", "write", "put", "append", "cas"})


REGISTER_TACTICS = Tactics(
    read_only=frozenset({"read"}),
    compile_op=compiler(REGISTER_FUNCTIONS),
    step_kinds=step_kinds(REGISTER_FUNCTIONS),
    needs=needs,
    produces=produces,
    reaches=reaches,
    effect_needs=effect_needs,
    witness=chains_or_conflict,
    replay=register_replay,
)

CAS_TACTICS = Tactics(
    read_only=frozenset({"read"}),
    compile_op=compiler(CAS_FUNCTIONS),
    step_kinds=step_kinds(CAS_FUNCTIONS),
    needs=needs,
    produces=produces,
    reaches=reaches,
    effect_needs=effect_needs,
    witness=chains_or_conflict,
    replay=cas_replay,
)

KV_TACTICS = Tactics(
    read_only=frozenset({"read", "get"}),
    compile_op=compiler(KV_FUNCTIONS),
    step_kinds=step_kinds(KV_FUNCTIONS),
    needs=needs,
    produces=produces,
    reaches=reaches,
    leads_to=kv_leads_to,
    leading=kv_leading,
    effect_needs=effect_needs,
    may_lead=kv_may_lead,
    builds=kv_builds,
    witness=propose,
    quick_witness=by_offsets,
    replay=kv_replay,
)


def _log_fast(ops: Sequence[Operation], init: Any, key: Hashable) -> PartitionResult:
    return check_log(ops, init=init, key=key)


LOG_TACTICS = Tactics(read_only=frozenset({"read"}), fast_check=_log_fast)
"""Every commit is conditional on the epoch before it, so the log is one register of epochs whose
only write is "+1": `log_fast` decides it without a search."""
