"""CMS membership changes through the log: who proposes them, and who takes their steps.

A PREPARE_CMS_RECONFIGURATION `{add, remove}` plans the change; each ADVANCE_CMS_RECONFIGURATION
takes the next step (a joining node enters the write set, then, after the log has been streamed
to it — `StreamLog` until it has caught up — the read set; a leaving node is removed).

Who proposes (trunk 6bbe85ef; the placements are impl/cms/placement.py's):
- the operator's `nodetool cms reconfigure`: the scenario's CMS target (`cms.members`,
  `cms.size`, `cms_changes`, or by default the CEP's sizing policy at the start), proposed by
  the lowest CMS member until the membership is reached, then done — it is not enforced after;
- Cassandra's operator paths, through the operation driver (impl/node/operation.py):
  `ensureCMSPlacement` after a join, replace or move finishes, `maybeReconfigureCMS` before a
  replace, decommission, removenode or assassinate. Nothing else reconfigures the CMS: a member
  that dies stays a member, a cluster that grows by other means keeps its CMS.

Who takes the steps: the lowest CMS member, for any reconfiguration in progress. Cassandra has the
submitting node drive it (`InProgressSequences.finishInProgressSequences(SequenceKey.instance)`);
here the lowest member does, so that a reconfiguration whose submitter died is finished, as an
operator's `nodetool cms reconfigure --resume` would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.cms.placement import joined, placement, policy_members, policy_size
from impl.engine import cms_reconfiguring
from impl.entry import canonical_json
from impl.messages import Streamed, StreamLog, SubmitResult

if TYPE_CHECKING:
    from impl.node.host import Host


AUTO: tuple[str, ...] = ("<auto>",)
"""The target that means: the CEP's sizing policy over the JOINED nodes, computed when proposed."""


def down_nodes(node: Host, metadata: Any) -> frozenset[str]:
    """The nodes of the metadata's directory that `node` sees down (ReconfigureCMS.
    maybeReconfigureCMS and ClusterMetadataService.reconfigureCMS: `!FailureDetector.instance.
    isAlive(ep)` over the joined endpoints); a node the directory knows that is no process at all
    (a scripted REGISTER) never answers. CASSANDRA-19943 added this filter: the switch
    `cms-reconfig-chooses-down-nodes` takes it away."""
    if bugs.on(node.settings, "cms-reconfig-chooses-down-nodes"):
        return frozenset()
    known = getattr(metadata, "directory", None)
    ids = list(known) if isinstance(known, dict) else node.world.node_ids
    return frozenset(n for n in ids if not node.sees_alive(n))


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
            size = policy_size(len(joined(meta, self._node.world.node_ids)))
            placed = placement(meta, members, size, down=down_nodes(self._node, meta),
                               fallback=self._node.world.node_ids)
            # ClusterMetadataService.reconfigureCMS runs PrepareCMSReconfiguration.verify first:
            # "Too many nodes are currently DOWN" below a majority (the operator tries again)
            return placed if len(placed) >= size // 2 + 1 else None
        return target

    def on_log_advanced(self) -> None:
        if not self._in_flight:
            self.poll()

    def poll(self) -> None:
        node = self._node
        if self._in_flight or not node.alive:
            return
        meta = node.log.metadata
        members = node.executor.members(meta)
        if not members or members[0] != node.id:
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
        reconfiguring = cms_reconfiguring(meta)
        if reconfiguring:
            # the last step ends the reconfiguration and releases its lock
            self._submit(_advance(meta))
            return
        if node.world.cms_target is None:
            return
        target = self._target(meta, members)
        if target is None:
            return
        if set(members) == set(target):
            node.world.cms_target_reached(target)
            return
        add = sorted(set(target) - set(members))
        remove = sorted(set(members) - set(target))
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


__all__ = ["AUTO", "ReconfigurationDriver", "down_nodes", "policy_members", "policy_size"]
