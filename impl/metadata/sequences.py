"""Multi-step topology operations: join, leave/remove, move, replace; cancel; unsafe one-epoch forms.

Every operation is PREPARE -> START -> MID -> FINISH, one transformation and one epoch each:

- PREPARE computes the target token map, the placements before and after (from scratch), and
  keeps, per placement, the ranges whose replicas change (`TransitionEntry`). It cuts the
  placements at the new tokens (no replica changes), locks the affected ranges (changed ranges,
  the ranges it cut, and the ranges that FINISH's merge will produce), and sets the node state.
- START adds the gaining replicas to write groups.
- MID switches read groups to the after-replicas, in one epoch.
- FINISH removes the losing replicas from write groups, updates the token map, merges ranges at
  the tokens no longer in it, sets the final node states and unlocks.

CANCEL_SEQUENCE undoes the applied steps in reverse in one epoch, undoes the PREPARE's cuts and
unlocks. Steps are applied as deltas to the current placements, so sequences holding disjoint
locks interleave freely.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import Any

from attrs import evolve

from impl.metadata.metadata import Metadata, placement_from_scratch
from impl.metadata.placement import Placement, refine, transition
from impl.metadata.records import JOIN, LEAVE, MOVE, REMOVE, REPLACE, STEPS, Sequence
from impl.metadata.replication import SIMPLE, ReplicationParams
from impl.metadata.results import (
    Accepted,
    Malformed,
    Rejected,
    Result,
    node_field,
    token_list,
)
from impl.metadata.ring import TokenMap
from spec.nodes import NodeState
from spec.tokens import MIN_TOKEN, Range

# Recently built target token maps, so that FINISH reuses the placements PREPARE computed.
_TARGETS: OrderedDict[tuple[Any, ...], TokenMap] = OrderedDict()
_TARGETS_MAX = 16


def _interned(tm: TokenMap) -> TokenMap:
    key = (tm.tokens, tm.owners, tuple(sorted(tm.locations.items())))
    found = _TARGETS.get(key)
    if found is not None:
        _TARGETS.move_to_end(key)
        return found
    _TARGETS[key] = tm
    if len(_TARGETS) > _TARGETS_MAX:
        _TARGETS.popitem(last=False)
    return tm


def params_in_use(m: Metadata) -> dict[str, ReplicationParams]:
    out: dict[str, ReplicationParams] = {}
    for ks in m.keyspaces.values():
        out.setdefault(ks.replication.key, ks.replication)
    return out


def involved_in(m: Metadata, node: str) -> Sequence | None:
    """The sequence `node` takes part in, as its subject or as the node being replaced."""
    seq = m.sequences.get(node)
    if seq is not None:
        return seq
    for s in m.sequences.values():
        if s.replaced == node:
            return s
    return None


def _busy(m: Metadata, node: str) -> Rejected | None:
    seq = involved_in(m, node)
    if seq is None:
        return None
    if seq.node == node:
        return Rejected(f"{node}: a {seq.kind} sequence is already in progress")
    return Rejected(f"{node}: is being replaced by {seq.node}")


def _range_around(bounds: tuple[int, ...], token: int) -> tuple[int, int]:
    """The range of `bounds` containing `token` (the whole ring `(token, token]` if none)."""
    n = len(bounds)
    if n == 0:
        return (token, token)
    i = bisect_left(bounds, token)
    i = 0 if i == n else i
    return (bounds[i - 1], bounds[i])


def _intersects(a: Iterable[tuple[int, int]], b: Iterable[tuple[int, int]]) -> bool:
    """Cassandra's LockedRanges: ranges intersecting, or both touching the minimum token."""
    ra = [Range(lo, hi) for lo, hi in a]
    rb = [Range(lo, hi) for lo, hi in b]
    return any(x.intersects(y) or (MIN_TOKEN in (x.left, x.right) and MIN_TOKEN in (y.left, y.right))
               for x in ra for y in rb)


