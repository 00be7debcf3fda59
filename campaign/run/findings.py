"""Findings the harness has made and reported: places where Cassandra's rules, which spec/ and
impl/ follow, let an invariant break (docs/findings.md has each one in full).

A campaign still runs and records every failing run; a failure whose cause class
(`Cause.klass`, campaign/run/cause.py) is listed here is reported apart as a known finding
instead of failing the campaign, so that a new bug stands out. `tcmcheck fuzz --strict` fails on known findings too. Each finding names its proposed fix
(spec/fixes.py, impl/metadata/fixes.py, the prover's barrier mode), which `--fix NAME` turns on.
Remove an entry when the behaviour it describes is changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import frozen

from campaign.run.cause import (
    LOST_BY_SINGLE_SOURCE,
    RELAXED_BARRIER,
    SINGLE_SOURCE_LOSS,
    STALE_COORDINATOR_READ,
    clients,
)


@frozen(kw_only=True)
class KnownFinding:
    id: str
    cause_classes: tuple[str, ...]
    """The `Cause.klass` of the failures it explains (one per way a run shows it)."""
    summary: str
    replay: str
    """The smallest counterexample, as one command (failure files in examples/findings/ hold
    their case, so they do not depend on the generator)."""
    fix: str
    """The proposed fix's name (`--fix NAME`)."""


KNOWN_FINDINGS: tuple[KnownFinding, ...] = (
    KnownFinding(
        id="cancel-after-mid",
        cause_classes=("quorum: disjoint-across-epochs (across CANCEL_SEQUENCE)",),
        summary=(
            "CANCEL_SEQUENCE after MID moves reads back and narrows writes in one epoch (as "
            "Cassandra's BootstrapAndJoin.cancel / revertPlacements does), so a read quorum at "
            "the MID epoch and a write quorum at the cancel epoch can be disjoint: with RF 1, "
            "join X until MID then cancel reads {X} at epoch 4 and writes {A} at epoch 5. "
            "Fix two-epoch-cancel: reads back first, writes narrowed in the next epoch."
        ),
        replay="tcmcheck replay --kind refine --seed 41",
        fix="two-epoch-cancel",
    ),
    KnownFinding(
        id="nts-rack-composition",
        cause_classes=("invariant at_rest_matches_from_scratch",),
        summary=(
            "Two sequences on disjoint locked ranges (UniformRangePlacement.planFor* computes each "
            "plan against the ring of its PREPARE; nothing checks that the deltas compose) end off "
            "the natural placement under NetworkTopologyStrategy's rack rule: join X@161 (rack r3) "
            "and move n5->5 both complete and the at-rest placements differ from scratch. "
            "Fix composition-guard: refuse a PREPARE whose deltas do not compose with those in flight."
        ),
        replay="tcmcheck replay examples/findings/nts-rack-composition.json",
        fix="composition-guard",
    ),
    KnownFinding(
        id="unregister-prepared-join",
        cause_classes=("invariant sequences_name_registered_nodes",),
        summary=(
            "Cassandra's Unregister checks only the node's state (REGISTERED or LEFT), and a node "
            "whose join is prepared is still REGISTERED (StartJoin sets BOOTSTRAPPING): unregistering "
            "it leaves a sequence and a range lock for a node the directory no longer has, which "
            "StartJoin cannot apply; the lock stays until a cancel. Fix unregister-idle-only."
        ),
        replay="tcmcheck replay examples/findings/unregister-prepared-join.json",
        fix="unregister-idle-only",
    ),
    KnownFinding(
        id="replace-cms-member",
        cause_classes=("invariant cms_is_consistent",),
        summary=(
            "PrepareReplace has no CMS check and FinishReplace removes the replaced node from the "
            "directory: replacing a CMS member through the transformations alone leaves a CMS "
            "member that is not in the directory (Cassandra's node-driven path reconfigures the CMS "
            "first; a racing or direct submission does not). Fix replace-cms-member-guard."
        ),
        replay="tcmcheck replay examples/findings/replace-cms-member.json",
        fix="replace-cms-member-guard",
    ),
    KnownFinding(
        id="cross-dc-replace",
        cause_classes=("invariant reads_have_replication_factor",),
        summary=(
            "PrepareReplace has no DC check: a replacement in another DC takes the replaced node's "
            "tokens, so the old DC loses a node without PrepareLeave's replication check and its "
            "ranges get fewer read replicas there than its RF (even below RF for good). "
            "Fix replace-same-dc: the replacement must be in the replaced node's DC."
        ),
        replay="tcmcheck replay examples/findings/cross-dc-replace.json",
        fix="replace-same-dc",
    ),
    KnownFinding(
        id="remove-replace-single-source",
        cause_classes=(clients(SINGLE_SOURCE_LOSS).klass, LOST_BY_SINGLE_SOURCE),
        summary=(
            "Removenode and replace stream each range the new replica gains from ONE remaining "
            "replica (RemoveNodeStreams.movementMap + DataMovementVerbHandler: the first live full "
            "replica; BootstrapAndReplace.movementMap + RangeStreamer: the first source, 'no "
            "potential for strict movements when replacing'), and from nobody when the removed "
            "node was the only replica (RF 1). A write acknowledged by the removed/replaced node and "
            "replicas other than that source is missing on the new replica, so later reads miss "
            "it until hints or a repair bring it there (stale); it is lost for good only where no "
            "replica is left (RF 1: 'durability: lost by a single-source stream'). Cassandra's "
            "answer: repair afterwards. Fix stream-from-all-replicas."
        ),
        replay="tcmcheck replay examples/findings/remove-replace-single-source.json",
        fix="stream-from-all-replicas",
    ),
    KnownFinding(
        id="relaxed-progress-barrier",
        cause_classes=(clients(RELAXED_BARRIER).klass,),
        summary=(
            "With progress_barrier_min_consistency_level set below its default EACH_QUORUM, "
            "ProgressBarrier.await relaxes its level each progress_barrier_timeout (EACH_QUORUM -> "
            "QUORUM -> LOCAL_QUORUM -> ONE -> NODE_LOCAL) and the operation steps past replicas "
            "that never saw its previous step. A quorum of the old placement may then lag together: "
            "a join's FINISH commits while the key's first and third replicas are cut off, and a "
            "lagging coordinator's QUORUM read served by those two (their views say nothing changed) "
            "misses writes acknowledged by the new replicas. Only the coordinator's own catch-up "
            "(stillAppliesTo) can save such a read. Fix barrier-no-relaxation: the barrier stays at "
            "its first level (the operation waits instead)."
        ),
        replay="tcmcheck replay examples/findings/relaxed-progress-barrier.json",
        fix="barrier-no-relaxation",
    ),
    KnownFinding(
        id="stale-coordinator-read",
        cause_classes=(clients(STALE_COORDINATOR_READ).klass,),
        summary=(
            "ReadCommandVerbHandler.checkTokenOwnership checks a read's routing only (no "
            "lastModified of the read group, unlike AbstractMutationVerbHandler for writes), and a "
            "coordinator's catch-up on a successful response is asynchronous "
            "(ResponseVerbHandler.maybeFetchLogs: fetchLogFromPeerAsync), so ReadCallback's "
            "stillAppliesTo(ClusterMetadata.current()) passes on the old plan: a coordinator cut off "
            "across a whole operation completes a QUORUM read from a replica that moved past it "
            "(still a read replica) and one that lags with it, and misses writes the new read "
            "group acknowledged. Fix fence-reads-by-last-modified: refuse such a read as "
            "CoordinatorBehind, as writes are."
        ),
        replay="tcmcheck replay examples/findings/stale-coordinator-read.json",
        fix="fence-reads-by-last-modified",
    ),
)

