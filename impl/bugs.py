"""Known-bug switches ("mutants"): each plants one realistic TCM bug in impl/, off by default.

A switch is a frozen record (name, where it acts, the failure it should cause, the Cassandra
ticket when it is a real bug). A run turns switches on through `Settings.mutants` (a
scenario's `"mutants": [...]`, or `--mutant NAME` on simulate, replay and fuzz); the code
tests `on(settings, NAME)` at the one place the bug lives. Engine switches (the bug is in the
metadata rules) wrap the metadata engine instead (`MutantEngine`, `mutant_execute`), so they act
in `refine` runs too. `tcmcheck mutants` runs a campaign per switch (campaign/mutants.py).

Nothing here is global: a switch is data carried by the run's settings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

if TYPE_CHECKING:
    from impl.settings import Settings


@frozen(kw_only=True)
class Mutant:
    name: str
    description: str
    failure: str
    """What the harness should report: the checker or cause class expected to catch it."""
    ticket: str = ""
    """The Cassandra ticket when this is a real TCM bug ("" for a plausible, unticketed bug)."""
    engine: bool = False
    """True when the bug is in the metadata rules (the engine), False when in the node code."""
    liveness: bool = False
    focus: str = "ops"
    """The generator bias `tcmcheck mutants` uses: ops (node-driven operations under a client
    load), cms (CMS churn: crashes, reconfiguration, schema races), refine (metadata only)."""


REGISTRY: tuple[Mutant, ...] = (
    Mutant(name="reject-create-table", engine=True, focus="refine",
           description="impl refuses every CREATE TABLE",
           failure="refine: spec accepts, impl rejects; sim: a rejection the spec does not justify"),
    Mutant(name="tokens-at-start-join", engine=True, focus="refine", ticket="CASSANDRA-18419",
           description="START_JOIN puts the joining node's tokens into the token map (they belong "
                       "there only at FINISH_JOIN)",
           failure="refine: spec and impl disagree on node tokens; sim: node metadata differs from the spec"),
    Mutant(name="locked-ranges-miss-wraparound", engine=True, focus="refine", ticket="CASSANDRA-19262",
           description="LockedRanges compares locked ranges with Range.intersects alone, so two "
                       "ranges that both touch the minimum token (the two halves of the range that "
                       "wraps around the ring) are not seen to conflict: a second operation over the "
                       "wrapping range is prepared while the first still holds it",
           failure="refine: spec rejects a PREPARE (range lock conflict) that impl accepts; sim: a "
                   "commit the spec refuses"),
    Mutant(name="no-progress-barrier",
           description="an operation takes its next step without waiting for the progress barrier",
           failure="clients: a read misses an acknowledged write (stale placements on replicas)"),
    Mutant(name="barrier-at-one",
           description="the progress barrier is satisfied by ONE replica of each range",
           failure="clients: a read misses an acknowledged write"),
    Mutant(name="barrier-new-replicas-only",
           description="the barrier asks only the replicas the operation adds to each range (the new "
                       "replicas, its placement deltas), not the range's current ones",
           failure="clients: a read misses an acknowledged write"),
    Mutant(name="replica-skips-epoch-check",
           description="replicas serve reads and writes without comparing the coordinator's epoch "
                       "with theirs (no wait, no routing or coordinator-behind check)",
           failure="clients: a read misses an acknowledged write"),
    Mutant(name="replica-ignores-last-modified",
           description="replicas accept a coordinator whose epoch is older than the range's "
                       "last modification (no COORDINATOR_BEHIND)",
           failure="clients: a read misses an acknowledged write"),
    Mutant(name="coordinator-skips-revalidation",
           description="a coordinator answers without re-checking its plan against a newer epoch "
                       "seen in the responses (ReplicaPlan.stillAppliesTo)",
           failure="clients: a read misses an acknowledged write"),
    Mutant(name="mid-drops-old-write-replicas",
           description="after MID a coordinator writes only to the new read replicas, dropping the "
                       "old write replicas before FINISH",
           failure="clients: a read misses an acknowledged write (after a cancel or at a lagging reader)"),
    Mutant(name="pending-not-in-blockfor",
           description="a write's blockFor leaves out the pending replicas",
           failure="clients: a read misses an acknowledged write"),
    Mutant(name="stream-from-non-replica",
           description="streaming takes data from a node that is not a current read replica of "
                       "the range (a new replica, which holds nothing)",
           failure="clients: a read misses an acknowledged write after the operation finishes"),
    Mutant(name="read-repair-skipped",
           description="a read answers without the blocking read repair of its resolved value",
           failure="clients: a value seen by one read is missing from a later one"),
    Mutant(name="paxos-accept-without-promise-quorum",
           description="a CMS proposer sends Accept after the first promise instead of a quorum",
           failure="conflict: one epoch holds two entries; logs: prefix/agreement violation"),
    Mutant(name="paxos-ignores-accepted-value",
           description="phase 2 proposes its own value even when a promise carries an accepted one",
           failure="conflict: one epoch holds two entries"),
    Mutant(name="submit-retry-new-entry-id",
           description="the submitter retries a commit under a fresh entry id (no idempotency)",
           failure="logs: duplicate-entry-id (one request committed twice)"),
    Mutant(name="catchup-trusts-lagging-peer", focus="cms", liveness=True,
           description="a log fetch answered by a peer that is itself behind is taken as complete: "
                       "the epoch asked for counts as fetched, so later messages revealing it (or "
                       "anything below) start no fetch and the node stays behind until a newer "
                       "epoch appears (a first fetch goes to the peer that revealed the epoch, which "
                       "holds it; a lagging peer is met on a retry against a CMS member)",
           failure="liveness: a live node stops applying committed entries (behind at a quiet end)"),
    Mutant(name="rejected-commit-no-catchup", ticket="CASSANDRA-19260", liveness=True,
           description="a commit rejected by a CMS member that is ahead does not catch the "
                       "submitter up; the operation decides on its stale metadata",
           failure="liveness: operation abandoned (a restarted node resubmits a step the CMS "
                   "committed while it was down, and fails on the rejection with its sequence left "
                   "in the metadata)"),
    Mutant(name="decommission-shrinks-cms", focus="cms", ticket="CASSANDRA-18416", liveness=True,
           description="a CMS member that leaves the ring is not replaced: it keeps its seat in the "
                       "sizing policy's count, so the CMS works with fewer members than the policy "
                       "wants (reachable here through a replaced member: PrepareLeave refuses a CMS "
                       "member and the model's operations do not reconfigure the CMS first)",
           failure="liveness: CMS undersized (fewer joined members than the policy) at the end of a quiet run"),
    Mutant(name="cms-reconfig-chooses-down-nodes", focus="cms", ticket="CASSANDRA-19943", liveness=True,
           description="the sizing policy chooses new CMS members without looking at who is down "
                       "(the fix leaves the failure detector's down nodes out)",
           failure="liveness: CMS reconfiguration never completes (it streams the log to a down "
                   "node for ever): CMS undersized while nothing commits"),
    Mutant(name="discovery-never-resets-unchanged-rounds", focus="cms", ticket="CASSANDRA-19153",
           description="a new cluster's Discovery counts unchanged rounds without resetting the "
                       "count when a round discovers a node, so it ends at the timeout with a "
                       "partial view; a node that has not yet discovered a lower id nominates "
                       "itself and initializes a second CMS",
           failure="conflict: epoch 1 holds two INITIALIZE_CMS entries (two CMSs)"),
    Mutant(name="apply-failure-stalls", focus="cms", liveness=True,
           description="a transient failure applying an entry (injected once per node on each "
                       "10th epoch) is retried forever instead of once: the follower stops",
           failure="liveness: a live node stops applying committed entries"),
    Mutant(name="removenode-nothing-to-stream-hangs", liveness=True,
           description="a range with nothing to stream from (removenode of the only replica, RF 1) "
                       "is planned as a transfer from the removed node itself, which never answers",
           failure="liveness: an operation whose barrier could be met never finishes"),
    Mutant(name="forced-snapshot-last-modified-ahead", focus="cms", ticket="CASSANDRA-19538",
           description="a node that installs a snapshot (a forced epoch: Cassandra applies it as a "
                       "ForceSnapshot) records the placements it changed as last modified at the "
                       "epoch after the snapshot's, so its per-range last-modified epochs sit above "
                       "its own epoch and it refuses coordinators at that epoch as behind",
           failure="holdings: a node holds a placement last modified above its epoch (at the install)"),
    Mutant(name="snapshot-install-stale", focus="cms",
           description="a far-behind node installs the snapshot one interval older than the one "
                       "served, and takes it as the served epoch",
           failure="node metadata differs from the spec's replay at the node's epoch"),
)

BY_NAME: dict[str, Mutant] = {m.name: m for m in REGISTRY}
NAMES: tuple[str, ...] = tuple(m.name for m in REGISTRY)


def check_names(names: Iterable[str]) -> frozenset[str]:
    """The names as a set; ValueError naming the first unknown one."""
    out = frozenset(names)
    for n in sorted(out):
        if n not in BY_NAME:
            raise ValueError(f"unknown mutant {n!r} (known: {', '.join(NAMES)})")
    return out


def on(settings: Settings, name: str) -> bool:
    """Whether switch `name` is on in this run (a typo here is a programming error)."""
    assert name in BY_NAME, name
    return name in settings.mutants


# ---------------------------------------------------------------- engine switches


def mutant_execute(execute: Callable[[Any, dict[str, Any]], Any],
                   mutants: frozenset[str]) -> Callable[[Any, dict[str, Any]], Any]:
    """impl.metadata's `execute` with the engine switches among `mutants` planted."""
    engine_on = sorted(m for m in mutants if BY_NAME[m].engine)
    if not engine_on:
        return execute
    from impl.metadata import Accepted
    from impl.metadata import Rejected as ImplRejected

    def mutated(metadata: Any, t: dict[str, Any]) -> Any:
        if "reject-create-table" in engine_on and t.get("kind") == "SCHEMA_CHANGE" \
                and t.get("change", {}).get("op") == "CREATE_TABLE":
            return ImplRejected("mutant: CREATE TABLE refused")
        result = execute(metadata, t)
        if "locked-ranges-miss-wraparound" in engine_on and isinstance(result, ImplRejected) \
                and "range lock conflict" in result.reason:
            result = _without_wraparound_conflicts(execute, metadata, t, result)
        if "tokens-at-start-join" in engine_on and t.get("kind") == "START_JOIN" \
                and isinstance(result, Accepted):
            # CASSANDRA-18419: the joining node's tokens entered the token map at START
            from impl.metadata.sequences import target_of

            node = str(t.get("node"))
            seq = metadata.sequences.get(node)
            m = result.metadata
            if seq is not None and node in m.directory:
                m = evolve(m, token_map=target_of(m.token_map, seq, m.directory[node].location))
                result = Accepted(metadata=m, kind=result.kind)
        return result

    return mutated


