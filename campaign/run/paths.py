"""The protocol paths a simulated run can exercise, counted from its counters (impl's), so that a
campaign shows which of them it reached and `tcmcheck report` which it never did.

Each path is a counter impl increments where the protocol takes that branch: a replica refusing a
coordinator as behind or misrouted, a coordinator's re-check failing, a request unavailable,
a barrier relaxing, a hint stored (and why) and replayed, a failure-detector conviction and
revival, a repair and its syncs, a read repair, a speculative read, a stream.
"""

from __future__ import annotations

from collections.abc import Iterable

PROTOCOL_PATHS: tuple[str, ...] = (
    "coordinator_behind_write", "invalid_routing_write", "invalid_routing_read",
    "coordinator_revalidation_failures", "unavailable_write", "unavailable_read",
    "barrier_relaxations", "hints_stored_down", "hints_stored_timeout", "hints_stored_refused",
    "hints_stored_any", "hints_stored_rehint", "hints_replayed", "hints_past_window",
    "fd_convictions", "fd_revivals", "repairs", "repairs_failed", "repair_syncs", "read_repairs",
    "read_repair_mutations", "speculative_reads", "streams_join", "streams_leave", "streams_move",
    "streams_replace", "streams_remove", "stream_retries", "write_timeouts", "read_timeouts",
    "writes_any", "writes_pending_quorum", "writes_pending_each_quorum", "writes_pending_local_quorum",
    "writes_pending_all", "writes_pending_one", "served_behind",
)
"""Every path, in the order the report lists them."""


def paths(counters: Iterable[tuple[str, int]]) -> dict[str, int]:
    """The run's counts of the protocol paths it took (those it never took left out)."""
    have = dict(counters)
    return {name: have[name] for name in PROTOCOL_PATHS if have.get(name)}


__all__ = ["PROTOCOL_PATHS", "paths"]
