"""The protocol paths a simulated run can exercise, counted from its counters (impl's), so that a
campaign shows which of them it reached and `tcmcheck report` which it never did.

Each path is a counter impl increments where the protocol takes that branch: a replica refusing a
coordinator as behind or misrouted, a coordinator's re-check failing, a request unavailable,
a barrier relaxing, a hint stored (and why) and replayed, a failure-detector conviction and
revival, a repair and its syncs, a read repair, a speculative read, a stream.
"""

from __future__ import annotations

from collections.abc import Iterable

from checkers.protocol import failure_detector, hints, read_repair, repair

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


JUDGED_PATHS: tuple[str, ...] = tuple(
    f"{check}: {path}" for check, names in (("repair", repair.PATHS), ("hint-replay", hints.PATHS),
                                            ("read-repair", read_repair.PATHS),
                                            ("failure-detector", failure_detector.PATHS))
    for path in names)
"""What the checks of the components' promises judge, `check: path` (campaign/judge/checks/:
repair, hint-replay, read-repair, failure-detector), in the order the report lists them: a
promise is only as well checked as the paths its runs reached."""


def judged_paths(judged: Iterable[tuple[str, int]]) -> dict[str, int]:
    """The run's counts of the promises' paths its checks judged (those never judged left out)."""
    have = dict(judged)
    return {name: have[name] for name in JUDGED_PATHS if have.get(name)}


def paths(counters: Iterable[tuple[str, int]]) -> dict[str, int]:
    """The run's counts of the protocol paths it took (those it never took left out)."""
    have = dict(counters)
    return {name: have[name] for name in PROTOCOL_PATHS if have.get(name)}


__all__ = ["JUDGED_PATHS", "PROTOCOL_PATHS", "judged_paths", "paths"]
