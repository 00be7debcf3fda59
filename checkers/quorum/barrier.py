"""The progress barrier: a coordinator lagging any number of epochs cannot miss the newest quorum.

The CEP closes "Catching Up" with: *for any range and any majority of nodes that currently
replicate or have previously replicated it, a coordinator that is lagging behind by an arbitrary
number of epochs, will not be able to collect a quorum for read or write that is inconsistent
with a quorum obtained using metadata that is up to date with the latest epoch affecting
replication of that range.* This module proves that statement (or finds the counterexample)
for every range of every keyspace of a history.

Model. Per piece of the common refinement of all epochs' range boundaries, the history of the
piece is a sequence of *versions* v_0 … v_n: maximal runs of epochs with the same replication
parameters, read group and write group. Every node has a knowledge level: the newest version it
has seen. Then, for a stale version i and a newest version m > i:

1. Progress barrier. Version j+1 was committed only after a barrier-CL quorum of the affected
   replicas of v_j (its read group ∪ write group; Cassandra's `ProgressBarrier` counts over
   these replicas themselves) acknowledged v_j, i.e. know ≥ j. This holds for every j < m.
   (Assumption: every change of a range's groups is a step guarded by a barrier, as join,
   leave, move and replace steps are; a barrier on an epoch that does not change the range is
   a barrier on the version that epoch belongs to.)
2. Catch-up. Every message carries the sender's epoch, so a replica that knows a version newer
   than i reveals it to the stale coordinator, which catches up and fails or re-plans the
   request. A stale request therefore *completes at version i* only if every replica in its
   quorum knows no version newer than i.
3. Conflict. The stale quorum (valid at v_i under its CL) and a quorum taken at v_m (valid there
   under the other CL) share no replica: a read at i vs a write at m, or a write at i vs a read
   at m.

The theorem holds for the range when 1 ∧ 2 ∧ 3 is unsatisfiable for every i < m ≤ n. Barrier
constraints for j < i are dropped: they only ask for knowledge ≥ j, which the stale replicas
(knowledge i) and everyone else can give. Lag 0 (i = m) is the ordinary same-epoch check.

Encoding (z3, exact, over classes of interchangeable nodes as in `z3prover`). Nodes are grouped
by membership in every set involved (the stale rule's group and requirement populations, the
fresh rule's, and each barrier's). Levels are i, i+1, …, m, where level i stands for "knows
nothing newer than v_i". Per class c of size N_c:

    n[c,l] >= 0, sum over l of n[c,l] = N_c          nodes of c at knowledge level l
    0 <= s[c] <= n[c,i]  (0 if c is not in the stale group)     stale quorum: only level-i nodes
    0 <= f[c] <= N_c - s[c]  (0 if c is not in the fresh group) fresh quorum, disjoint from it
    0 <= b[j,c] <= sum over l >= j of n[c,l]  (0 if c is not affected at v_j)  barrier j acks
    every requirement (among, k) of each rule:  sum of its variables over classes in among >= k

A model fills each class deterministically (ids sorted): the first n[c,i] nodes at level i, the
next at i+1, and so on; the stale quorum is the first s[c] nodes, the fresh quorum and the
barrier quorums are taken from the end of the class, so all constraints hold concretely.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from attrs import frozen

from checkers.quorum.cms import check_cms
from checkers.quorum.levels import QuorumRule, barrier_rule, read_rule, write_rule
from checkers.quorum.linear import LinearProblem
from checkers.quorum.model import History, KeyspacePlacement, RangeGroups, ReplicationParams
from checkers.quorum.pairs import coordinator_dcs
from checkers.quorum.search import Signature, Witness, node_classes, shrink_counts
from checkers.quorum.verdict import (
    STALE_COORDINATOR,
    Counterexample,
    Verdict,
    verdict_of,
)
from checkers.quorum.z3prover import Z3Search
from spec.consistency import ConsistencyLevel
from spec.tokens import Range, ring_ranges


@frozen(kw_only=True)
class Version:
    """A maximal run of epochs in which one range keeps its parameters and groups."""

    first_epoch: int
    params: ReplicationParams
    reads: frozenset[str]
    writes: frozenset[str]

    def same_groups(self, other: Version) -> bool:
        return (self.params, self.reads, self.writes) == (other.params, other.reads, other.writes)


@frozen(kw_only=True)
class StaleWitness:
    """Disjoint stale and fresh quorums, and the knowledge level of every replica involved.

    A level is an offset from the stale version (0: knows nothing newer than it), for every node
    of any group or barrier in the problem, so the barriers can be re-checked from the witness.
    """

    stale: tuple[str, ...]
    fresh: tuple[str, ...]
    knowledge: tuple[tuple[str, int], ...]


BarrierKey = tuple[
    tuple[tuple[Signature, int], ...],  # classes: signature, size
    tuple[int, ...],  # stale rule's requirement counts
    tuple[int, ...],  # fresh rule's requirement counts
    tuple[tuple[int, ...], ...],  # each barrier's requirement counts
]
# per class: nodes per knowledge level; stale members; fresh members
BarrierCounts = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]


def solve_stale(key: BarrierKey) -> BarrierCounts | None | str:
    """The abstract problem of the module docstring; None when unsatisfiable, or "unknown"."""
    classes, stale_counts, fresh_counts, barrier_counts = key
    fresh_at = 1 + len(stale_counts)
    barrier_at: list[int] = []
    at = fresh_at + 1 + len(fresh_counts)
    for counts in barrier_counts:
        barrier_at.append(at)
        at += 1 + len(counts)
    levels = len(barrier_counts) + 1
    p = LinearProblem()
    n = [[p.var(f"n{c}_{lv}", size) for lv in range(levels)] for c, (_, size) in enumerate(classes)]
    s = [p.var(f"s{c}", n[c][0] if sig[0] else 0) for c, (sig, _) in enumerate(classes)]
    f = [p.var(f"f{c}", size if sig[fresh_at] else 0) for c, (sig, size) in enumerate(classes)]
    for c, (_, size) in enumerate(classes):
        p.equal(n[c], size)
        p.at_most([s[c], f[c]], size)
    acks = [[p.var(f"b{j}_{c}", LinearProblem.total(n[c][j:]) if sig[at_j] else 0)
             for c, (sig, _) in enumerate(classes)] for j, at_j in enumerate(barrier_at)]

    def require(vars_: list[str], first: int, counts: tuple[int, ...]) -> None:
        for k, need in enumerate(counts):
            p.at_least([v for (sig, _), v in zip(classes, vars_, strict=True) if sig[first + k]], need)

    require(s, 1, stale_counts)
    require(f, fresh_at + 1, fresh_counts)
    for j, at_j in enumerate(barrier_at):
        require(acks[j], at_j + 1, barrier_counts[j])
    values = p.solve()
    if values is None or isinstance(values, str):
        return values
    sizes = [(sig, size) for sig, size in classes]
    stale = shrink_counts([values[x] for x in s], sizes, [(1 + k, need) for k, need in enumerate(stale_counts)])
    fresh = shrink_counts([values[x] for x in f], sizes,
                          [(fresh_at + 1 + k, need) for k, need in enumerate(fresh_counts)])
    per_level = tuple(tuple(values[x] for x in row) for row in n)
    return per_level, tuple(stale), tuple(fresh)


class StaleSearch:
    """Solves (stale, fresh, barriers) problems, memoised concretely and on the abstract key."""

    def __init__(self, *, cache: bool = True) -> None:
        self.cache = cache
        self.calls = 0
        self._pairs = Z3Search(cache=cache)
        self._concrete: dict[tuple[QuorumRule, QuorumRule, tuple[QuorumRule, ...]], StaleWitness | None | str] = {}
        self._abstract: dict[BarrierKey, BarrierCounts | None | str] = {}

    def __call__(self, stale: QuorumRule, fresh: QuorumRule, barriers: Sequence[QuorumRule]) -> StaleWitness | None | str:
        """Solve one (i, m) problem; `barriers[k]` is the barrier on version i + k (k < m - i).

        Knowledge levels in the witness are offsets from i (0 = knows nothing newer than v_i).
        Returns None when unsatisfiable (the theorem holds for this pair), or "unknown".
        """
        concrete = (stale, fresh, tuple(barriers))
        if self.cache and concrete in self._concrete:
            return self._concrete[concrete]
        outcome = self._search(stale, fresh, barriers)
        if self.cache:
            self._concrete[concrete] = outcome
        return outcome

    def _search(self, stale: QuorumRule, fresh: QuorumRule, barriers: Sequence[QuorumRule]) -> StaleWitness | None | str:
        if self._pairs(stale, fresh) is None:
            return None  # the quorums always intersect: no knowledge can make them miss
        sets: list[frozenset[str]] = [stale.group, *(r.among for r in stale.requirements),
                                      fresh.group, *(r.among for r in fresh.requirements)]
        for b in barriers:
            sets.extend([b.group, *(r.among for r in b.requirements)])
        classes = node_classes(sets)
        key: BarrierKey = (
            tuple((sig, len(nodes)) for sig, nodes in classes),
            tuple(r.count for r in stale.requirements),
            tuple(r.count for r in fresh.requirements),
            tuple(tuple(r.count for r in b.requirements) for b in barriers),
        )
        if self.cache and key in self._abstract:
            counts = self._abstract[key]
        else:
            self.calls += 1
            counts = solve_stale(key)
            if self.cache:
                self._abstract[key] = counts
        if counts is None or isinstance(counts, str):
            return counts
        per_level, stale_n, fresh_n = counts
        stale_q: list[str] = []
        fresh_q: list[str] = []
        level_of: dict[str, int] = {}
        for c, (_, nodes) in enumerate(classes):
            at = 0
            for lv, count in enumerate(per_level[c]):
                for node in nodes[at:at + count]:
                    level_of[node] = lv
                at += count
            stale_q.extend(nodes[:stale_n[c]])  # the first nodes are the level-0 ones
            fresh_q.extend(nodes[len(nodes) - fresh_n[c]:] if fresh_n[c] else ())
        return StaleWitness(stale=tuple(sorted(stale_q)), fresh=tuple(sorted(fresh_q)),
                            knowledge=tuple(sorted(level_of.items())))


def stale_conflict(stale: QuorumRule, fresh: QuorumRule, barriers: Sequence[QuorumRule]) -> StaleWitness | None | str:
    """One (i, m) problem, uncached: see `StaleSearch.__call__`."""
    return StaleSearch(cache=False)(stale, fresh, barriers)


def versions(placements: Sequence[tuple[int, KeyspacePlacement]], token: int) -> tuple[Version, ...]:
    """The versions of the range holding `token`, over `(epoch, placement)` in epoch order."""
    out: list[Version] = []
    for epoch, ks in placements:
        g: RangeGroups = ks.at_token(token)
        v = Version(first_epoch=epoch, params=ks.replication, reads=g.reads, writes=g.writes)
        if not out or not out[-1].same_groups(v):
            out.append(v)
    return tuple(out)


def prove_barrier(
    history: History,
    *,
    read_cl: ConsistencyLevel = ConsistencyLevel.QUORUM,
    write_cl: ConsistencyLevel = ConsistencyLevel.QUORUM,
    barrier_cl: ConsistencyLevel = ConsistencyLevel.EACH_QUORUM,
    read_dc: str | None = None,
    write_dc: str | None = None,
    window: int = 1,
) -> Verdict:
    """Prove the closing theorem of "Catching Up" for every range of every keyspace.

    Counterexamples with `read_epoch != write_epoch` carry the `knowledge` (epoch each shown
    replica has seen) that lets the stale request complete. The CMS read/write sets are checked
    pairwise within `window`, as in `z3prover.prove_history`. A LOCAL_* barrier counts in the
    read coordinator's DC.
    """
    combos = coordinator_dcs(history, read_cl, write_cl, read_dc, write_dc)
    dc_of = history.dc_map()
    names = sorted({name for e in history.epochs for name in e.keyspace_names()})
    found: list[Counterexample] = []
    checked = 0
    unknown = False
    search = Z3Search()
    stale_search = StaleSearch()
    memo: dict[tuple[tuple[Version, ...], str | None, str | None, _Waits], list[_Result]] = {}

    def rules_at(v: Version, rdc: str | None, wdc: str | None) -> tuple[QuorumRule, QuorumRule]:
        return (read_rule(read_cl, v.params, v.reads, dc_of, rdc),
                write_rule(write_cl, v.params, v.reads, v.writes, dc_of, wdc))

    for name in names:
        placements = [(e.epoch, ks) for e in history.epochs if (ks := e.keyspace(name)) is not None]
        cuts = {t for _, ks in placements for t in ks.rights}
        for piece in ring_ranges(tuple(cuts)):
            vs = versions(placements, piece.right)
            waits = _barrier_populations(history, name, piece, vs)
            for rdc, wdc in combos:
                key = (tuple(Version(first_epoch=0, params=v.params, reads=v.reads, writes=v.writes) for v in vs),
                       rdc, wdc, waits)
                results = memo.get(key)
                if results is None:
                    results = memo[key] = _range_results(vs, rdc, wdc, rules_at, barrier_cl, dc_of, search,
                                                         stale_search, waits)
                checked += _obligations(len(vs))
                for i, m, stale_reads, outcome in results:
                    if outcome == "unknown":
                        unknown = True
                        continue
                    found.append(_counterexample(name, piece, vs, i, m, stale_reads, outcome, rdc, wdc))
                if results:
                    break  # one DC pair's failures are enough for this piece
    cms_checked, cms_found, cms_unknown = check_cms(history, window, search)
    checked += cms_checked
    found.extend(cms_found)
    unknown = unknown or cms_unknown
    return verdict_of(found, checked=checked, solver_calls=search.calls + stale_search.calls, unknown=unknown,
                      across_epochs_cause=STALE_COORDINATOR)


_Waits = tuple[tuple[frozenset[str], ...], ...] | None
"""Per version j < last, the participant sets (one per locked range) of the barrier before
version j + 1; None: the history names no barriers, so each waits for v_j's reads and writes."""