def _prepare(
    m: Metadata,
    *,
    kind: str,
    node: str,
    target: TokenMap,
    tokens: tuple[int, ...],
    split: tuple[int, ...],
    merge: tuple[int, ...],
    replaced: str | None,
) -> Result:
    """Cassandra's Prepare* common part: plan, lock check, split; no state change (START sets
    it) except a move's MOVING, which PrepareMove.execute sets (trunk 6bbe85ef); and no composition check (Cassandra has none; `impl.metadata.fixes` has the guard)."""
    target = _interned(target)
    transitions = {}
    locked: dict[str, tuple[tuple[int, int], ...]] = {}
    placements = dict(m.placements)
    for key, params in params_in_use(m).items():
        before = placement_from_scratch(params, m.token_map)
        after = placement_from_scratch(params, target)
        entries = transition(before.bounds, before.reads, after.bounds, after.reads)
        current = m.placements[key]
        ranges = {(e.left, e.right) for e in entries}
        ranges.update(_range_around(current.bounds, t) for t in split)
        ranges.update(_range_around(after.bounds, t) for t in merge)
        transitions[key] = entries
        if ranges:
            locked[key] = tuple(sorted(ranges, key=lambda r: (r[1], r[0])))
        placements[key] = current.split(split)
    for other in sorted(m.sequences.values(), key=lambda s: s.node):
        for key, mine in locked.items():
            theirs = other.locked.get(key)
            if theirs and _intersects(mine, theirs):
                return Rejected(f"{node}: range lock conflict with sequence of {other.node}")
    seq = Sequence(
        kind=kind,
        node=node,
        next_step="START",
        tokens=tokens,
        replaced=replaced,
        transitions=transitions,
        split=split,
        merge=merge,
        locked=locked,
    )
    directory = m.directory
    if kind == MOVE:
        directory = {**m.directory, node: evolve(m.directory[node], state=NodeState.MOVING)}
    return Accepted(
        metadata=m.next(placements=placements, sequences={**m.sequences, node: seq}, directory=directory),
        kind=f"PREPARE_{'LEAVE' if kind == REMOVE else kind}",
    )


def target_of(tm: TokenMap, seq: Sequence, location: tuple[str, str]) -> TokenMap:
    """`tm` with `seq`'s token change applied (`location` is the subject node's)."""
    if seq.kind == JOIN:
        return tm.with_tokens(seq.node, seq.tokens, location)
    if seq.kind in (LEAVE, REMOVE):
        return tm.without_node(seq.node)
    if seq.kind == MOVE:
        return tm.moved(seq.node, seq.tokens)
    assert seq.replaced is not None
    return tm.replaced(seq.replaced, seq.node, location)


def non_commuting(m: Metadata, new: Sequence) -> str | None:
    """The node of an in-progress sequence whose placement changes do not compose with `new`'s.

    Locks on the ranges each operation changes are not enough by themselves: with racks (or a
    replacement in another rack, or a DC below RF) one operation can change which replicas the
    other's ranges get. Each sequence's transition is computed against the token map of its
    PREPARE, and applied as a delta; for the deltas to compose, the placement computed from
    scratch after any set of the in-progress operations plus `new` must equal the deltas applied
    to the current placement. Checked for every subset (pairs first; at most pairs and the whole
    set when many sequences run); a subset that breaks it conflicts like an overlapping lock.
    """
    others = sorted((s for s in m.sequences.values() if s.node != new.node), key=lambda s: s.node)
    if not others:
        return None
    if len(others) <= 4:
        subsets = [c for k in range(1, len(others) + 1) for c in combinations(others, k)]
    else:
        subsets = [(o,) for o in others] + [tuple(others)]
    params = params_in_use(m)
    for subset in subsets:
        tm = m.token_map
        group = (*subset, new)
        for s in group:
            tm = target_of(tm, s, m.directory[s.node].location)
        for key, p in params.items():
            actual = placement_from_scratch(p, tm)
            base = placement_from_scratch(p, m.token_map)
            composed = base.split(t for s in group for t in s.split)
            for s in group:
                composed = composed.apply(s.transitions.get(key, ()), "MID")
            cuts = sorted(set(actual.bounds) | set(composed.bounds))
            if refine(actual.bounds, actual.reads, cuts) != refine(
                composed.bounds, composed.reads, cuts
            ):
                return subset[0].node
    return None


# -- PREPARE_* -------------------------------------------------------------------------------


def prepare_join(m: Metadata, t: Mapping[str, Any]) -> Result:
    node = node_field(t)
    tokens = token_list(t)
    rec = m.directory.get(node)
    if rec is None:
        return Rejected(f"{node}: not registered")
    if (busy := _busy(m, node)) is not None:
        return busy
    if rec.state not in (NodeState.REGISTERED, NodeState.LEFT):
        return Rejected(f"{node}: cannot join from state {rec.state.value}")
    # PrepareJoin checks no tokens (StorageService does, before submitting); a token with
    # another owner cannot be represented in a token map, so that alone is refused.
    for token in tokens:
        owner = m.token_map.owner_of(token)
        if owner is not None and owner != node:
            return Rejected(f"{node}: token {token} is already owned by {owner}")
    return _prepare(
        m,
        kind=JOIN,
        node=node,
        target=m.token_map.with_tokens(node, tokens, rec.location),
        tokens=tokens,
        split=tokens,
        merge=(),
        replaced=None,
    )


