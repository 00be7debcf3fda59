"""The proposed fixes of the findings, as impl implements them (independently of spec.fixes).

`execute(metadata, transformation, fixes)` is `impl.metadata.execute` with the named fixes'
extra refusals and the two-epoch cancel; with no fixes it is exactly Cassandra's rules. The
names match spec.fixes (docs/findings.md): composition-guard, leave-counts-in-flight,
unregister-idle-only, replace-cms-member-guard, replace-same-dc, two-epoch-cancel (barrier-waits-for-replaced,
stream-from-all-replicas and barrier-no-relaxation change the data path, not a transformation, and
are accepted and ignored here; impl/node/streaming.py applies stream-from-all-replicas and
impl/node/progress_barrier.py barrier-no-relaxation).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from attrs import evolve

from impl.metadata.execute import execute as execute_faithfully
from impl.metadata.metadata import Metadata
from impl.metadata.results import Accepted, Rejected
from impl.metadata.sequences import (
    involved_in,
    non_commuting,
    prepare_join,
    prepare_leave,
    rf_violation,
)

_PREPARES = ("PREPARE_JOIN", "PREPARE_LEAVE", "PREPARE_MOVE", "PREPARE_REPLACE")


def execute(m: Metadata, t: Mapping[str, Any], fixes: Iterable[str] = ()) -> Accepted | Rejected:
    chosen = frozenset(fixes)
    kind, node = t.get("kind"), t.get("node")
    if not chosen or not isinstance(node, str) or node not in m.directory and kind != "CANCEL_SEQUENCE":
        return execute_faithfully(m, t)
    if kind == "UNREGISTER" and "unregister-idle-only" in chosen and involved_in(m, node) is not None:
        return Rejected(f"{node}: cannot unregister during a sequence (fix unregister-idle-only)")
    if kind in ("PREPARE_LEAVE", "ASSASSINATE") and "leave-refuses-cms-joiner" in chosen and (
            node in m.cms.writes or node in m.cms.pending_add):
        return Rejected(f"{node}: the CMS is adding it (fix leave-refuses-cms-joiner)")
    if kind == "PREPARE_REPLACE" and "leave-refuses-cms-joiner" in chosen:
        replaced = t.get("replaced")
        if replaced in (m.cms.writes - m.cms.reads) or replaced in m.cms.pending_add:
            return Rejected(f"{replaced}: the CMS is adding it (fix leave-refuses-cms-joiner)")
    if kind == "PREPARE_REPLACE" and "replace-cms-member-guard" in chosen:
        replaced = t.get("replaced")
        if isinstance(replaced, str) and replaced in m.cms.writes:
            return Rejected(f"{replaced}: is a CMS member (fix replace-cms-member-guard)")
    if kind == "PREPARE_REPLACE" and "replace-same-dc" in chosen:
        old = m.directory.get(t.get("replaced"))  # type: ignore[arg-type]
        if old is not None and old.dc != m.directory[node].dc:
            return Rejected(f"{node}: cannot replace from another datacenter (fix replace-same-dc)")
    if (kind == "PREPARE_LEAVE" and "leave-counts-in-flight" in chosen and t.get("force") is not True
            and m.directory[node].state.value == "JOINED"):
        bad = rf_violation(m, node)
        if bad is not None:
            return Rejected(f"{bad.reason} (fix leave-counts-in-flight)")
    if kind == "CANCEL_SEQUENCE" and "two-epoch-cancel" in chosen:
        seq = m.sequences.get(node)
        if seq is not None and seq.next_step == "FINISH":
            placements = dict(m.placements)
            for key, entries in seq.transitions.items():
                if key in placements:
                    placements[key] = placements[key].apply(entries, "MID", undo=True)
            sequences = {**m.sequences, node: evolve(seq, next_step="MID")}
            return Accepted(metadata=m.next(placements=placements, sequences=sequences),
                            kind="CANCEL_SEQUENCE")
    result = execute_faithfully(m, t)
    if "composition-guard" in chosen and isinstance(result, Accepted):
        # UNSAFE_JOIN / ASSASSINATE: their PrepareJoin / PrepareLeave part (Cassandra's
        # UnsafeJoin and Assassinate run it, lock check included, before the steps)
        first = (result if kind in _PREPARES else prepare_join(m, t) if kind == "UNSAFE_JOIN"
                 else prepare_leave(m, {"node": node, "remove": True, "force": True}) if kind == "ASSASSINATE"
                 else None)
        seq = first.metadata.sequences.get(node) if isinstance(first, Accepted) else None
        if seq is not None:
            clash = non_commuting(m, seq)
            if clash is not None:
                return Rejected(f"{node}: does not compose with the sequence of {clash} (fix composition-guard)")
    return result