def _barrier_populations(history: History, keyspace: str, piece: Range, vs: Sequence[Version]) -> _Waits:
    """Cassandra's barriers as this piece sees them: before the step that made version j + 1,
    the barrier's locked ranges of this keyspace that contain the piece, each with the replicas
    it waits for (see `checkers.quorum.from_spec.step_barriers`). No barrier: no requirement."""
    if history.barriers is None:
        return None
    out: list[tuple[frozenset[str], ...]] = []
    for v in vs[1:]:
        step = history.barrier_at(v.first_epoch)
        sets = () if step is None else tuple(
            b.participants for b in step.ranges if b.keyspace == keyspace and b.range.contains(piece))
        out.append(tuple(sorted(set(sets), key=sorted)))
    return tuple(out)


def _merged_barrier(cl: ConsistencyLevel, populations: tuple[frozenset[str], ...], dc_of: Mapping[str, str],
                    coordinator_dc: str | None) -> QuorumRule:
    """One rule for all of a step's barriers on a piece: every locked range's CL must be met."""
    rules = [barrier_rule(cl, p, dc_of, coordinator_dc) for p in populations if p]
    group = frozenset().union(*(r.group for r in rules)) if rules else frozenset()
    return QuorumRule(group=group, requirements=tuple(req for r in rules for req in r.requirements))


