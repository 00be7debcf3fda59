"""Streaming with a peer dead for good (impl/node/streaming.py): Cassandra's bootstrap,
unbootstrap, move and removenode streams fail on a peer that is down and leave the sequence in
the metadata for the operator (BootstrapAndJoin.executeNext: RangeStreamer's
FailureDetectorSourceFilter -> "Necessary replicas for strict consistency were removed by source
filters" -> `error`, a failed stream -> `halted`; UnbootstrapAndLeave.executeNext: "Error while
decommissioning node"). The simulator used to stream from or to the dead node for ever, and the
judge called the operation stuck (fuzz seeds 60613182415 and 60613185999, shrunk here). The judge
accepts such a halt when the peer crashed or was cut off, and names any other apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve

from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import judge
from campaign.kinds import checked
from campaign.run.record import RunSpec
from impl.cluster import run_scenario

DATA = Path(__file__).parent / "data"


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((DATA / name).read_text())
    return doc


@pytest.mark.parametrize(("name", "op", "node"), [("join-source-dead-for-good.json", "join", "d2"),
                                                  ("leave-destination-dead-for-good.json", "leave", "n7")])
def test_an_operation_streaming_with_a_node_dead_for_good_fails_and_leaves_its_sequence(
        name: str, op: str, node: str) -> None:
    doc = load(name)
    result = run_scenario(parse_scenario(doc["case"]), seed=int(doc["seed"]))
    assert [(u.node, u.op) for u in result.unfinished] == []
    [outcome] = [o.outcome for o in result.operations if (o.node, o.op) == (node, op)]
    assert outcome == "failed: streaming failed: n5 is down"
    out = checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"]))
    assert out.valid, out.cause


@pytest.mark.parametrize("name", ["join-source-dead-for-good.json", "leave-destination-dead-for-good.json"])
def test_a_halt_on_a_peer_that_never_crashed_is_named_apart(name: str) -> None:
    doc = load(name)
    scenario = parse_scenario(doc["case"])
    result = run_scenario(scenario, seed=int(doc["seed"]))
    # the same run judged as if n5 had never crashed (the failure detector convicting a live
    # node); the judge sees the halted sequence still in the metadata
    causes = judge(evolve(scenario, crashes=()), result).family("liveness")
    assert [str(c) for c in causes] == [
        f"liveness: streaming failed on a peer never crashed nor cut off: {result.operations[-1].op} on "
        f"{result.operations[-1].node} ended 'failed: streaming failed: n5 is down'"]


def test_a_driver_that_restarted_does_not_fail_a_stream_on_a_live_reachable_peer() -> None:
    """Fresh seed 60613181863: n4 crashes during its decommission and restarts; its failure
    detector sees its peers DOWN until gossip and an echo say otherwise. A stream fails on its
    connection, not on that view (a first version asked the failure detector and failed 'n1 is
    down' with n1 alive and reachable)."""
    doc = load("leave-after-driver-restart.json")
    out = checked(RunSpec(kind="sim", seed=doc["seed"], case=doc["case"]))
    assert out.valid, out.cause


def test_an_operation_waiting_on_a_cms_addition_that_died_for_good_is_not_stuck() -> None:
    """Fresh seed 60613183174, shrunk: n4 dies for good; 4 s later n3's decommission reconfigures
    the CMS first (maybeReconfigureCMS), and n3's failure detector, which has not convicted n4
    yet, lets the policy add n4. ReconfigureCMS.executeNext is `blocked` while the node it adds
    is down, so the leave waits for the operator: the fault's stall, not a bug."""
    doc = load("leave-waits-on-dead-cms-addition.json")
    spec = RunSpec(kind="sim", seed=doc["seed"], case=doc["case"])
    out = checked(spec)
    assert out.valid, out.cause
    # the same run with n4 back (a restart) must finish the leave: the judge still sees stalls
    revived = json.loads(json.dumps(doc["case"]))
    revived["faults"]["crashes"][0]["restart_ms"] = 20_000
    assert checked(RunSpec(kind="sim", seed=doc["seed"], case=revived)).valid
