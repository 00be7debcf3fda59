"""CEP-21's "Consistency Guarantees", end to end on impl/: QUORUM clients during a bootstrap.

The gossip-era baseline (`"mode": "gossip"`: metadata spreads at random, a fixed RING_DELAY
instead of a progress barrier, no epoch checks on the data path) shows both failures the CEP
describes; TCM shows neither, on the same scenarios and seeds:
- transient: a QUORUM read misses an acknowledged QUORUM write during the bootstrap;
- permanent: an acknowledged write is gone for good once the old owner has given up the
  range and one remaining replica is down.
"""

from __future__ import annotations

from typing import Any

import pytest

from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import judge
from checkers.linearizability.model import KV
from checkers.linearizability.wgl import check
from impl.cluster import Cluster
from observed.run import Observed

from .cep21 import bootstrap, lost_after_bootstrap, lost_writes


def run(doc: dict[str, Any], seed: int) -> tuple[Cluster, Observed, Any]:
    scenario = parse_scenario(doc)
    cluster = Cluster(scenario, seed)
    result = cluster.run()
    return cluster, result, judge(scenario, result)


def test_gossip_bootstrap_serves_a_stale_quorum_read_and_tcm_does_not() -> None:
    _, result, verdict = run(bootstrap("gossip"), 2)
    assert verdict.summary()["clients"]["valid"] is False
    assert verdict.summary()["logs"]["valid"] is True  # the metadata log itself is fine: the data path is not
    assert [(o.node, o.op, o.outcome) for o in result.operations] == [("n4", "join", "completed")]
    _, result, verdict = run(bootstrap("tcm"), 2)
    assert verdict.valid and len(result.client_history) >= 200


def test_gossip_bootstrap_loses_an_acknowledged_write_for_good_and_tcm_does_not() -> None:
    cluster, result, verdict = run(lost_after_bootstrap("gossip"), 18)
    assert lost_writes(cluster, result)
    assert verdict.summary()["clients"]["valid"] is False
    cluster, result, verdict = run(lost_after_bootstrap("tcm"), 18)
    assert lost_writes(cluster, result) == [] and verdict.valid


CHUNK = 250


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["bootstrap", "lost_after_bootstrap"])
@pytest.mark.parametrize("first", range(1, 1001, CHUNK))
def test_tcm_loses_nothing_over_1000_seeds(scenario: str, first: int) -> None:
    doc = bootstrap("tcm") if scenario == "bootstrap" else lost_after_bootstrap("tcm")
    parsed = parse_scenario(doc)
    bad = []
    for seed in range(first, first + CHUNK):
        cluster = Cluster(parsed, seed)
        result = cluster.run()
        # the client history only (the metadata log is judged by the other sim tests)
        verdict = check(KV, result.client_history)
        if verdict.valid is not True or lost_writes(cluster, result):
            bad.append(seed)
    assert bad == []