def _obligations(n_versions: int) -> int:
    """Same-version checks (one per version) plus two directions per stale/newest pair."""
    return n_versions + n_versions * (n_versions - 1)


_Result = tuple[int, int, bool, "Witness | StaleWitness | str"]


def _range_results(
    vs: Sequence[Version],
    rdc: str | None,
    wdc: str | None,
    rules_at: Callable[[Version, str | None, str | None], tuple[QuorumRule, QuorumRule]],
    barrier_cl: ConsistencyLevel,
    dc_of: Mapping[str, str],
    search: Z3Search,
    stale_search: StaleSearch,
    waits: _Waits = None,
) -> list[_Result]:
    """Every failing (stale i, newest m, stale side reads?, witness) of one range's versions."""
    results: list[_Result] = []
    rules = [rules_at(v, rdc, wdc) for v in vs]
    if waits is None:
        barriers = [barrier_rule(barrier_cl, v.reads | v.writes, dc_of, rdc) for v in vs]
    else:
        barriers = [_merged_barrier(barrier_cl, w, dc_of, rdc) for w in waits]
    for m in range(len(vs)):
        same = search(rules[m][0], rules[m][1])
        if same is not None:
            results.append((m, m, True, same))
        for i in range(m):
            for stale_reads in (True, False):
                stale = rules[i][0] if stale_reads else rules[i][1]
                fresh = rules[m][1] if stale_reads else rules[m][0]
                conflict = stale_search(stale, fresh, barriers[i:m])
                if conflict is not None:
                    results.append((i, m, stale_reads, conflict))
    return results


