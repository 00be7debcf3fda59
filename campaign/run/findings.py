"""Findings the harness has made and reported: places where Cassandra's rules, which spec/ and
impl/ follow, let an invariant break (docs/findings.md has each one in full; each `bug` has a
report for Cassandra's committers in docs/findings/ID.md).

A campaign still runs and records every failing run; a failure whose cause class
(`Cause.klass`, campaign/judge/cause.py) is listed here is reported apart as a known finding,
with its class, instead of failing the campaign, so that a new bug stands out. `tcmcheck fuzz
--strict` fails on known findings too. Each finding names its proposed fix (spec/fixes.py,
impl/metadata/fixes.py, the prover's barrier mode), which `--fix NAME` turns on. Remove an entry
when the behaviour it describes is changed.

Classes (what it takes to reach it in Cassandra, trunk 6bbe85ef):
- `bug`: a user or operator path reaches it with default settings (nts-rack-composition: with
  single-token nodes, a supported layout rather than a weakened safety setting);
- `hardening`: only past an operator check, by operator error, or by a direct submission of
  the transformations (a racing or buggy path);
- `documented`: Cassandra documents it and its remedy;
- `config`: it needs a non-default setting.
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import field, frozen
from attrs.validators import in_

from campaign.judge.cause import (
    LOST_BY_SINGLE_SOURCE,
    RELAXED_BARRIER,
    SINGLE_SOURCE_LOSS,
    STALE_COORDINATOR_READ,
    UNREPAIRED_PAST_PENDING,
    clients,
)

CLASSES = ("bug", "hardening", "documented", "config")


@frozen(kw_only=True)
class KnownFinding:
    id: str
    klass: str = field(validator=in_(CLASSES))
    """bug, hardening, documented or config (the module doc)."""
    cause_classes: tuple[str, ...]
    """The `Cause.klass` of the failures it explains (one per way a run shows it)."""
    summary: str
    replay: str
    """The smallest counterexample, as one command (failure files in examples/findings/ hold
    their case, so they do not depend on the generator)."""
    fix: str
    """The proposed fix's name (`--fix NAME`)."""
    improvement: bool = False
    """A finding outside `bug` that still has a committer's report, to be filed as an improvement
    (cross-dc-replace: a safeguard against an operator's mistake)."""

    @property
    def report(self) -> str | None:
        """The committer's report: for a bug, and for a finding filed as an improvement."""
        return f"docs/findings/{self.id}.md" if self.klass == "bug" or self.improvement else None


