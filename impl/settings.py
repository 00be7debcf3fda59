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
    # the failure detector (impl/node/failure_detector.py, Cassandra's defaults): phi above which
    # a silent peer is convicted, the first inter-arrival time assumed and the longest recorded
    # (0: twice the gossip interval, Cassandra's FD_INITIAL_VALUE_MS / FD_MAX_INTERVAL_MS)
    phi_convict_threshold: float = 8.0
    fd_initial_value_ns: int = 0
    fd_max_interval_ns: int = 0
    election_timeout_ns: int = ms_to_ns(1000)
    stream_timeout_ns: int = ms_to_ns(1000)
    end_time_ns: int = ms_to_ns(600_000)
    # the data path (Cassandra's write_request_timeout / read_request_timeout)
    write_timeout_ns: int = ms_to_ns(2000)
    read_timeout_ns: int = ms_to_ns(5000)
    # progress barrier (ProgressBarrier): the level tried first, the lowest it may relax to,
    # how long each level is tried, and how often unanswered peers are asked again
    barrier_consistency: str = "EACH_QUORUM"
    barrier_min_consistency: str = "EACH_QUORUM"
    barrier_timeout_ns: int = ms_to_ns(10_000)
    barrier_retry_ns: int = ms_to_ns(200)
    stream_retry_ns: int = ms_to_ns(1000)
    # "tcm" (the CEP) or "gossip" (the baseline: no epoch checks, no barrier, slow metadata)
    mode: str = "tcm"
    ring_delay_ns: int = ms_to_ns(1000)  # gossip mode: the fixed wait between steps
    # gossip mode: a committed entry reaches each non-CMS node after a delay up to this
    gossip_spread_ns: int = ms_to_ns(3000)
    # known-bug switches planted in this run (impl/bugs.py); empty in every real run
    mutants: frozenset[str] = frozenset()
    # proposed fixes that change the data path (spec/fixes.py; e.g. stream-from-all-replicas);
    # the metadata fixes act through the engine instead. Empty: Cassandra's behaviour
    fixes: frozenset[str] = frozenset()
