"""Determinism: "the same seed and code must give the same hash" (issue 3)."""

from __future__ import annotations

from impl.cluster import run_scenario
from impl.scenario import Crash, Partition, Workload
from impl.sim.clock import ms_to_ns

from .helpers import FAULTY, scenario


def faulty_scenario():  # type: ignore[no-untyped-def]
    return scenario(
        5,
        workloads=(Workload(count=15, start=ms_to_ns(100), spread=ms_to_ns(1500), names=2),),
        crashes=(Crash(node="n02", at=ms_to_ns(400), restart=ms_to_ns(1200)),),
        partitions=(Partition(groups=(("n05",),), start=ms_to_ns(300), heal=ms_to_ns(900)),),
        network=FAULTY,
    )


def test_the_same_seed_gives_the_same_trace_hash_and_summary_over_50_faulty_seeds() -> None:
    sc = faulty_scenario()
    for seed in range(50):
        a = run_scenario(sc, seed)
        b = run_scenario(sc, seed)
        assert a.trace_hash == b.trace_hash, seed
        assert a.summary() == b.summary(), seed
        assert (a.clients, a.commits) == (b.clients, b.commits), seed


def test_different_seeds_give_different_traces() -> None:
    sc = faulty_scenario()
    hashes = {run_scenario(sc, seed).trace_hash for seed in range(10)}
    assert len(hashes) == 10


def test_a_kept_trace_hashes_to_the_trace_hash() -> None:
    import hashlib

    r = run_scenario(faulty_scenario(), 7, keep_trace=True)
    h = hashlib.blake2b(digest_size=16)
    for line in r.trace:
        h.update(line.encode())
    assert h.hexdigest() == r.trace_hash
    assert len(r.trace) == r.trace_events
    assert {line.split()[1] for line in r.trace} >= {"send", "deliver", "drop", "crash",
                                                     "restart", "commit", "apply"}


def test_a_run_result_pickles_for_other_processes() -> None:
    """Spark and pytest-xdist ship results between processes."""
    import pickle

    r = run_scenario(faulty_scenario(), 1)
    assert pickle.loads(pickle.dumps(r)) == r
