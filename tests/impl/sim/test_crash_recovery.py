"""A CMS member's Paxos state is persisted: promises and accepted values survive a crash.

Paxos is safe only if an acceptor never forgets what it promised or accepted. Here pairs of
CMS members crash and restart every ~100 ms while requests race and 30% of messages are lost,
so a value can be accepted by a bare quorum whose members then restart. (With the acceptor
state wiped on restart, seeds 90 and 94 put two different entries at one epoch.)
"""

from __future__ import annotations

import random

import pytest

from impl.bus import Latency, NetworkFaults
from impl.cluster import run_scenario
from impl.scenario import Crash, Scenario, Workload
from impl.settings import Settings
from impl.sim.clock import ms_to_ns

from .helpers import scenario
from .test_commit_safety import check_commit_safety


def crashy(seed: int) -> Scenario:
    rng = random.Random(seed)
    crashes = []
    t = 200.0
    while t < 8000:
        for node in rng.sample([f"n0{i}" for i in range(1, 6)], 2):
            crashes.append(Crash(node=node, at=ms_to_ns(t + rng.uniform(0, 10)),
                                 restart=ms_to_ns(t + rng.uniform(15, 40))))
        t += rng.uniform(45, 120)
    return scenario(
        7, cms_size=5,
        workloads=(Workload(count=300, start=ms_to_ns(100), spread=ms_to_ns(8000), names=3),),
        crashes=tuple(crashes),
        network=NetworkFaults(loss=0.3, reorder=0.3, reorder_extra_ms=30,
                              latency=Latency(dist="exponential", a=8, b=1)),
        settings=Settings(end_time_ns=ms_to_ns(900_000)))


@pytest.mark.parametrize("seed", [90, 94])
def test_acceptor_state_survives_crashes_of_cms_members(seed: int) -> None:
    sc = crashy(seed)
    r = run_scenario(sc, seed)
    assert r.counter("crashes") > 100
    check_commit_safety(sc, r)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(200))
def test_acceptor_state_survives_crashes_of_cms_members_many(seed: int) -> None:
    sc = crashy(seed)
    check_commit_safety(sc, run_scenario(sc, seed))