def _counterexample(name: str, piece: Range, vs: Sequence[Version], i: int, m: int, stale_reads: bool,
                    outcome: Witness | StaleWitness | str, rdc: str | None, wdc: str | None) -> Counterexample:
    if isinstance(outcome, Witness):  # same version: an ordinary disjoint pair
        return Counterexample(keyspace=name, range=piece, read_epoch=vs[m].first_epoch,
                              write_epoch=vs[m].first_epoch, read_quorum=outcome.read_quorum,
                              write_quorum=outcome.write_quorum, read_dc=rdc, write_dc=wdc)
    assert isinstance(outcome, StaleWitness)
    knowledge = tuple((node, vs[i + lv].first_epoch) for node, lv in outcome.knowledge)
    stale_epoch, fresh_epoch = vs[i].first_epoch, vs[m].first_epoch
    if stale_reads:
        return Counterexample(keyspace=name, range=piece, read_epoch=stale_epoch, write_epoch=fresh_epoch,
                              read_quorum=outcome.stale, write_quorum=outcome.fresh, read_dc=rdc,
                              write_dc=wdc, knowledge=knowledge)
    return Counterexample(keyspace=name, range=piece, read_epoch=fresh_epoch, write_epoch=stale_epoch,
                          read_quorum=outcome.fresh, write_quorum=outcome.stale, read_dc=rdc,
                          write_dc=wdc, knowledge=knowledge)
