"""CMS membership changes through the log, by hand or by the sizing policy.

The driver runs on the first (lowest id) full CMS member in its own metadata. It moves the
membership toward a target one member at a time, each step a committed transformation:
`PREPARE_CMS_RECONFIGURATION {add, remove}` plans the change; each
`ADVANCE_CMS_RECONFIGURATION` takes the next step (a joining node enters the write set, then,
after the driver has streamed the log to it — `StreamLog` until it has caught up — the read
set; a leaving node is removed). The target is set by hand (a scenario's `cms_changes`) or,
by default, by the CEP's sizing policy over the nodes currently JOINED.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.engine import cms_reconfiguring, in_sequences
from impl.entry import canonical_json
from impl.messages import Streamed, StreamLog, SubmitResult

if TYPE_CHECKING:
    from impl.node.host import Host


AUTO: tuple[str, ...] = ("<auto>",)
"""The target that means: follow the sizing policy."""


def policy_size(cluster_size: int) -> int:
    """The CEP: "1 CMS node for a cluster size up to 2; 3 CMS nodes in a cluster of up to 5
    nodes, 5 CMS nodes in a cluster of up to 100 nodes, and 10 CMS nodes thereafter"."""
    if cluster_size <= 2:
        return 1
    if cluster_size <= 5:
        return 3
    if cluster_size <= 100:
        return 5
    return 10


def policy_members(node_ids: list[str], size: int) -> tuple[str, ...]:
    return tuple(sorted(node_ids)[:size])


def policy_target(metadata: Any, members: tuple[str, ...], fallback: list[str], *,
                  down: frozenset[str] = frozenset(), shrink_on_leave: bool = False) -> tuple[str, ...]:
    """The sizing policy over the JOINED nodes of the metadata (the cluster as it is now, so the
    CMS follows joins and leaves): keep current members that are still joined, then add the
    lowest ids that are not `down` and not in an in-progress sequence, or drop the highest ids,
    to reach the policy's size. Without a directory in the metadata, the simulated nodes stand in
    for the joined ones.

    Why `down` (CASSANDRA-19943, "Allow CMS reconfiguration to work around DOWN nodes"):
    ReconfigureCMS.maybeReconfigureCMS collects the joined endpoints the failure detector sees
    down and PrepareCMSReconfiguration.Simple leaves them out of the new members, since a new
    member must be streamed the log before it can join the read set. Current members are kept
    (a reconfiguration that removes one is its own decision).

    Why not a node in a sequence (issue 25): CMSPlacementStrategy.DefaultNodeFilter (trunk
    6bbe85ef) leaves out every peer with `metadata.inProgressSequences.contains(nodeId)`, and the
    engine refuses such a candidate; proposing one anyway is refused on every retry, so the CMS
    stays short of the policy for as long as the sequence lasts (for ever when nobody drives it)."""
    directory = getattr(metadata, "directory", None)
    if isinstance(directory, dict):
        joined = sorted(n for n, rec in directory.items()
                        if getattr(getattr(rec, "state", None), "value", None) == "JOINED")
    else:
        joined = sorted(fallback)
    if not joined:
        return members
    size = policy_size(len(joined))
    keep = [m for m in members if m in joined]
    if shrink_on_leave:
        # mutant (CASSANDRA-18416): a member that left the ring keeps its seat, so the CMS
        # counts it toward the policy's size and never replaces it (fewer working members)
        keep = list(members)
    if len(keep) >= size:
        return tuple(sorted(keep)[:size])
    busy = in_sequences(metadata)
    extra = [n for n in joined if n not in keep and n not in down and n not in busy][: size - len(keep)]
    return tuple(sorted(keep + extra))


