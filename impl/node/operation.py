"""The operation driver: a node runs its own topology operation step by step (Cassandra's
InProgressSequence.executeNext for BootstrapAndJoin, UnbootstrapAndLeave, Move,
BootstrapAndReplace and RemoveNode).

The operator's command first passes the operator layer (impl/node/operator_checks.py:
SingleNodeSequences, StorageService, Startup, with Cassandra's messages, on this node's metadata
and failure-detector view); a refusal ends it as `refused: ...` before anything is committed.
Then REGISTER (a joining or replacing node) -> for a replace, decommission, removenode or
assassinate of a CMS member, the CMS reconfigured without it (ReconfigureCMS.maybeReconfigureCMS,
`failed: Could not remove ... from CMS` if it is still a member after) -> for a replace, the
replaced node must look dead ("Cannot replace a live node... ") -> PREPARE -> START -> [barrier
on the START epoch] streaming -> MID -> [barrier on the MID epoch] FINISH -> for a join, replace or
move, the CMS placed anew (ClusterMetadataService.ensureCMSPlacement; its failure is only
logged). An assassinate is one ASSASSINATE commit. Each step is a commit request through the
node's submitter; START needs no barrier (`ProgressBarrier.immediate`). What the driver knows is
persisted on the node's disk and the rest is read back from the metadata, so a node that crashes
mid-operation resumes where the log says it is. A rejected PREPARE (another operation holds an
overlapping range, say) ends the operation as rejected. The driver stops when the sequence
disappears from the metadata (a cancel: impl/node/operator.py). In gossip mode the barrier is a
fixed wait (RING_DELAY).

Past the 400-line guideline: the driver is one state machine whose steps share its persisted
progress, its submission callbacks and watchdog, and the CMS reconfigurations before and after;
split by step, each part would reach into the others' state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.cms import placement
from impl.cms.reconfiguration import down_nodes
from impl.engine import cms_reconfiguring
from impl.entry import canonical_json
from impl.messages import StreamComplete, SubmitResult, WatermarkResponse
from impl.node import operator_checks as checks
from impl.node.progress_barrier import ProgressBarrier
from impl.node.streaming import Streaming, elsewhere, plan
from observed.protocol import BarrierStart, StepSubmit
from spec import fixes

if TYPE_CHECKING:
    from impl.node.host import Host

_STEP_OP = {"JOIN": "JOIN", "LEAVE": "LEAVE", "REMOVE": "LEAVE", "MOVE": "MOVE",
            "REPLACE": "REPLACE"}
_FAIL_AT_ONCE = ("PREPARE", "REGISTER", "CMS", "ASSASSINATE")
"""Commits whose rejection ends the operation (a rejected step may only mean the node lags)."""


class OperationDriver:
    def __init__(self, node: Host) -> None:
        self._node = node
        self._submitting: str | None = None
        self._barrier: ProgressBarrier | None = None
        self._barrier_passed: tuple[str, int] | None = None
        self._streaming: Streaming | None = None
        self._streamed_for: int | None = None
        self._waiting = False
        self._resume_at = 0  # advance again once the log reaches this epoch
        self._entry = ""  # entry id of the step in flight (the watchdog's key)

    # --- starting ---

    @property
    def state(self) -> dict[str, Any] | None:
        op: dict[str, Any] | None = self._node.disk.operation
        return op

    def begin(self, op: str, *, target: str | None, tokens: tuple[int, ...],
              location: tuple[str, str] | None) -> None:
        node = self._node
        if self.state is not None and self.state.get("outcome") is None:
            node.world.operation_finished(node.id, op, "refused: this node runs an operation")
            return
        refusal = self._refusal(op, target, tokens)
        if refusal is not None:
            node.trace.event("operation", node.id, "-", f"{op} refused: {refusal}")
            node.world.operation_finished(node.id, op, "refused: " + refusal)
            return
        seq_node = target if op in ("remove", "assassinate") else node.id
        node.disk.operation = {"op": op, "seq_node": seq_node, "target": target,
                               "tokens": list(tokens), "location": location, "prepared": False,
                               "last_epoch": 0, "outcome": None, "cms": None}
        node.trace.event("operation", node.id, "-", f"begin {op}")
        self.advance()

    def _refusal(self, op: str, target: str | None, tokens: tuple[int, ...]) -> str | None:
        """What the operator layer refuses, on this node's metadata and failure detector."""
        node = self._node
        meta = node.log.metadata
        if op == "join":
            return checks.join(meta, tokens)
        if op == "move":
            return checks.move(meta, node.id, tokens)
        if op == "leave":
            return checks.decommission(meta, node.id)
        if target is None:
            return f"{op} needs a target"
        if op == "remove":
            return checks.remove(meta, node.id, target, node.sees_alive)
        if op == "replace":
            return checks.replace_joined(meta, target)
        return None  # assassinate: no check (Assassinate.assassinateEndpoint)

    # --- driving ---

    @property
    def busy(self) -> bool:
        st = self.state
        return st is not None and st.get("outcome") is None

    def _excluded(self) -> str | None:
        st = self.state
        assert st is not None
        return st["target"] if st["op"] in ("replace", "remove") else None

    def _finish(self, outcome: str) -> None:
        node = self._node
        st = self.state
        assert st is not None
        st["outcome"] = outcome
        for part in (self._barrier, self._streaming):
            if part is not None:
                part.cancel()
        self._barrier = None
        self._streaming = None
        node.trace.event("operation", node.id, "-", f"{st['op']} {outcome}")
        node.world.operation_finished(node.id, st["op"], outcome)

    def advance(self) -> None:
        node = self._node
        st = self.state
        if st is None or st["outcome"] is not None or self._submitting is not None \
                or self._waiting or not node.alive or node.log.applied < self._resume_at:
            return
        meta = node.log.metadata
        op = st["op"]
        if op == "assassinate":
            self._assassinate(st, meta)
            return
        seq_node = st["seq_node"]
        seq = meta.sequences.get(seq_node)
        if seq is None:
            if st["prepared"]:
                done = meta.directory.get(seq_node)
                finished = (op in ("join", "replace", "move") and done is not None
                            and done.state.value == "JOINED") or (
                    op in ("leave", "remove") and (done is None or done.state.value == "LEFT"))
                if finished and op in ("join", "replace", "move"):
                    self._ensure_cms_placement(meta)
                self._finish("completed" if finished else "cancelled")
                return
            if op in ("join", "replace") and node.id not in meta.directory:
                dc, rack = st["location"]
                self._submit({"kind": "REGISTER", "node": {"id": node.id, "dc": dc, "rack": rack}},
                             "REGISTER")
                return
            if not self._without_in_cms(st, meta):
                return
            if op == "replace":
                refusal = checks.replace_live(st["target"], node.sees_alive)
                if refusal is not None:
                    self._finish("refused: " + refusal)
                    return
            self._submit(self._prepare(st), "PREPARE")
            return
        if not st["prepared"]:
            st["prepared"] = True
            if not st["last_epoch"]:
                st["last_epoch"] = node.log.applied
        step = seq.next_step
        kind = f"{step}_{_STEP_OP[seq.kind]}"
        # START of a join, move or replace has no barrier (ProgressBarrier.immediate in
        # BootstrapAndJoin, Move, BootstrapAndReplace); UnbootstrapAndLeave waits before START
        # too (for PREPARE's epoch)
        if step != "START" or seq.kind in ("LEAVE", "REMOVE"):
            # the barrier waits for the epoch of the sequence's previous step (Cassandra keeps
            # it in the sequence as `latestModification`); read from the log, so that a node
            # that crashed before hearing the step's result still waits for the right epoch
            st["last_epoch"] = max(st["last_epoch"], self._latest_modification(seq_node))
            if self._barrier_passed != (step, st["last_epoch"]):
                self._await_barrier(step, st["last_epoch"], seq_node)
                return
            if step == "MID" and self._streamed_for != st["last_epoch"] \
                    and (op != "move" or not bugs.on(node.settings, "move-skips-streaming")):
                self._stream(st["last_epoch"])
                return
        self._submit({"kind": kind, "node": seq_node}, step)

    # --- the CMS around an operation ---

    def _without_in_cms(self, st: dict[str, Any], meta: Any) -> bool:
        """ReconfigureCMS.maybeReconfigureCMS(metadata, toRemove) before a replace, decommission,
        removenode or assassinate: True once the node to remove is not (or no longer) a CMS
        member; False while the reconfiguration is proposed or under way (the lowest CMS member
        takes its steps: impl/cms/reconfiguration.py), or when the operation ended."""
        node = self._node
        op = st["op"]
        to_remove = node.id if op == "leave" else st["target"]
        if op not in ("replace", "leave", "remove", "assassinate") or st.get("cms") == "done":
            return True
        if op == "assassinate" and bugs.on(node.settings, "assassinate-skips-cms-reconfiguration"):
            st["cms"] = "done"  # CASSANDRA-19768: assassinateEndpoint went straight to Assassinate
            return True
        members = node.executor.members(meta)
        if st.get("cms") is None:
            # (with a reconfiguration in progress the PREPARE is rejected, as Cassandra's
            # commit of PrepareCMSReconfiguration.Simple is: the operation fails)
            plan_ = placement.without(meta, members, to_remove, node.world.cms_rf, down_nodes(node, meta),
                                      shrink=bugs.on(node.settings, "decommission-shrinks-cms"))
            if plan_ is None:
                # not a full member in this view (maybeReconfigureCMS returns): should the CMS
                # have made it one since, its PrepareLeave refuses ("still a part of CMS")
                st["cms"] = "done"
                st["cms_view"] = meta.epoch
                return True
            if isinstance(plan_, str):
                self._finish("refused: " + plan_)
                return False
            add, remove = plan_
            if bugs.on(node.settings, "decommission-shrinks-cms"):
                change: dict[str, Any] = {"add": list(add), "remove": list(remove)}
            else:  # PrepareCMSReconfiguration.Simple(toRemove, downNodes): placed where it executes
                change = {"placement": placement.simple_placement(meta, members, to_remove, node.world.cms_rf,
                                                        down_nodes(node, meta))}
            self._submit({"kind": "PREPARE_CMS_RECONFIGURATION", **change}, "CMS")
            return False
        if meta.epoch < st["cms"] or cms_reconfiguring(meta):
            return False
        if to_remove in members:
            self._finish(f"failed: Could not remove {to_remove} from CMS")
            return False
        st["cms"] = "done"
        # the view maybeReconfigureCMS left it in: should the CMS make it a member again before
        # the PREPARE (ensureCMSPlacement after another node's FINISH), PrepareLeave refuses it
        st["cms_view"] = meta.epoch
        return True

    def _ensure_cms_placement(self, meta: Any) -> None:
        """ClusterMetadataService.ensureCMSPlacement after FINISH of a join, replace or move
        (CASSANDRA-19705): a Complex reconfiguration at the CMS's replication, leaving out the
        nodes this node sees down; submitted and left to run (a failure is only logged in
        Cassandra: "operator should run `nodetool cms reconfigure`")."""
        node = self._node
        if bugs.on(node.settings, "cms-not-reconfigured-after-operation") or cms_reconfiguring(meta):
            return
        members, down = node.executor.members(meta), down_nodes(node, meta)
        plan_ = placement.ensure(meta, members, node.world.cms_rf, down)
        if plan_ is not None:
            add, remove = plan_
            node.trace.event("operation", node.id, "-", f"ensure CMS placement +{list(add)} -{list(remove)}")
            # PrepareCMSReconfiguration.Complex(params, downNodes): the CMS places it when it
            # executes, on the metadata it holds then (a retried submission sees a newer ring)
            node.submitter.submit(canonical_json({"kind": "PREPARE_CMS_RECONFIGURATION",
                                                  "placement": placement.complex_placement(meta, members, node.world.cms_rf, down)}))

    def _assassinate(self, st: dict[str, Any], meta: Any) -> None:
        """Assassinate.assassinateEndpoint: a node not in the directory is a no-op; the CMS
        first, then one ASSASSINATE commit."""
        target = st["target"]
        rec = meta.directory.get(target)
        if rec is None or (st["prepared"] and rec.state.value == "LEFT"):
            self._finish("completed")
            return
        if self._without_in_cms(st, meta):
            self._submit({"kind": "ASSASSINATE", "node": target}, "ASSASSINATE")

    def _latest_modification(self, seq_node: str) -> int:
        log = self._node.log
        for epoch in range(log.applied, log.first_held - 1, -1):
            entry = log.get(epoch)
            if entry is None:
                break
            if entry.kind.startswith(("PREPARE_", "START_", "MID_")) and \
                    f'"node":"{seq_node}"' in entry.transformation:
                return epoch
        return log.applied if log.first_held > 1 else 0

    def _prepare(self, st: dict[str, Any]) -> dict[str, Any]:
        op = st["op"]
        node = self._node.id
        if op == "join":
            return {"kind": "PREPARE_JOIN", "node": node, "tokens": st["tokens"]}
        if op == "move":
            return {"kind": "PREPARE_MOVE", "node": node, "tokens": st["tokens"]}
        if op == "replace":
            return {"kind": "PREPARE_REPLACE", "node": node, "replaced": st["target"]}
        return {"kind": "PREPARE_LEAVE", "node": st["seq_node"], "remove": op == "remove"}

    def _submit(self, transformation: dict[str, Any], what: str) -> None:
        node = self._node
        self._submitting = what
        entry = node.submitter.submit(canonical_json(transformation),
                                      lambda r: self._on_result(what, r))
        st = self.state
        assert st is not None
        # which committed steps a driver took (the barrier and streaming invariants look at
        # those; a scripted submission of a step has neither)
        node.world.protocol.emit(StepSubmit, driver=node.id, seq_node=st["seq_node"], op=st["op"],
                                 kind=str(transformation["kind"]), entry_id=entry)
        # why a watchdog: a submitter that gives up reports no result; the log then tells
        attempts = node.settings.max_submit_attempts + 1
        node.timer(node.settings.submit_timeout_ns * attempts, self._watchdog, entry, work=False)
        self._entry = entry

    def _watchdog(self, entry: str) -> None:
        if self._submitting is not None and self._entry == entry:
            self._submitting = None
            self.advance()

    def _on_result(self, what: str, result: SubmitResult) -> None:
        st = self.state
        self._submitting = None
        if st is None or st["outcome"] is not None:
            return
        node = self._node
        if result.outcome == "committed":
            if what in ("PREPARE", "ASSASSINATE"):
                st["prepared"] = True
            elif what == "CMS":
                st["cms"] = result.committed_epoch
            st["last_epoch"] = result.committed_epoch
            if node.log.applied < result.committed_epoch:
                node.fetcher.want(result.committed_epoch, result.sender)
                self._resume_at = result.committed_epoch
                return  # advance() runs when the log gets there
        elif what == "CMS" and node.log.applied < result.decided_epoch:
            # proposed on a stale view (Cassandra's Simple computes its members at execute):
            # catch up and propose again
            node.fetcher.want(result.decided_epoch, result.sender)
            self._resume_at = result.decided_epoch
            return
        elif what in _FAIL_AT_ONCE:
            seen = st.get("cms_view")
            view = "" if seen is None or "is a CMS member" not in result.reason else \
                f" (maybeReconfigureCMS: not a full CMS member in {node.id}'s view at epoch {seen})"
            self._finish(f"rejected: {result.reason}{view}")
            return
        else:
            # a step refused: if the deciding member was ahead (the step committed already, a
            # cancel), catch up and let the metadata say what next; if we were as far as it
            # and the sequence still waits for this step, the operation cannot go on
            if node.log.applied < result.decided_epoch \
                    and not bugs.on(node.settings, "rejected-commit-no-catchup"):
                node.fetcher.want(result.decided_epoch, result.sender)
                self._resume_at = result.decided_epoch
                return
            seq = node.log.metadata.sequences.get(st["seq_node"])
            if seq is not None and seq.next_step == what:
                self._finish(f"failed: {what} rejected: {result.reason}")
                return
        self.advance()

    def _await_barrier(self, step: str, wait_for: int, seq_node: str) -> None:
        node = self._node
        self._waiting = True

        def passed(level: str) -> None:
            self._waiting = False
            self._barrier = None
            self._barrier_passed = (step, wait_for)
            self.advance()

        if bugs.on(node.settings, "no-progress-barrier"):
            node.timer(0, passed, "NONE")
            return
        if node.settings.mode == "gossip":
            # the gossip era's only safeguard: wait RING_DELAY and hope everyone has heard
            node.timer(node.settings.ring_delay_ns, passed, "RING_DELAY")
            return
        node.world.protocol.emit(BarrierStart, driver=node.id, seq_node=seq_node, step=step, wait_for=wait_for)
        self._barrier = ProgressBarrier(node, wait_for=wait_for, sequence_node=seq_node,
                                        excluded=self._excluded(), on_pass=passed)
        self._barrier.start()

    def _stream(self, epoch: int) -> None:
        node = self._node
        st = self.state
        assert st is not None
        self._waiting = True

        def done() -> None:
            streaming = self._streaming
            if streaming is not None:
                node.counters["streams_" + st["op"]] += len(streaming.tasks)
            self._waiting = False
            self._streaming = None
            self._streamed_for = epoch
            if streaming is not None and st["op"] in ("remove", "replace"):
                # what reached each new replica, and from whom: the judge's evidence for the
                # single-source finding (the world records it; a real node would not)
                node.world.streamed(node.id, st["op"], st["seq_node"], self._excluded(), [
                    (task, streaming.served_by.get(i)) for i, task in enumerate(streaming.tasks)])
            self.advance()

        tasks = plan(node.log.metadata, st["seq_node"], self._excluded(),
                     from_new_replicas=bugs.on(node.settings, "stream-from-non-replica"),
                     from_remaining=bugs.on(node.settings, "stream-from-remaining-replica"),
                     wait_for_excluded=bugs.on(node.settings, "removenode-nothing-to-stream-hangs"),
                     all_sources=fixes.on(node.settings.fixes, fixes.STREAM_FROM_ALL_REPLICAS))
        halted = elsewhere(st["op"], st["seq_node"], tasks)
        if halted is not None:
            self._waiting = False
            self._finish(f"failed: bootstrap streaming failed: {halted}")
            return

        def failed(why: str) -> None:
            # Cassandra's bootstrap, unbootstrap, move and removenode streams fail on a dead peer
            # and the sequence stays (impl/node/streaming.py names the methods): the operator
            # resumes or cancels it
            self._waiting = False
            self._streaming = None
            self._finish(f"failed: streaming failed: {why}")

        # (gossip mode, the CEP's "before" whose examples script a bootstrap that waits for its
        # source to come back, keeps retrying: docs/faithfulness.md)
        self._streaming = Streaming(node, tasks, done, on_failed=None if node.settings.mode == "gossip" else failed,
                                    # the replaced or removed node is dead (replace and removenode
                                    # refuse a live one): only the planted hang waits for it for ever
                                    waits_for=self._excluded() if bugs.on(
                                        node.settings, "removenode-nothing-to-stream-hangs") else None)
        self._streaming.start()

    # --- events ---

    def on_log_advanced(self) -> None:
        st = self.state
        if st is None or st["outcome"] is not None:
            return
        if self._waiting and st["prepared"] and st["seq_node"] not in node_sequences(self._node):
            # cancelled (or finished by someone else) while we waited
            for part in (self._barrier, self._streaming):
                if part is not None:
                    part.cancel()
            self._barrier = None
            self._streaming = None
            self._waiting = False
        self.advance()

    def on_watermark(self, msg: WatermarkResponse) -> None:
        if self._barrier is not None:
            self._barrier.on_watermark(msg)

    def on_stream_complete(self, msg: StreamComplete) -> None:
        if self._streaming is not None:
            self._streaming.on_complete(msg)


def node_sequences(node: Host) -> dict[str, Any]:
    seqs: dict[str, Any] = node.log.metadata.sequences
    return seqs
