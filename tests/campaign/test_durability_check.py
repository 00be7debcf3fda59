"""The durability check (campaign/judge/checks/durability.py): every cause it gives carries the
writes behind it (campaign/judge/write_fate.py) — replicas that disagree at a quiet end too,
which had no followed write before the judge was made of named checks."""

from __future__ import annotations

from types import SimpleNamespace

from campaign.judge.checks import durability
from observed.cells import KeyCells, ReplicaCell
from observed.protocol import ProtocolTrace
from observed.run import NodeResult, Observed
from tests.calls import client_calls


def _observed(*held: tuple[str, int, int]) -> Observed:
    nodes = tuple(NodeResult(id=r, up=True, applied_epoch=1, log_hash="", first_epoch=1, entries=(),
                             snapshot_epochs=()) for r, _, _ in held)
    calls = client_calls((1, "invoke", "write", 7, 0), (1, "ok", "write", 7, 10), key="k0")
    cells = (KeyCells(keyspace="kv", key="k0", cells=tuple(
        ReplicaCell(replica=r, timestamp=ts, value=v, up=True, read_replica=True) for r, ts, v in held)),)
    return Observed(seed=0, trace_hash="", trace_events=0, final_epoch=1, end_time=20, quiescent=True,
                    nodes=nodes, clients=calls, cells=cells)


def _ctx(observed: Observed) -> SimpleNamespace:
    workloads = (SimpleNamespace(write_cl=("ALL",), read_cl=("QUORUM",), writes=0.5, key_prefix="k", keys=1),)
    return SimpleNamespace(scenario=SimpleNamespace(clients=workloads, clock_skew=()), observed=observed,
                           trace=ProtocolTrace(), whole=False)


def test_replicas_that_disagree_at_a_quiet_end_fail_with_the_newest_write_followed() -> None:
    result = durability.check(_ctx(_observed(("n1", 5, 7), ("n2", -1, -1))))  # type: ignore[arg-type]
    assert [c.klass for c in result.causes] == ["durability: stale replica"]
    assert result.causes[0].text == "durability: replicas of kv/k0 disagree at the end (n1:7, n2:-)"
    assert result.evidence is not None and result.evidence.anomaly == "durability: stale replica"
    [fate] = result.evidence.writes
    assert (fate.kind, fate.key, fate.value) == ("stale replica", "kv/k0", 7)
    assert fate.held == (("n1", 7, True, True), ("n2", None, True, True))


def test_replicas_that_agree_pass() -> None:
    result = durability.check(_ctx(_observed(("n1", 5, 7), ("n2", 5, 7))))  # type: ignore[arg-type]
    assert result.valid and result.evidence is None