def joined_count_violation(m: Metadata, node: str) -> Rejected | None:
    """PrepareLeave.validateReplicationForDecommission: per keyspace, the JOINED nodes of the
    leaving node's DC (NTS) or of the whole cluster (SimpleStrategy), the leaving node
    included, must be more than the RF."""
    dc = m.directory[node].dc
    joined = [r for r in m.directory.values() if r.state is NodeState.JOINED]
    for name in sorted(m.keyspaces):
        params = m.keyspaces[name].replication
        if params.strategy == SIMPLE:
            count, rf = len(joined), params.simple_rf
        else:
            count, rf = sum(1 for r in joined if r.dc == dc), params.dc_factors.get(dc, 0)
        if count <= rf:
            return Rejected(f"{node}: not enough live nodes to maintain replication factor {rf} "
                            f"of keyspace {name} ({count} JOINED)")
    return None


def rf_violation(m: Metadata, node: str) -> Rejected | None:
    """The fix `leave-counts-in-flight`: leaving/removing `node` must not leave its DC with
    fewer token owners than the DC's RF of any NTS keyspace, nor the cluster with fewer than any
    SimpleStrategy RF, counting the nodes already leaving as gone."""
    leaving = {s.node for s in m.sequences.values() if s.kind in (LEAVE, REMOVE)} | {node}
    dc = m.directory[node].dc
    counts: dict[str, int] = {}
    for n, (d, _) in m.token_map.locations.items():
        if n not in leaving:
            counts[d] = counts.get(d, 0) + 1
    for name in sorted(m.keyspaces):
        params = m.keyspaces[name].replication
        if params.strategy == SIMPLE:
            total, rf = sum(counts.values()), params.simple_rf
            if total < rf:
                return Rejected(
                    f"{node}: leaving would leave the cluster with {total} nodes, "
                    f"fewer than RF {rf} of keyspace {name}"
                )
            continue
        rf = params.dc_factors.get(dc, 0)
        if counts.get(dc, 0) < rf:
            return Rejected(
                f"{node}: leaving would leave {dc} with {counts.get(dc, 0)} nodes, "
                f"fewer than RF {rf} of keyspace {name}"
            )
    return None


def prepare_leave(m: Metadata, t: Mapping[str, Any]) -> Result:
    node = node_field(t)
    remove = t.get("remove", False)
    if not isinstance(remove, bool):
        raise Malformed("PREPARE_LEAVE: field 'remove' must be a boolean")
    force = t.get("force", False)
    if not isinstance(force, bool):
        raise Malformed("PREPARE_LEAVE: field 'force' must be a boolean")
    return _prepare_leave(m, node, remove, force=force)


def _prepare_leave(m: Metadata, node: str, remove: bool, *, force: bool = False) -> Result:
    """PrepareLeave.execute's order: CMS membership, JOINED, replication check, locks."""
    if node in m.cms.reads:  # isCMSMember is fullCMSMembers(): the read members
        return Rejected(f"{node}: is a CMS member; reconfigure the CMS without it first")
    rec = m.directory.get(node)
    if rec is None:
        return Rejected(f"{node}: not registered")
    if rec.state is not NodeState.JOINED:
        verb = "be removed" if remove else "leave"
        return Rejected(f"{node}: cannot {verb} from state {rec.state.value}")
    if (busy := _busy(m, node)) is not None:
        return busy
    if not force and (bad := joined_count_violation(m, node)) is not None:
        return bad
    old = m.token_map.tokens_of(node)
    return _prepare(
        m,
        kind=REMOVE if remove else LEAVE,
        node=node,
        target=m.token_map.without_node(node),
        tokens=old,
        split=(),
        merge=old,
        replaced=None,
    )


def prepare_move(m: Metadata, t: Mapping[str, Any]) -> Result:
    node = node_field(t)
    tokens = token_list(t)
    rec = m.directory.get(node)
    if rec is None:
        return Rejected(f"{node}: not registered")
    if (busy := _busy(m, node)) is not None:
        return busy
    if rec.state is not NodeState.JOINED:
        return Rejected(f"{node}: cannot move from state {rec.state.value}")
    for token in tokens:  # PrepareMove checks only locks; another owner is unrepresentable
        owner = m.token_map.owner_of(token)
        if owner is not None and owner != node:
            return Rejected(f"{node}: token {token} is already owned by {owner}")
    old = m.token_map.tokens_of(node)
    return _prepare(
        m,
        kind=MOVE,
        node=node,
        target=m.token_map.moved(node, tokens),
        tokens=tokens,
        split=tuple(x for x in tokens if x not in old),
        merge=tuple(x for x in old if x not in tokens),
        replaced=None,
    )