KNOWN_FINDINGS: tuple[KnownFinding, ...] = (
    KnownFinding(
        id="cancel-after-mid",
        klass="bug",
        cause_classes=("quorum: disjoint-across-epochs (across CANCEL_SEQUENCE)",),
        summary=(
            "CANCEL_SEQUENCE after MID moves reads back and narrows writes in one epoch, with no "
            "progress barrier (BootstrapAndJoin.cancel(ClusterMetadata) applies midJoin's and "
            "startJoin's inverse deltas together; Move, UnbootstrapAndLeave and BootstrapAndReplace "
            "likewise), so a read quorum at the MID epoch and a write quorum at the cancel epoch can "
            "be disjoint: join X into A..D (RF 3) until MID, then the JMX cancel "
            "(cancelInProgressSequences, no liveness check): reads {X, A} at epoch 4, writes {B, C} "
            "at epoch 5. Join, move and leave need only a lagging reader (bug); replace and "
            "removenode also need the replaced/removed node to acknowledge writes (hardening). "
            "Variants in examples/findings/cancel-after-mid/. Fix two-epoch-cancel."
        ),
        replay="tcmcheck replay examples/findings/cancel-after-mid.json",
        fix="two-epoch-cancel",
    ),
    KnownFinding(
        id="nts-rack-composition",
        klass="bug",
        cause_classes=("invariant at_rest_matches_from_scratch",),
        summary=(
            "Two sequences on disjoint locked ranges (UniformRangePlacement.planFor* computes each "
            "plan against the ring of its PREPARE; nothing checks that the deltas compose) end off "
            "the natural placement under NetworkTopologyStrategy's rack rule: X joins at 212 (rack "
            "r2) and n3 (one token) moves 26 -> 113, both prepared before either starts; both "
            "complete and the at-rest placements differ from scratch. UNSAFE_JOIN composes the same "
            "way. Fix composition-guard: refuse a PREPARE whose deltas do not compose with those in flight."
        ),
        replay="tcmcheck replay examples/findings/nts-rack-composition.json",
        fix="composition-guard",
    ),
    KnownFinding(
        id="unregister-prepared-join",
        klass="bug",
        cause_classes=("invariant sequences_name_registered_nodes",),
        summary=(
            "Unregister checks only the start states its caller allows, and nodetool abortbootstrap "
            "decides on its own node's metadata: a node that has not seen X's PREPARE_JOIN (X "
            "crashed after it) finds X REGISTERED with no sequence, cancels nothing and commits "
            "Unregister(X, {REGISTERED, BOOTSTRAPPING, BOOT_REPLACING}), which the CMS accepts on "
            "the newest metadata: X's sequence and range lock stay for a node the directory no "
            "longer has (START cannot commit; only the JMX cancel clears it). Fix unregister-idle-only."
        ),
        replay="tcmcheck replay examples/findings/unregister-prepared-join.json",
        fix="unregister-idle-only",
    ),
    KnownFinding(
        id="cross-dc-replace",
        klass="hardening",
        improvement=True,
        cause_classes=("invariant reads_have_replication_factor",
                       "liveness: bootstrap halted on a movement to another node"),
        summary=(
            "PrepareReplace and Startup check neither DC nor rack: a replacement started with "
            "another cassandra-rackdc.properties takes the replaced node's tokens elsewhere. With "
            "its old DC at RF the replace completes and that DC is left with RF-1 read replicas "
            "per range, past no replication check; with more nodes there, other nodes gain ranges, "
            "which the replacement's bootstrap (RangeStreamer, -ea) does not stream: it halts with "
            "START applied. Fix replace-same-dc: the replacement must be in the replaced node's DC."
        ),
        replay="tcmcheck replay examples/findings/cross-dc-replace.json",
        fix="replace-same-dc",
    ),
    KnownFinding(
        id="leave-while-joining-cms",
        klass="bug",
        cause_classes=("invariant cms_members_have_not_left", "invariant cms_additions_in_directory"),
        summary=(
            "A node the CMS is adding (a PREPARE_CMS_RECONFIGURATION chose it: nodetool cms "
            "reconfigure, or ensureCMSPlacement after a join) may leave the ring meanwhile: "
            "maybeReconfigureCMS (before a decommission, removenode, replace or assassinate) and "
            "PrepareLeave's isCMSMember look at the full (read) members only, and PrepareReplace has "
            "no CMS check. A decommission: AdvanceCMSReconfiguration adds the node to the read set "
            "without looking at its state, and it ends LEFT, stopped, and a full CMS member. A "
            "replace: FinishReplace takes the node out of the directory, and the reconfiguration "
            "cannot go on (AdvanceCMSReconfiguration: new Replica(directory.endpoint(id)) throws "
            "NullPointerException), so no later CMS change commits; when the node was already a "
            "write member (its log streaming waiting for the dead node) CancelCMSReconfiguration "
            "throws too, when it was an addition still to start only an operator's cancel ends it. "
            "Fix leave-refuses-cms-joiner."
        ),
        replay="tcmcheck replay examples/findings/leave-while-joining-cms.json",
        fix="leave-refuses-cms-joiner",
    ),
    KnownFinding(
        id="replace-cms-member",
        klass="hardening",
        cause_classes=("invariant cms_is_consistent",),
        summary=(
            "PrepareReplace has no CMS check and FinishReplace removes the replaced node from the "
            "directory: replacing a CMS member through the transformations alone leaves a CMS "
            "member that is not in the directory. Cassandra's replace path (Startup.startup) runs "
            "ReconfigureCMS.maybeReconfigureCMS first, so only a racing or direct submission gets "
            "there. Fix replace-cms-member-guard."
        ),
        replay="tcmcheck replay examples/findings/replace-cms-member.json",
        fix="replace-cms-member-guard",
    ),
    KnownFinding(
        id="remove-replace-single-source",
        klass="documented",
        cause_classes=(clients(SINGLE_SOURCE_LOSS).klass, LOST_BY_SINGLE_SOURCE),
        summary=(
            "Removenode and replace stream each range the new replica gains from ONE remaining "
            "replica (RemoveNodeStreams.movementMap + DataMovementVerbHandler: the first live full "
            "replica; BootstrapAndReplace.movementMap + RangeStreamer: the first source, 'no "
            "potential for strict movements when replacing'), and from nobody when the removed "
            "node was the only replica (RF 1). A write acknowledged by the removed/replaced node and "
            "replicas other than that source is missing on the new replica, so later reads miss "
            "it until hints, read repair or a repair bring it there (stale; Cassandra documents the "
            "repair: topo_changes.adoc); it is lost for good only where no replica is left (RF 1: "
            "'durability: lost by a single-source stream'). Fix stream-from-all-replicas."
        ),
        replay="tcmcheck replay examples/findings/remove-replace-single-source.json",
        fix="stream-from-all-replicas",
    ),
    KnownFinding(
        id="relaxed-progress-barrier",
        klass="config",
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
        klass="bug",
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
    KnownFinding(
        id="monotonic-read-across-movement",
        klass="bug",
        cause_classes=(clients(UNREPAIRED_PAST_PENDING).klass,),
        summary=(
            "A read repairs only on a digest mismatch (AbstractReadExecutor.awaitResponses; "
            "DigestResolver.responsesMatch is true for one response) and never contacts a pending "
            "replica, so during a range movement a QUORUM read can return a write that failed "
            "because its mutation to the pending replica was lost (blockForWrite counts the pending "
            "replica) while the streams already ran (Move.executeNext streams before committing "
            "MID_MOVE), and write it nowhere. Once the movement finishes the former pending replica "
            "serves reads, and a later QUORUM read goes back in time until the hint replays: RF 3, "
            "n5 moving in front of k0 (n4 gives the range up), a QUORUM write of k0=2 reaches n2 "
            "and n4 only and times out, a read served by n4 and n2 returns 2, the move finishes, a "
            "read served by n5 and n3 returns 1. The read-repair docs promise monotonic quorum "
            "reads; CASSANDRA-14740 (2019) added pending replicas to the repair plan, for the "
            "mismatch case only: this is its follow-up, older than TCM. Fix "
            "read-repair-pending: while the token has pending replicas, a read writes what it "
            "returns over the read-repair plan (blockForWrite, pending counted) before answering."
        ),
        replay="tcmcheck replay examples/findings/monotonic-read-across-movement.json",
        fix="read-repair-pending",
    ),
)

REPLACED_NODE_BARRIER_GAP = KnownFinding(
    id="replaced-node-barrier-gap",
    klass="hardening",
    cause_classes=("barrier: stale coordinator",),
    summary=(
        "BootstrapAndReplace.barrier() leaves the replaced node out of every progress barrier "
        "(`e -> !e.equals(replaced)`; UnbootstrapAndLeave.barrier() likewise for removenode), "
        "assuming it is dead. A replaced node that is only partitioned still answers as a "
        "coordinator at its old epoch: on RF 3, A..D at 100..400, X replacing B, QUORUM reads by B "
        "at the START epoch and writes at MID/FINISH epochs can miss. Cassandra replaces or "
        "removes only a node the submitting node's failure detector sees dead, so it takes a "
        "zombie node (alive, serving, convicted by that node). Fix barrier-waits-for-replaced: "
        "the barrier also waits for the replaced node while it is reachable."
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


__all__ = ["ALL_FINDINGS", "CLASSES", "KNOWN_FINDINGS", "REPLACED_NODE_BARRIER_GAP", "KnownFinding",
           "known_finding"]
