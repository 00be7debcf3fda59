"""`tcmcheck simulate SCENARIO --check` names every operation the run ended in the middle of:
issue 23's "A stuck replace in a hand-written scenario ended with no operation in the summary".
The summary's `operations` lists the operations that ended (a refused replace says why); an
operation still in progress is in `in_progress`, with where it stopped and what it waited on,
and in a line on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign.cli import main

ROOT = Path(__file__).resolve().parents[2]
STUCK = ROOT / "examples" / "simulate-stuck-replace.json"


def simulate(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, dict[str, object], list[str]]:
    status = main(["simulate", str(path), "--seed", "1", "--check"])
    out, err = capsys.readouterr()
    return status, json.loads(out), err.splitlines()


def test_a_replace_stuck_at_its_progress_barrier_is_named_with_what_it_waits_on(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, summary, err = simulate(capsys, STUCK)
    # Cassandra's barrier waits while the range's replicas are down: no failed check (exit 0)
    assert status == 0 and summary["operations"] == [] and summary["quiescent"] is False
    assert summary["in_progress"] == [{"node": "x1", "op": "replace", "last_step": "START_REPLACE", "committed": True,
                                       "barrier": {"step": "MID", "epoch": 18}, "waiting_on": ["n2", "n3", "n6"],
                                       "could_finish": False}]
    assert err == ["in progress at the end: replace driven by x1 stuck after START_REPLACE, at the progress "
                   "barrier before MID (epoch 18); down or behind: n2, n3, n6"]


def test_a_replace_refused_says_so_and_nothing_is_in_progress(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(STUCK.read_text())
    doc["faults"]["crashes"] = []  # n2 alive: "Cannot replace a live node"
    path = tmp_path / "live.json"
    path.write_text(json.dumps(doc))
    status, summary, err = simulate(capsys, path)
    assert status == 0 and summary["in_progress"] == [] and err == []
    assert summary["operations"] == [["x1", "replace", "refused: Cannot replace a live node... "]]
