"""The operation driver: a node runs its own topology operation step by step (Cassandra's
InProgressSequence.executeNext for BootstrapAndJoin, UnbootstrapAndLeave, Move,
BootstrapAndReplace and RemoveNode).

PREPARE (after REGISTER, for a joining or replacing node) -> START -> [barrier on the START
epoch] streaming -> MID -> [barrier on the MID epoch] FINISH. Each step is a commit request
through the node's submitter; START needs no barrier (`ProgressBarrier.immediate`). What the
driver knows is persisted on the node's disk and the rest is read back from the metadata, so a
node that crashes mid-operation resumes where the log says it is. A rejected PREPARE (another
operation holds an overlapping range, say) ends the operation as rejected. An operator cancel
(CANCEL_SEQUENCE, no barrier first) is submitted by the driver's node; the driver stops when the
sequence disappears from the metadata. In gossip mode the barrier is a fixed wait (RING_DELAY).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impl import bugs
from impl.entry import canonical_json
from impl.messages import StreamComplete, SubmitResult, WatermarkResponse
from impl.node.progress_barrier import ProgressBarrier
from impl.node.streaming import Streaming, plan

if TYPE_CHECKING:
    from impl.node.host import Host

_STEP_OP = {"JOIN": "JOIN", "LEAVE": "LEAVE", "REMOVE": "LEAVE", "MOVE": "MOVE",
            "REPLACE": "REPLACE"}


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
        if op == "remove":
            refusal = self._refuse_remove(target)
            if refusal is not None:
                node.trace.event("operation", node.id, "-", f"remove refused: {refusal}")
                node.world.operation_finished(node.id, op, "refused: " + refusal)
                return
        seq_node = target if op == "remove" else node.id
        node.disk.operation = {"op": op, "seq_node": seq_node, "target": target,
                               "tokens": list(tokens), "location": location, "prepared": False,
                               "last_epoch": 0, "outcome": None}
        node.trace.event("operation", node.id, "-", f"begin {op}")
        self.advance()

    def _refuse_remove(self, target: str | None) -> str | None:
        """What `nodetool removenode` refuses before committing anything
        (SingleNodeSequences.removeNode): removing itself, a node the directory does not know, a
        live one (the failure detector's view: here, a running process; a cut-off node counts as
        live, as it would until its phi rises) — "use decommission" — and a node with an
        operation in progress. A node already LEAVING is removed anyway (Cassandra warns)."""
        node = self._node
        meta = node.log.metadata
        if target is None or target == node.id:
            return "cannot remove self"
        if target not in meta.directory:
            return "host id not found"
        if node.world.is_up(target):
            return f"node {target} is alive (use decommission)"
        if target in meta.sequences:
            return "cannot remove a node that has an in-progress sequence"
        return None

    def cancel(self) -> None:
        """The operator's CANCEL_SEQUENCE, submitted at once (no barrier before a cancel)."""
        node = self._node
        st = self.state
        seq_node = st["seq_node"] if st is not None else node.id
        node.trace.event("operation", node.id, "-", f"cancel {seq_node}")
        node.submitter.submit(canonical_json({"kind": "CANCEL_SEQUENCE", "node": seq_node}))

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
        seq_node = st["seq_node"]
        seq = meta.sequences.get(seq_node)
        op = st["op"]
        if seq is None:
            if st["prepared"]:
                done = meta.directory.get(seq_node)
                finished = (op in ("join", "replace", "move") and done is not None
                            and done.state.value == "JOINED") or (
                    op in ("leave", "remove") and (done is None or done.state.value == "LEFT"))
                self._finish("completed" if finished else "cancelled")
                return
            if op in ("join", "replace") and node.id not in meta.directory:
                dc, rack = st["location"]
                self._submit({"kind": "REGISTER", "node": {"id": node.id, "dc": dc, "rack": rack}},
                             "REGISTER")
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
        node.world.protocol.emit("step_submit", node.id, st["seq_node"], st["op"],
                                 str(transformation["kind"]), entry)
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
        if result.outcome == "committed":
            if what == "PREPARE":
                st["prepared"] = True
            st["last_epoch"] = result.committed_epoch
            if self._node.log.applied < result.committed_epoch:
                self._node.fetcher.want(result.committed_epoch, result.sender)
                self._resume_at = result.committed_epoch
                return  # advance() runs when the log gets there
        elif what in ("PREPARE", "REGISTER"):
            self._finish(f"rejected: {result.reason}")
            return
        else:
            # a step refused: if the deciding member was ahead (the step committed already, a
            # cancel), catch up and let the metadata say what next; if we were as far as it
            # and the sequence still waits for this step, the operation cannot go on
            node = self._node
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
        node.world.protocol.emit("barrier_start", node.id, seq_node, step, wait_for)
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
                     all_sources="stream-from-all-replicas" in node.settings.fixes)
        self._streaming = Streaming(node, tasks, done)
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
