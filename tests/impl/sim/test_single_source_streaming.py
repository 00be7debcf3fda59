"""Finding remove-replace-single-source: replace and removenode stream each range from ONE
remaining replica (Cassandra's BootstrapAndReplace / RemoveNodeStreams), so an acknowledged
write that source lacks is lost; the judge tells this apart from a lost-write bug, and the fix
stream-from-all-replicas closes it (docs/findings.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve

from campaign.formats.scenario import parse_scenario
from campaign.judge.cause import SINGLE_SOURCE_LOSS
from campaign.judge.judgement import judge
from campaign.kinds import checked
from campaign.run.findings import known_finding
from campaign.run.record import RunSpec
from impl.cluster import run_scenario

DATA = Path(__file__).parent / "data"
FIX = frozenset({"stream-from-all-replicas"})
KNOWN = f"clients: {SINGLE_SOURCE_LOSS}"


def rf3_replace() -> dict[str, Any]:
    """RF 3 QUORUM: n1 cut off while keys are written, n4 dies, d1 replaces it from n1; hints
    off (with them n1 gets what it missed after the heal: stale, not lost —
    test_with_hints_the_replace_heals below)."""
    doc: dict[str, Any] = json.loads((DATA / "replace-rf3-single-source.json").read_text())
    return doc


def as_remove(doc: dict[str, Any]) -> dict[str, Any]:
    return {**doc, "operations": [{"op": "remove", "node": "n2", "target": "n4", "at_ms": 40_000}]}


@pytest.mark.parametrize(("case", "seed"), [(rf3_replace(), 2), (as_remove(rf3_replace()), 1)])
def test_a_single_source_stream_loses_acknowledged_writes_and_the_fix_keeps_them(case: dict[str, Any],
                                                                                 seed: int) -> None:
    faithful = checked(RunSpec(kind="sim", seed=seed, case=case))
    assert faithful.cause is not None and faithful.cause.text == KNOWN
    finding = known_finding(faithful.cause.klass)
    assert finding is not None and finding.id == "remove-replace-single-source"
    losses = faithful.details["stream_losses"]
    assert losses and all("from n1 only" in line for line in losses)
    assert known_finding(faithful.cause.klass, FIX) is None  # with the fix it would be new
    assert checked(RunSpec(kind="sim", seed=seed, case=case, fixes=FIX)).valid


def test_without_the_stream_evidence_the_same_failure_is_a_plain_lost_write() -> None:
    """The classification rests on what the streams delivered: the same run judged without
    that evidence is an unexplained (new) failure."""
    scenario = parse_scenario(rf3_replace())
    result = run_scenario(scenario, 2)
    assert all(r.faithful and len(r.sources) == 1 for r in result.streams)
    assert any(r.sources == ("n1",) for r in result.streams)
    assert judge(scenario, result).summary()["clients"]["cause"] == SINGLE_SOURCE_LOSS
    blind = judge(scenario, evolve(result, streams=()))
    assert "clients" in blind.summary() and blind.summary()["clients"]["cause"] == "not-linearizable"


def test_a_stream_from_a_non_replica_is_not_this_finding() -> None:
    """Switch stream-from-non-replica (a bug: the source is a new replica) loses the same
    writes, but the stream is not Cassandra's, so the failure stays new."""
    out = checked(RunSpec(kind="sim", seed=2, case=rf3_replace(), mutant="stream-from-non-replica"))
    assert out.cause is not None and out.cause.text == "clients: not-linearizable"
    assert known_finding(out.cause.klass) is None


def test_rf1_replace_streams_from_nobody() -> None:
    """RF 1: the replaced node was the only replica, so nothing is streamed (RangeStreamer:
    'Keyspace might be missing data'); the fix asks the replaced node itself."""
    doc = json.loads((Path(__file__).resolve().parents[3] / "examples" / "findings"
                      / "remove-replace-single-source.json").read_text())
    out = checked(RunSpec(kind="sim", seed=doc["seed"], case=doc["case"]))
    assert out.cause is not None and out.cause.text == KNOWN
    assert all(line.endswith("from nobody") for line in out.details["stream_losses"])
    assert checked(RunSpec(kind="sim", seed=doc["seed"], case=doc["case"], fixes=FIX)).valid


def test_with_hints_the_replace_heals() -> None:
    """The same replace with hinted handoff on: n1 gets the writes it missed once the partition
    heals and the coordinators replay their hints, so the later reads see them."""
    doc = rf3_replace()
    doc["settings"] = {**doc["settings"], "hinted_handoff_enabled": True}
    out = checked(RunSpec(kind="sim", seed=2, case=doc))
    assert out.valid, out.cause
    assert dict(out.counters).get("hints_replayed", 0) > 0

