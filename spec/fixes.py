"""Proposed fixes for the findings, as options: the faithful rules stay the default.

Each fix is named after what it changes; each known finding (campaign/run/findings.py) names the
fix that removes it. `execute(t, m, fixes)` runs a transformation with the chosen fixes;
with no fixes it is exactly `t.execute(m)` (Cassandra's behaviour).

- `composition-guard`: refuse a PREPARE whose deltas, with those of the sequences in flight,
  would not end at the natural placement (finding `nts-rack-composition`); UNSAFE_JOIN and
  ASSASSINATE too, whose first part is a PREPARE_JOIN / PREPARE_LEAVE (Cassandra's UnsafeJoin
  and Assassinate call PrepareJoin.execute / PrepareLeave.execute, range-lock check included,
  then apply the whole plan in the same epoch).
- `leave-counts-in-flight`: a leave counts the nodes already leaving as gone, so a DC keeps at
  least RF token owners (finding `concurrent-leaves-under-rf`).
- `unregister-idle-only`: UNREGISTER refuses a node a sequence involves (finding
  `unregister-prepared-join`).
- `replace-cms-member-guard`: PREPARE_REPLACE refuses to replace a CMS member (finding
  `replace-cms-member`).
- `replace-same-dc`: PREPARE_REPLACE refuses a replacement in another DC than the replaced node
  (finding `cross-dc-replace`).
- `two-epoch-cancel`: a cancel after MID first gives reads back (one epoch), and narrows the
  writes in the next (finding `cancel-after-mid`).
- `leave-refuses-cms-joiner`: PREPARE_LEAVE (and ASSASSINATE) refuses a node the CMS is adding
  (in its write set, or an addition still to come) as it refuses a full member, and
  PREPARE_REPLACE refuses to replace such a node (finding `leave-while-joining-cms`).
- `barrier-waits-for-replaced`: the progress barrier also waits for the replaced/removed node
  (finding `replaced-node-barrier-gap`); a data-path fix, so it lives in the prover's barrier
  mode (`checkers.quorum.barrier`) and changes no transformation.
- `stream-from-all-replicas`: a remove or replace streams each range from every remaining
  replica (the newest cell wins on the new replica), and from the removed or replaced node
  itself when no other replica holds the range (finding `remove-replace-single-source`); a
  data-path fix (impl/node/streaming.py), so it changes no transformation either.
- `fence-reads-by-last-modified`: a replica refuses a read from a coordinator whose epoch is
  before the token's read group's last change (`CoordinatorBehind`, as it refuses mutations by
  the write group's), so a lagging coordinator cannot complete a read from replicas that moved
  past it (finding `stale-coordinator-read`); a data-path fix (impl/node/replica.py).
- `read-repair-pending`: a read whose token has pending replicas (in the coordinator's metadata)
  writes the value it returns over the read-repair plan even when the responses agree, and
  answers once the write level's count of that plan (pending replicas counted, as for a write)
  hold it, so a failed write one read returned cannot vanish when the movement finishes
  (finding `monotonic-read-across-movement`); a data-path fix (impl/node/coordinator.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import evolve

from spec import ownership
from spec.cms import CMSStepKind
from spec.metadata import ClusterMetadata
from spec.sequences import Step
from spec.transformations.base import Rejected, Result, Success, Transformation
from spec.transformations.guards import leaves_enough_replicas
from spec.transformations.join import PrepareJoin
from spec.transformations.leave import PrepareLeave
from spec.transformations.unsafe import Assassinate, UnsafeJoin

COMPOSITION_GUARD = "composition-guard"
LEAVE_COUNTS_IN_FLIGHT = "leave-counts-in-flight"
UNREGISTER_IDLE_ONLY = "unregister-idle-only"
REPLACE_CMS_MEMBER_GUARD = "replace-cms-member-guard"
REPLACE_SAME_DC = "replace-same-dc"
TWO_EPOCH_CANCEL = "two-epoch-cancel"
BARRIER_WAITS_FOR_REPLACED = "barrier-waits-for-replaced"
STREAM_FROM_ALL_REPLICAS = "stream-from-all-replicas"
BARRIER_NO_RELAXATION = "barrier-no-relaxation"
FENCE_READS_BY_LAST_MODIFIED = "fence-reads-by-last-modified"
LEAVE_REFUSES_CMS_JOINER = "leave-refuses-cms-joiner"
READ_REPAIR_PENDING = "read-repair-pending"

FIXES: tuple[str, ...] = (COMPOSITION_GUARD, LEAVE_COUNTS_IN_FLIGHT, UNREGISTER_IDLE_ONLY,
                          REPLACE_CMS_MEMBER_GUARD, REPLACE_SAME_DC, TWO_EPOCH_CANCEL, BARRIER_WAITS_FOR_REPLACED,
                          STREAM_FROM_ALL_REPLICAS, BARRIER_NO_RELAXATION, FENCE_READS_BY_LAST_MODIFIED,
                          LEAVE_REFUSES_CMS_JOINER, READ_REPAIR_PENDING)
METADATA_FIXES: frozenset[str] = frozenset(FIXES) - {BARRIER_WAITS_FOR_REPLACED, STREAM_FROM_ALL_REPLICAS,
                                                     BARRIER_NO_RELAXATION, FENCE_READS_BY_LAST_MODIFIED,
                                                     READ_REPAIR_PENDING}
"""The fixes that change transformations (the others change the data path or the prover)."""
DATA_PATH_FIXES: frozenset[str] = frozenset({STREAM_FROM_ALL_REPLICAS, BARRIER_NO_RELAXATION,
                                            FENCE_READS_BY_LAST_MODIFIED, READ_REPAIR_PENDING,
                                            TWO_EPOCH_CANCEL})
"""The fixes impl's nodes apply (through `Settings.fixes`). `two-epoch-cancel` is a metadata fix
too: the node that runs the cancel commits its second half after a progress barrier
(impl/node/operator.py)."""


_PREPARES = frozenset({"PREPARE_JOIN", "PREPARE_LEAVE", "PREPARE_MOVE", "PREPARE_REPLACE"})


def on(fixes: frozenset[str], name: str) -> bool:
    """Whether fix `name` is among `fixes` (a run's, or a node's `Settings.fixes`); a name that
    is no fix is a programming error."""
    assert name in FIXES, name
    return name in fixes


def check_names(fixes: Iterable[str]) -> frozenset[str]:
    """The fixes as a set; ValueError naming the first unknown one."""
    out = frozenset(fixes)
    for name in sorted(out):
        if name not in FIXES:
            raise ValueError(f"unknown fix {name!r} (one of {', '.join(FIXES)})")
    return out


def execute(t: Transformation, m: ClusterMetadata, fixes: frozenset[str] = frozenset()) -> Result:
    """`t.execute(m)`, with the chosen fixes' extra refusals and the two-epoch cancel."""
    if not fixes & METADATA_FIXES:
        return t.execute(m)
    node = getattr(t, "node", None)
    if t.kind == "UNREGISTER" and on(fixes, UNREGISTER_IDLE_ONLY) and node is not None:
        seq = m.in_progress.involving(node)
        if seq is not None:
            return Rejected(f"{node}: UNREGISTER during the {seq.kind.value} sequence of {seq.node} "
                            f"(fix {UNREGISTER_IDLE_ONLY})")
    if t.kind in ("PREPARE_LEAVE", "ASSASSINATE", "PREPARE_REPLACE") and on(fixes, LEAVE_REFUSES_CMS_JOINER) \
            and node is not None:
        reconfiguration = m.cms.reconfiguration
        adding = {s.node for s in reconfiguration.remaining if s.kind is not CMSStepKind.REMOVE
                  and s.kind is not CMSStepKind.FINISH} if reconfiguration is not None else set()
        # a replace removes the replaced node (its full members are replace-cms-member's)
        leaving = getattr(t, "replaced") if t.kind == "PREPARE_REPLACE" else node  # noqa: B009
        joining = (m.cms.writes - m.cms.reads) | adding if t.kind == "PREPARE_REPLACE" else m.cms.writes | adding
        if leaving in joining:
            return Rejected(f"{leaving}: {t.kind} of a node the CMS is adding (fix {LEAVE_REFUSES_CMS_JOINER})")
    if t.kind == "PREPARE_REPLACE" and on(fixes, REPLACE_CMS_MEMBER_GUARD):
        replaced = getattr(t, "replaced")  # noqa: B009  # every PREPARE_REPLACE has it
        if replaced in m.cms.members:
            return Rejected(f"{replaced}: PREPARE_REPLACE of a CMS member; reconfigure the CMS first "
                            f"(fix {REPLACE_CMS_MEMBER_GUARD})")
    if t.kind == "PREPARE_REPLACE" and on(fixes, REPLACE_SAME_DC) and node is not None:
        new, old = m.directory.get(node), m.directory.get(getattr(t, "replaced"))  # noqa: B009
        if new is not None and old is not None and new.dc != old.dc:
            return Rejected(f"{node}: PREPARE_REPLACE needs the replacement in {old.dc}, not {new.dc} "
                            f"(fix {REPLACE_SAME_DC})")
    if (t.kind == "PREPARE_LEAVE" and on(fixes, LEAVE_COUNTS_IN_FLIGHT) and node is not None
            and not getattr(t, "force", False) and m.directory.state(node) is not None):

        refused = leaves_enough_replicas(m, node, t.kind)
        if refused is not None:
            return Rejected(f"{refused.reason} (fix {LEAVE_COUNTS_IN_FLIGHT})")
    if t.kind == "CANCEL_SEQUENCE" and on(fixes, TWO_EPOCH_CANCEL) and node is not None:
        seq = m.in_progress.get(node)
        if seq is not None and seq.next_step is Step.FINISH:
            # First epoch: reads go back; the sequence stands as if only START had run, so the
            # next CANCEL_SEQUENCE narrows the writes.
            return Success(m.next_epoch(
                placements=ownership.revert_reads(m.placements, seq.deltas),
                in_progress=m.in_progress.with_sequence(evolve(seq, next_step=Step.MID)),
            ))
    result = t.execute(m)
    if on(fixes, COMPOSITION_GUARD) and isinstance(result, Success) and node is not None:
        first = _prepare_part(t, m, result)
        prepared = first.metadata.in_progress.get(node) if isinstance(first, Success) else None
        if prepared is not None:
            other = ownership.non_composing(m, prepared)
            if other is not None:
                return Rejected(f"{node}: {t.kind} does not compose with the sequence of {other} "
                                f"(fix {COMPOSITION_GUARD})")
    return result


def _prepare_part(t: Transformation, m: ClusterMetadata, result: Success) -> Result | None:
    """The PREPARE a transformation starts with: itself, or the PrepareJoin / PrepareLeave an
    UNSAFE_JOIN / ASSASSINATE runs before its steps; None for any other kind."""
    if t.kind in _PREPARES:
        return result
    if isinstance(t, UnsafeJoin):
        return PrepareJoin(node=t.node, tokens=t.tokens).execute(m)
    if isinstance(t, Assassinate):
        return PrepareLeave(node=t.node, remove=True, force=True).execute(m)
    return None


def cancel_needs_another_epoch(t: Transformation, before: ClusterMetadata, after: ClusterMetadata,
                               fixes: frozenset[str]) -> bool:
    """With `two-epoch-cancel`, a cancel after MID leaves its sequence for a second cancel."""
    node = getattr(t, "node", None)
    return (on(fixes, TWO_EPOCH_CANCEL) and t.kind == "CANCEL_SEQUENCE" and node is not None
            and after.in_progress.get(node) is not None and before.in_progress.get(node) is not None)