REPLACED_NODE_BARRIER_GAP = KnownFinding(
    id="replaced-node-barrier-gap",
    cause_classes=("barrier: stale coordinator",),
    summary=(
        "ProgressBarrier leaves out the replaced node (BootstrapAndReplace: `new ProgressBarrier(..., "
        "true)` filters the node being replaced), assuming it is dead. A replaced node that is only "
        "partitioned still answers as a coordinator at its old epoch: on RF 3, A..D at 100..400, "
        "X replacing B, QUORUM reads by B at the START epoch and writes at MID/FINISH epochs can miss. "
        "Fix barrier-waits-for-replaced: the barrier also waits for the replaced node while it is reachable."
    ),
    replay="tcmcheck prove examples/cep21-rf3-ring.json --ops examples/replace-b-by-x.json --barrier",
    fix="barrier-waits-for-replaced",
)
"""Found by the prover's barrier mode, not by a fuzz run (so not matched by cause class)."""

ALL_FINDINGS: tuple[KnownFinding, ...] = (*KNOWN_FINDINGS, REPLACED_NODE_BARRIER_GAP)


def known_finding(klass: str | None, fixes: Iterable[str] = ()) -> KnownFinding | None:
    """The finding a failure of cause class `klass` shows, unless the run had that finding's fix
    on (then the failure is new: the fix did not work)."""
    if klass is None:
        return None
    chosen = frozenset(fixes)
    return next((f for f in KNOWN_FINDINGS if klass in f.cause_classes and f.fix not in chosen), None)


__all__ = ["ALL_FINDINGS", "KNOWN_FINDINGS", "REPLACED_NODE_BARRIER_GAP", "KnownFinding", "known_finding"]
