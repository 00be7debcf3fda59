"""Timeouts and sizes of a run (all times in virtual nanoseconds)."""

from __future__ import annotations

from attrs import frozen

from impl.sim.clock import ms_to_ns


@frozen(kw_only=True)
class Settings:
    snapshot_interval: int = 100
    # a fetcher answers with the newest snapshot when the asker is further behind than this
    snapshot_catchup_threshold: int = 100
    paxos_timeout_ns: int = ms_to_ns(100)
    retry_backoff_ns: int = ms_to_ns(5)
    retry_backoff_max_ns: int = ms_to_ns(500)
    fetch_timeout_ns: int = ms_to_ns(200)
    submit_timeout_ns: int = ms_to_ns(10_000)
    max_submit_attempts: int = 5
    gossip_interval_ns: int = ms_to_ns(1000)
    election_timeout_ns: int = ms_to_ns(1000)
    stream_timeout_ns: int = ms_to_ns(1000)
    end_time_ns: int = ms_to_ns(600_000)
