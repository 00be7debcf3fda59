"""Random clusters under random faults keep the log's invariants: one entry per epoch on every
node, no entry id twice, every rejection justified, and — once every fault has healed — one
log everywhere."""

from __future__ import annotations

import random

import pytest

from impl.bus import Latency, NetworkFaults
from impl.cluster import run_scenario
from impl.scenario import Crash, Partition, Scenario, Workload
from impl.settings import Settings
from impl.sim.clock import ms_to_ns

from .helpers import scenario
from .test_commit_safety import check_commit_safety


def random_scenario(seed: int) -> Scenario:
    rng = random.Random(seed)
    n = rng.randint(3, 9)
    ids = [f"n{i:02d}" for i in range(1, n + 1)]
    crashes = []
    for node in rng.sample(ids, rng.randint(0, min(3, n))):
        at = rng.uniform(0, 4000)
        crashes.append(Crash(node=node, at=ms_to_ns(at),
                             restart=ms_to_ns(at + rng.uniform(10, 3000))))
    partitions = []
    for _ in range(rng.randint(0, 2)):
        cut = rng.sample(ids, rng.randint(1, n - 1))
        start = rng.uniform(0, 4000)
        partitions.append(Partition(groups=(tuple(sorted(cut)),), start=ms_to_ns(start),
                                    heal=ms_to_ns(start + rng.uniform(10, 3000))))
    dist = rng.choice(["uniform", "exponential", "lognormal"])
    latency = {"uniform": Latency(dist="uniform", a=0.5, b=rng.uniform(1, 20)),
               "exponential": Latency(dist="exponential", a=rng.uniform(0.5, 5), b=0.2),
               "lognormal": Latency(dist="lognormal", a=rng.uniform(0.5, 5), b=0.6)}[dist]
    return scenario(
        n,
        cms_size=rng.choice([None, 1, min(3, n), min(5, n)]),
        workloads=(Workload(count=rng.randint(10, 80), start=ms_to_ns(rng.uniform(0, 500)),
                            spread=ms_to_ns(rng.uniform(10, 5000)), names=rng.randint(1, 4)),),
        crashes=tuple(crashes), partitions=tuple(partitions),
        network=NetworkFaults(loss=rng.choice([0, 0.05, 0.2, 0.4]),
                              duplicate=rng.choice([0, 0.05, 0.3]),
                              reorder=rng.choice([0, 0.3]), latency=latency),
        settings=Settings(snapshot_interval=rng.choice([5, 20, 100]),
                          end_time_ns=ms_to_ns(900_000)),
    )


@pytest.mark.parametrize("seed", range(25))
def test_random_faults_keep_the_log_invariants(seed: int) -> None:
    sc = random_scenario(seed)
    check_commit_safety(sc, run_scenario(sc, seed))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(25, 400))
def test_random_faults_keep_the_log_invariants_many(seed: int) -> None:
    sc = random_scenario(seed)
    check_commit_safety(sc, run_scenario(sc, seed))
