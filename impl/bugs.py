"""Known-bug switches ("mutants"): each plants one realistic TCM bug in impl/, off by default.

A switch is a frozen record (name, where it acts, the failure it should cause, the Cassandra
ticket when it is a real bug). A run turns switches on through `Settings.mutants` (a
scenario's `"mutants": [...]`, or `--mutant NAME` on simulate, replay and fuzz); the code
tests `on(settings, NAME)` at the one place the bug lives. Engine switches (the bug is in the
metadata rules) wrap the metadata engine instead (impl/engine_switches.py), so they act in
`refine` runs too. `tcmcheck mutants` runs a campaign per switch (campaign/mutants.py).

Nothing here is global: a switch is data carried by the run's settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from attrs import frozen

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
    load), cms (CMS churn: crashes, reconfiguration, schema races), refine (metadata only), data
    (the generated case as is, filtered to those that can show the switch:
    campaign/mutants/data_path.py)."""


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
           description="a CMS member removed from the ring (decommission, removenode, replace, "
                       "assassinate) leaves the CMS with nobody in its place: the CMS "
                       "reconfiguration the operator path runs first (maybeReconfigureCMS) "
                       "shrinks the CMS instead of keeping its size",
           failure="liveness: CMS undersized (fewer joined members than its replication) at the end of a quiet run"),
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
    # issue 22: data path
    Mutant(focus="data", name="fencing-accepts-one-behind",
           description="a replica compares the token's write-group lastModified with the "
                       "coordinator's epoch off by one (`> epoch + 1`): a mutation from a "
                       "coordinator exactly one epoch behind the group's last change is served",
           failure="trace: fencing (a mutation served from a coordinator behind the write group's "
                   "last change)"),
    Mutant(focus="data", name="barrier-accepts-one-behind",
           description="the progress barrier counts a peer whose watermark is one epoch below the "
                       "epoch it waits for (`< wait_for - 1`)",
           failure="trace: barrier (a step submitted before the replicas the barrier requires had "
                   "applied the previous step)"),
    Mutant(focus="data", name="fencing-mutation-checks-read-group",
           description="a replica checks a mutation against the token's read group (membership and "
                       "lastModified) instead of its write group: after START the write group "
                       "changed and the read group did not",
           failure="trace: fencing (a mutation served from a coordinator behind the write group's "
                   "last change)"),
    Mutant(focus="data", name="move-skips-streaming",
           description="the operation driver's list of streaming operations forgets move: a move "
                       "commits MID without streaming the ranges the moving node gains",
           failure="trace: streaming (after MID the new read group holds acknowledged writes below "
                   "their level)"),
    Mutant(focus="data", name="each-quorum-pending-local-dc-only",
           description="EACH_QUORUM's blockForWrite adds the pending replicas of the coordinator's "
                       "DC only, not those of every DC (DatacenterSyncWriteResponseHandler adds "
                       "each DC's)",
           failure="trace: quorum (a write acknowledged below its level in a DC with a pending "
                   "replica)"),
    Mutant(focus="data", name="local-quorum-ignores-pending",
           description="LOCAL_QUORUM and LOCAL_ONE writes leave the local pending replicas out of "
                       "blockForWrite",
           failure="trace: quorum (a write acknowledged below its level with a pending replica)"),
    Mutant(focus="data", name="stream-from-remaining-replica",
           description="join, leave and move stream each gained range from a replica that keeps "
                       "it (a non-strict source) instead of the one giving it up",
           failure="trace: streaming (a write acknowledged by the replica giving the range up and "
                   "one other is below its level in the new read group)"),
    Mutant(focus="data", name="read-repair-responders-only",
           description="blocking read repair's plan is the read's contacts only: no write replica "
                       "is added to reach the write level, so with a pending replica the read "
                       "answers before blockForWrite replicas hold the value",
           failure="trace: quorum (a repaired read answered before its value met the write level)"),
    Mutant(focus="data", name="hint-replay-ignores-ownership",
           description="a node applies a replayed hint without checking that it is still a write "
                       "replica of the token (HintVerbHandler re-hints it to the current replicas)",
           failure="trace: fencing (a hint applied by a node outside the token's write group)"),
    Mutant(focus="data", name="revalidation-off-by-one",
           description="a coordinator re-checks its plan only when its metadata moved two or more "
                       "epochs past the plan (`applied <= plan_epoch + 1` skips it)",
           failure="trace: quorum (a request answered with responses that do not meet the plan of "
                   "the epoch it answered at)"),
    # issue 21: fixed tickets
    Mutant(name="cms-not-reconfigured-after-operation", focus="cms", ticket="CASSANDRA-19705", liveness=True,
           description="a node that finishes a join, replace or move does not place the CMS anew "
                       "(ClusterMetadataService.ensureCMSPlacement after FINISH, added by the "
                       "fix; reachable on trunk with -Dcassandra.test.skip_cms_reconfig_after_"
                       "topology_change=true): a replaced CMS member's seat stays empty, a grown "
                       "cluster keeps its small CMS",
           failure="liveness: CMS undersized (fewer joined members than its replication) at the end of a quiet run"),
    Mutant(name="assassinate-skips-cms-reconfiguration", focus="cms", ticket="CASSANDRA-19768", liveness=True,
           description="`nodetool assassinate` of a CMS member commits ASSASSINATE without "
                       "reconfiguring the CMS first (ReconfigureCMS.maybeReconfigureCMS, added by "
                       "the fix), so PrepareLeave's CMS check rejects it: the dead member stays "
                       "JOINED and in the CMS",
           failure="liveness: an operator removal refused because its node is a CMS member"),
    Mutant(name="settled-placement-from-token-map", engine=True, focus="refine", ticket="CASSANDRA-19193",
           description="ClusterMetadata.writePlacementAllSettled recomputes the settled write "
                       "placement from scratch on a token map proposed from node states "
                       "(BOOTSTRAPPING joins' tokens, LEAVING nodes removed, MOVING nodes with "
                       "their old tokens, replaces ignored) instead of stepping through the "
                       "in-progress sequences",
           failure="refine: spec and impl disagree on the settled write placement"),
    Mutant(name="force-snapshot-reports-all-keys", focus="cms", ticket="CASSANDRA-19128",
           description="a node that installs a metadata snapshot (Cassandra's ForceSnapshot) reports "
                       "every core metadata key as modified (MetadataKeys.CORE_METADATA) instead of "
                       "the ones that differ from its previous metadata (MetadataKeys.diffKeys)",
           failure="holdings: a snapshot install reported the wrong modified keys"),
    Mutant(name="cms-commit-fails-after-leaving-cms", focus="cms", ticket="CASSANDRA-19872",
           description="a CMS member's own commit request that it takes up after it has left the "
                       "CMS fails (AbstractLocalProcessor.commit: \"Node is not a member of CMS "
                       "anymore\") instead of being retried at a current member "
                       "(ClusterMetadataService's commit loop on NotCMSException, the fix)",
           failure="logs: a rejection the spec does not justify (the transformation was valid)"),
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


def on(where: Settings | frozenset[str], name: str) -> bool:
    """Whether switch `name` is on in this run: in its settings, or among the switches a part of
    impl was given (a name that is no switch is a programming error)."""
    assert name in BY_NAME, name
    return name in (where if isinstance(where, frozenset) else where.mutants)


__all__ = ["BY_NAME", "NAMES", "REGISTRY", "Mutant", "check_names", "on"]