def _without_wraparound_conflicts(execute: Callable[[Any, dict[str, Any]], Any], metadata: Any,
                                  t: dict[str, Any], rejected: Any) -> Any:
    """CASSANDRA-19262: the PREPARE as Cassandra decided it before the fix, where a lock
    conflict counted only when Range.intersects said so (impl's `_intersects` also counts two
    ranges that both touch the minimum token). The PREPARE is re-run without the other
    sequences (its checks before the lock check passed already), and accepted, with them put
    back, when none of their locks intersects its own in the plain sense."""
    from impl.metadata import Accepted
    from spec.tokens import Range

    alone = execute(evolve(metadata, sequences={}), t)
    if not isinstance(alone, Accepted):
        return rejected
    mine = next(iter(alone.metadata.sequences.values()))
    for other in metadata.sequences.values():
        for key, ranges in mine.locked.items():
            theirs = other.locked.get(key, ())
            if any(Range(a, b).intersects(Range(c, d)) for a, b in ranges for c, d in theirs):
                return rejected
    m = evolve(alone.metadata, sequences={**metadata.sequences, **alone.metadata.sequences})
    return Accepted(metadata=m, kind=alone.kind)


class MutantEngine:
    """The metadata engine (with any proposed fixes) with the engine switches planted."""

    def __init__(self, mutants: frozenset[str], fixes: frozenset[str] = frozenset()) -> None:
        from impl.engine import MetadataEngine

        self._real = MetadataEngine()
        if fixes:
            from impl.metadata.fixes import execute as fixed

            base: Callable[[Any, dict[str, Any]], Any] = lambda m, t: fixed(m, t, fixes)  # noqa: E731
        else:
            base = self._real.execute
        self._execute = mutant_execute(base, mutants)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def execute(self, metadata: Any, transformation: dict[str, Any]) -> Any:
        return self._execute(metadata, transformation)


__all__ = ["BY_NAME", "NAMES", "REGISTRY", "Mutant", "MutantEngine", "check_names", "mutant_execute", "on"]
