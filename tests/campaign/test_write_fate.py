"""Durability causes carry their evidence (campaign/judge/write_fate.py): for a lost write or a
write a stale read missed, the key with its keyspace, the acknowledged write (value, level,
coordinator, replicas that acknowledged it, epoch), what each replica holds at the end, and the
streams and hints that carried it or did not — also when the client history is linearizable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.cli import main
from campaign.judge.evidence import Evidence
from campaign.judge.write_fate import write_fate
from campaign.kinds import checked, load_failure
from campaign.kinds.sim import payload

ROOT = Path(__file__).resolve().parents[2]
LOST = ROOT / "examples" / "findings" / "remove-replace-single-source.json"


def writes_only(tmp_path: Path) -> Path:
    """The pinned finding without its reads after the replace: nothing reads the lost writes, so
    the client history is linearizable and the lost writes are the run's only cause."""
    doc = json.loads(LOST.read_text())
    doc["case"]["clients"] = doc["case"]["clients"][:1]
    path = tmp_path / "writes-only.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def lost() -> Evidence:
    found = payload(checked(load_failure(LOST))).evidence
    assert found is not None
    return found


def test_a_lost_write_says_who_acknowledged_it_what_replicas_hold_and_which_stream_missed_it(lost: Evidence) -> None:
    """RF 1: n3 acknowledged k6=26 at ONE, died; d2 replaced it and streamed its range from nobody,
    so at the end d2, the key's one replica, holds nothing and no hint carries the write."""
    assert lost.key == "kv/k6" and {o.key for o in lost.operations} == {"kv/k6"}  # the keyspace everywhere
    first = lost.writes[0]
    assert (first.kind, first.key, first.value, first.level, first.coordinator) == ("lost write", "kv/k6", 26, "ONE", "n2")
    assert first.replicas == ("n3",) and first.acknowledged_by == ("n3",) and first.epoch is not None
    assert [(n, via) for n, via, _ in first.stored] == [("n3", "mutation")]
    assert first.held == (("d2", None, True, True),)
    [stream] = first.streams
    assert stream.startswith("replace of n3 by d2 streamed (") and "to d2 from nobody" in stream
    assert stream.endswith("did not carry it (d2 then held nothing)")
    assert first.hints == ()
    assert [(w.key, w.value) for w in lost.writes] == [("kv/k6", 26), ("kv/k6", 21), ("kv/k6", 22)]
    assert Evidence.from_json(json.loads(json.dumps(lost.to_json()))) == lost


def test_a_lost_write_without_a_client_anomaly_still_has_evidence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["replay", str(writes_only(tmp_path))])
    out, err = capsys.readouterr()
    verdict: dict[str, Any] = json.loads(out)
    assert status == 1 and verdict["cause"].startswith("durability: lost write kv/k6=26 at ONE")
    assert verdict["details"]["clients"]["valid"] is True  # no linearizability violation
    ev = verdict["evidence"]
    assert (ev["anomaly"], ev["key"], ev["operations"]) == ("durability: lost by a single-source stream", "kv/k6", [])
    assert ev["writes"][0]["held"] == [{"replica": "d2", "value": None, "up": True, "read_replica": True}]
    lines = err.splitlines()
    assert lines[1] == ("evidence: lost write: kv/k6=26 at ONE by n2, coordinator at epoch 8, sent to n3, "
                        "acknowledged by n3 at 0.297 s")
    assert "  at the end: d2 holds nothing" in lines and "  hints: none stored" in lines
    assert any(line.startswith("  stream: replace of n3 by d2") for line in lines)


def test_a_stale_read_s_missed_write_is_followed_too() -> None:
    """The judge's stale reads (writes at ALL) name the write the read missed: its fate, and the
    read's value and start."""
    from campaign.formats.scenario import parse_scenario
    from impl.cluster import run_scenario

    spec = load_failure(LOST)
    result = run_scenario(parse_scenario(dict(spec.case or {})), spec.seed)
    fate = write_fate(result, result.protocol_trace(), "stale read", "kv", "k6", 22, (None, 60_000_000_000))
    assert (fate.kind, fate.key, fate.value, fate.coordinator, fate.read) == (
        "stale read", "kv/k6", 22, "n1", (None, 60_000_000_000))
    assert fate.lines()[1] == "  read at 60.000 s returned nothing"