def prepare_replace(m: Metadata, t: Mapping[str, Any]) -> Result:
    node = node_field(t)
    replaced = node_field(t, "replaced")
    if node == replaced:
        raise Malformed("PREPARE_REPLACE: a node cannot replace itself")
    rec = m.directory.get(node)
    if rec is None:
        return Rejected(f"{node}: not registered")
    old = m.directory.get(replaced)
    if old is None:
        return Rejected(f"{node}: replaced node {replaced} is not registered")
    if (busy := _busy(m, node)) is not None:
        return busy
    if (busy := _busy(m, replaced)) is not None:
        return Rejected(f"{node}: cannot replace {replaced}: {busy.reason}")
    if rec.state is not NodeState.REGISTERED:
        return Rejected(f"{node}: cannot replace from state {rec.state.value}")
    if old.state is not NodeState.JOINED:
        return Rejected(f"{node}: cannot replace {replaced} in state {old.state.value}")
    # PrepareReplace checks the two states and the locks only: no DC check, no CMS check.
    return _prepare(
        m,
        kind=REPLACE,
        node=node,
        target=m.token_map.replaced(replaced, node, rec.location),
        tokens=m.token_map.tokens_of(replaced),
        split=(),
        merge=(),
        replaced=replaced,
    )


# -- START_* / MID_* / FINISH_* -----------------------------------------------------------------

START_STATES = {
    JOIN: NodeState.BOOTSTRAPPING,
    LEAVE: NodeState.LEAVING,
    REMOVE: NodeState.LEAVING,
    MOVE: NodeState.MOVING,
    REPLACE: NodeState.BOOT_REPLACING,
}
"""Cassandra's StartJoin/StartLeave/StartReplace set the node's state (a move's MOVING is set at
PREPARE_MOVE already, as PrepareMove.execute does)."""

CANCEL_STATES = {
    JOIN: NodeState.REGISTERED,
    REPLACE: NodeState.REGISTERED,
    MOVE: NodeState.JOINED,
    LEAVE: NodeState.JOINED,
    REMOVE: NodeState.JOINED,
}
"""The state each cancel leaves the node in (BootstrapAndJoin/BootstrapAndReplace.cancel:
REGISTERED, whatever it was at PREPARE; Move/UnbootstrapAndLeave.cancel: JOINED)."""

_KIND_OF_STEP = {"JOIN": (JOIN,), "LEAVE": (LEAVE, REMOVE), "MOVE": (MOVE,), "REPLACE": (REPLACE,)}


def step(m: Metadata, t: Mapping[str, Any]) -> Result:
    """START_X, MID_X, FINISH_X for X in JOIN, LEAVE, MOVE, REPLACE."""
    kind = str(t["kind"])
    step_name, op = kind.split("_", 1)
    node = node_field(t)
    seq = m.sequences.get(node)
    if seq is None or seq.kind not in _KIND_OF_STEP[op] or seq.next_step != step_name:
        return Rejected(f"{node}: {kind} out of order")
    if node not in m.directory:
        refused = _orphan_step(m, seq, kind, step_name)
        if refused is not None:
            return refused
    if step_name == "START":
        placements = _apply(m, seq, "START")
        nxt = evolve(seq, next_step="MID")
        directory = m.directory
        if node in directory:  # withForce: an id with no peer entry gets no visible state
            directory = {**m.directory, node: evolve(m.directory[node], state=START_STATES[seq.kind])}
        return Accepted(
            metadata=m.next(
                directory=directory, placements=placements, sequences={**m.sequences, node: nxt}
            ),
            kind=kind,
        )
    if step_name == "MID":
        placements = _apply(m, seq, "MID")
        for key, p in placements.items():
            if p is not m.placements[key] and not p.reads_within_writes():
                return Rejected(f"{node}: {kind} would add a read replica that is not a write replica")
        nxt = evolve(seq, next_step="FINISH")
        return Accepted(
            metadata=m.next(placements=placements, sequences={**m.sequences, node: nxt}),
            kind=kind,
        )
    return Accepted(metadata=_finish(m, seq), kind=kind)


