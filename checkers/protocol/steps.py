"""The topology steps a driver submitted that were committed (a scripted submission of a step
has no `StepSubmit`: neither the barrier nor the streaming invariant judges those)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from observed.protocol import ProtocolTrace, StepSubmit


def committed_steps(trace: ProtocolTrace, log: Mapping[int, tuple[str, str, str]]
                    ) -> Iterator[tuple[StepSubmit, int]]:
    """Each driver's step whose entry the log holds, with the epoch it was committed at, in the
    order the drivers submitted them. `log`: epoch -> (entry kind, the node it names, entry id)."""
    committed = {entry_id: epoch for epoch, (_, _, entry_id) in log.items()}
    for step in trace.steps:
        e = committed.get(step.entry_id)
        if e is not None:
            yield step, e


__all__ = ["committed_steps"]
