"""Operator commands a node runs for another node's sequence (trunk 6bbe85ef), decided on this
node's own metadata and failure-detector view:

- `cancel`: JMX `CMSOperations.cancelInProgressSequences(id, kind)` (and `nodetool removenode
  abort`, kind REMOVE) -> `InProgressSequences.cancelInProgressSequences` ->
  `StorageService.cancelInProgressSequences`: no liveness or state check, only a sequence of
  the expected kind in the local metadata; one CANCEL_SEQUENCE commit (no barrier first); a
  rejected commit is logged, not raised.
- `abort_bootstrap`: `nodetool abortbootstrap --node id` -> `StorageService.abortBootstrap`:
  refused for a node this node sees alive (itself always), a state other than REGISTERED /
  BOOTSTRAPPING / BOOT_REPLACING, a sequence other than a join or replace; else CANCEL_SEQUENCE
  when its local metadata holds a sequence, then UNREGISTER with the start states
  REGISTERED, BOOTSTRAPPING, BOOT_REPLACING (two commits; the CMS executes the UNREGISTER on the
  newest metadata, which the local view may lag: finding `unregister-prepared-join`).

Each command's outcome is recorded like an operation's (`cancel` / `abortbootstrap`: completed,
`refused: <message>`, `rejected: <reason>`).

Fix `two-epoch-cancel` (not Cassandra's rule): a cancel after MID commits CANCEL_SEQUENCE twice —
the first gives the reads back (impl/metadata/fixes.py), the second, once a progress barrier on
the first has passed (as before a forward step), narrows the writes and releases the locks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from impl.entry import canonical_json
from impl.messages import SubmitResult, WatermarkResponse
from impl.node import operator_checks as checks
from impl.node.progress_barrier import ProgressBarrier

if TYPE_CHECKING:
    from impl.node.host import Host

ABORT_BOOTSTRAP_STATES = ["REGISTERED", "BOOTSTRAPPING", "BOOT_REPLACING"]


class OperatorCommands:
    def __init__(self, node: Host) -> None:
        self._node = node
        self._barrier: ProgressBarrier | None = None
        """Fix two-epoch-cancel: the barrier before a cancel's second commit."""

    def _done(self, what: str, outcome: str) -> None:
        node = self._node
        node.trace.event("operation", node.id, "-", f"{what} {outcome}")
        node.world.operation_finished(node.id, what, outcome)

    def cancel(self, target: str, kind: str | None = None) -> None:
        node = self._node
        refusal = checks.cancel(node.log.metadata, target, kind)
        if refusal is not None:
            self._done("cancel", "refused: " + refusal)
            return
        node.trace.event("operation", node.id, "-", f"cancel {target}")
        seq = node.log.metadata.sequences.get(target)
        split = "two-epoch-cancel" in node.settings.fixes and seq is not None and seq.next_step == "FINISH"
        cancel = canonical_json({"kind": "CANCEL_SEQUENCE", "node": target})

        def done(result: SubmitResult) -> None:
            self._done("cancel", "completed" if result.outcome == "committed" else f"rejected: {result.reason}")

        def first_done(result: SubmitResult) -> None:
            if result.outcome != "committed":
                done(result)
                return

            def passed(level: str) -> None:
                self._barrier = None
                node.submitter.submit(cancel, done)

            self._barrier = ProgressBarrier(node, wait_for=result.committed_epoch, sequence_node=target,
                                            excluded=None, on_pass=passed)
            self._barrier.start()

        node.submitter.submit(cancel, first_done if split else done)

    def on_watermark(self, msg: WatermarkResponse) -> None:
        if self._barrier is not None:
            self._barrier.on_watermark(msg)

    def crash(self) -> None:
        if self._barrier is not None:
            self._barrier.cancel()
            self._barrier = None

    def abort_bootstrap(self, target: str) -> None:
        node = self._node
        meta = node.log.metadata
        refusal = checks.abort_bootstrap(meta, target, node.sees_alive)
        if refusal is not None:
            self._done("abortbootstrap", "refused: " + refusal)
            return
        node.trace.event("operation", node.id, "-", f"abortbootstrap {target}")
        unregister = canonical_json({"kind": "UNREGISTER", "node": target, "allowed": ABORT_BOOTSTRAP_STATES})

        def unregistered(result: SubmitResult) -> None:
            self._done("abortbootstrap", "completed" if result.outcome == "committed" else f"rejected: {result.reason}")

        def cancelled(result: SubmitResult) -> None:
            if result.outcome != "committed":
                self._done("abortbootstrap", f"rejected: {result.reason}")
                return
            node.submitter.submit(unregister, unregistered)

        if target in meta.sequences:
            node.submitter.submit(canonical_json({"kind": "CANCEL_SEQUENCE", "node": target}), cancelled)
        else:
            node.submitter.submit(unregister, unregistered)


__all__ = ["ABORT_BOOTSTRAP_STATES", "OperatorCommands"]