def _orphan_step(m: Metadata, seq: Sequence, kind: str, step_name: str) -> Rejected | None:
    """A step of a sequence whose node was unregistered after its PREPARE (trunk 6bbe85ef).
    `Directory.withNodeState` is `states.withForce`, so the state write does not fail; what
    fails is FINISH's `Directory.withRackAndDC` (`locations.get(id)` is null), and any step
    that changes placements: `Transformer.build()` then sorts every replica group
    (`sorted_replica_groups_enabled`, default true) with `PrimaryRangeComparator`, and
    `directory.peerId` of the unregistered node's endpoint is null. Both are
    NullPointerExceptions out of the commit, modelled as refusals."""
    node = seq.node
    if step_name == "FINISH":
        return Rejected(f"{node}: {kind}: commit failed: Directory.withRackAndDC of a node with no "
                        f"directory entry (NullPointerException)")
    placements = _apply(m, seq, step_name)
    if any(not p.same_as(m.placements[key]) for key, p in placements.items()):
        return Rejected(f"{node}: {kind}: commit failed: Transformer.build() sorts the replica groups "
                        f"(sorted_replica_groups_enabled=true) and PrimaryRangeComparator finds no peer id "
                        f"for {node}, which has no directory entry (NullPointerException)")
    return None


def _apply(m: Metadata, seq: Sequence, step_name: str) -> dict[str, Placement]:
    placements = dict(m.placements)
    for key, entries in seq.transitions.items():
        if key in placements:
            placements[key] = placements[key].apply(entries, step_name)
    return placements


def _finish(m: Metadata, seq: Sequence) -> Metadata:
    placements = _apply(m, seq, "FINISH")
    node = seq.node
    directory = dict(m.directory)
    tm = m.token_map
    tm = target_of(tm, seq, directory[node].location)
    directory[node] = evolve(
        directory[node],
        state=NodeState.LEFT if seq.kind in (LEAVE, REMOVE) else NodeState.JOINED,
    )
    if seq.replaced is not None:  # FinishReplace: Transformer.replaced drops it from the directory
        directory.pop(seq.replaced, None)
    if seq.merge:
        for key in placements:
            placements[key] = placements[key].merge(seq.merge)
    sequences = {n: s for n, s in m.sequences.items() if n != node}
    return m.next(
        directory=directory,
        token_map=_interned(tm),
        placements=placements,
        sequences=sequences,
    )


# -- CANCEL_SEQUENCE -----------------------------------------------------------------------------


def cancel_sequence(m: Metadata, t: Mapping[str, Any]) -> Result:
    node = node_field(t)
    seq = m.sequences.get(node)
    if seq is None:
        return Rejected(f"{node}: no sequence in progress to cancel")
    placements = dict(m.placements)
    done = seq.steps_done()
    for key, entries in seq.transitions.items():
        if key not in placements:
            continue
        p = placements[key]
        for step_name in reversed(done):
            if step_name != "FINISH":
                p = p.apply(entries, step_name, undo=True)
        placements[key] = p
    if seq.split:
        for key in placements:
            placements[key] = placements[key].merge(seq.split)
    directory = dict(m.directory)
    if node in directory:  # withForce: no visible state for an id with no peer entry
        directory[node] = evolve(directory[node], state=CANCEL_STATES[seq.kind])
    sequences = {n: s for n, s in m.sequences.items() if n != node}
    return Accepted(
        metadata=m.next(directory=directory, placements=placements, sequences=sequences),
        kind="CANCEL_SEQUENCE",
    )


# -- one-epoch unsafe forms ----------------------------------------------------------------------


def _all_steps(m: Metadata, first: Result, op: str, kind: str) -> Result:
    if isinstance(first, Rejected):
        return first
    cur = first.metadata
    node = next(iter(set(cur.sequences) - set(m.sequences)))
    for step_name in STEPS:
        r = step(cur, {"kind": f"{step_name}_{op}", "node": node})
        if isinstance(r, Rejected):
            return r
        cur = r.metadata
    return Accepted(metadata=evolve(cur, epoch=m.epoch + 1, _digest=[]), kind=kind)


def unsafe_join(m: Metadata, t: Mapping[str, Any]) -> Result:
    """All four join steps in one epoch (Cassandra's UnsafeJoin); the same checks as a join."""
    return _all_steps(m, prepare_join(m, t), "JOIN", "UNSAFE_JOIN")


def assassinate(m: Metadata, t: Mapping[str, Any]) -> Result:
    """Cassandra's Assassinate: a PrepareLeave with force (CMS, JOINED, locks; no RF check), its
    steps folded into one epoch."""
    node = node_field(t)
    return _all_steps(m, _prepare_leave(m, node, True, force=True), "LEAVE", "ASSASSINATE")