class ReconfigurationDriver:
    def __init__(self, node: Host) -> None:
        self._node = node
        self._in_flight = False
        self._streaming_to: str | None = None  # the joiner whose log stream is awaited
        self._submissions = 0  # numbers each submission, so a stale timer frees nothing
        self._streamed: dict[str, int] = {}
        self._last_rejected = ""

    @property
    def busy(self) -> bool:
        return self._in_flight

    def _target(self, meta: Any, members: tuple[str, ...]) -> tuple[str, ...] | None:
        target = self._node.world.cms_target
        if target is AUTO:
            settings = self._node.settings
            world = self._node.world
            # the failure detector's view (the simulation knows who is down; a cut-off node
            # still counts as up, as a suspected one would until its phi rises); a node the
            # directory knows that is no process at all (a scripted REGISTER) never answers
            known = getattr(meta, "directory", None)
            ids = list(known) if isinstance(known, dict) else world.node_ids
            down = frozenset(n for n in ids if not world.is_up(n))
            if bugs.on(settings, "cms-reconfig-chooses-down-nodes"):
                down = frozenset()  # CASSANDRA-19943: candidates taken without looking at who is up
            return policy_target(meta, members, world.node_ids, down=down,
                                 shrink_on_leave=bugs.on(settings, "decommission-shrinks-cms"))
        return target

    def on_log_advanced(self) -> None:
        if not self._in_flight:
            self.poll()

    def poll(self) -> None:
        node = self._node
        if self._node.world.cms_target is None or self._in_flight or not node.alive:
            return
        meta = node.log.metadata
        members = node.executor.members(meta)
        if not members or members[0] != node.id:
            return
        target = self._target(meta, members)
        if target is None:
            return
        writers = node.executor.write_members(meta)
        joining = [w for w in writers if w not in members]
        if joining:
            x = joining[0]
            if x not in self._streamed:
                self._stream(x)
                return
            self._submit(_advance(meta))
            return
        if set(members) == set(target):
            if cms_reconfiguring(meta):
                # the last step ends the reconfiguration and releases its lock (before, only a
                # second ADVANCE sent beside the previous one happened to take it)
                self._submit(_advance(meta))
            return
        add = sorted(set(target) - set(members))
        remove = sorted(set(members) - set(target))
        reconfiguring = cms_reconfiguring(meta)
        if reconfiguring is False or (
            reconfiguring is None and self._last_rejected == "ADVANCE_CMS_RECONFIGURATION"
        ):
            self._submit({"kind": "PREPARE_CMS_RECONFIGURATION", "add": add, "remove": remove})
        else:
            self._submit(_advance(meta))

    def _submit(self, transformation: dict[str, object]) -> None:
        self._in_flight = True
        self._submissions += 1
        mine = self._submissions
        kind = str(transformation["kind"])

        def done(result: SubmitResult) -> None:
            if mine != self._submissions:
                return  # an older submission's late answer: the current one is still in flight
            self._in_flight = False
            if result.outcome == "rejected":
                self._last_rejected = kind
                # why a pause: a rejection means the plan must change; poll again a bit later
                self._node.timer(self._node.settings.retry_backoff_ns, self.poll)
            else:
                self._last_rejected = ""
                self.poll()

        self._node.submitter.submit(canonical_json(transformation), done)
        # why: the submitter may end in `info` without a callback; poll again after a while
        self._node.timer(self._node.settings.submit_timeout_ns * 6, self._unstick, mine, work=False)

    def _unstick(self, submission: int) -> None:
        if self._in_flight and submission == self._submissions and self._streaming_to is None:
            self._in_flight = False
            self.poll()

    def _stream(self, joiner: str) -> None:
        node = self._node
        self._in_flight = True
        self._streaming_to = joiner
        node.send(joiner, StreamLog(sender=node.id, epoch=node.log.applied,
                                    upto=node.log.applied))
        node.timer(node.settings.stream_timeout_ns, self._stream_timeout, joiner, work=False)

    def _stream_timeout(self, joiner: str) -> None:
        if self._in_flight and self._streaming_to == joiner and joiner not in self._streamed:
            self._in_flight = False
            self._streaming_to = None
            self.poll()

    def on_streamed(self, msg: Streamed) -> None:
        self._streamed[msg.sender] = msg.upto
        # why only then: a late or duplicated Streamed must not free a commit in flight, or the
        # driver submits the next ADVANCE beside it
        if self._in_flight and self._streaming_to == msg.sender:
            self._in_flight = False
            self._streaming_to = None
        self.poll()


def _advance(meta: Any) -> dict[str, object]:
    """The next ADVANCE, naming the step it takes (Cassandra's AdvanceCMSReconfiguration carries
    its `sequenceIndex` and is rejected "has already been applied" when that step is past), so a
    resubmitted ADVANCE cannot take a later step than the one its driver meant."""
    index = getattr(getattr(meta, "cms", None), "next_index", None)
    if isinstance(index, int) and not isinstance(index, bool):
        return {"kind": "ADVANCE_CMS_RECONFIGURATION", "sequence_index": index}
    return {"kind": "ADVANCE_CMS_RECONFIGURATION"}
