"""A resent commit request must never be chosen twice, even by a CMS member that caught up
from a snapshot past the request's first commit (fuzz sim seed 11002453: `n6:7` committed at
epochs 19 and 41, the submitter told 41)."""

from __future__ import annotations

import json
from pathlib import Path

from campaign.formats.scenario import parse_scenario
from campaign.judge.judgement import judge
from impl.cluster import run_scenario
from impl.engine import Executor, MetadataEngine
from impl.entry import Entry, canonical_json
from impl.node.log import LocalLog, initial_disk

from .helpers import topology

CASE = Path(__file__).parent / "data" / "resent-after-snapshot.json"


def test_the_fuzz_case_commits_every_entry_id_once_and_judges_valid() -> None:
    doc = json.loads(CASE.read_text())
    scenario = parse_scenario(doc)
    result = run_scenario(scenario, 11002453)
    epochs: dict[str, set[int]] = {}
    for node in result.nodes:
        for e in node.entries:
            epochs.setdefault(e.entry_id, set()).add(e.epoch)
    assert {i: sorted(es) for i, es in epochs.items() if len(es) > 1} == {}
    assert judge(scenario, result).valid


def test_a_log_that_installs_a_snapshot_still_knows_the_entry_ids_before_it() -> None:
    engine = MetadataEngine()
    m0 = engine.from_topology(topology(3))
    register = {"kind": "REGISTER", "node": {"id": "x1", "dc": "dc1", "rack": "r1"}}
    source = LocalLog(disk=initial_disk(m0), executor=Executor(engine), snapshot_interval=2,
                      on_apply=lambda *_: None, on_apply_failure=lambda *_: None)
    source.offer(Entry(epoch=1, entry_id="a:1", kind="REGISTER",
                       transformation=canonical_json(register)))
    source.offer(Entry(epoch=2, entry_id="a:2", kind="REGISTER",
                       transformation=canonical_json({**register, "node": {**register["node"], "id": "x2"}})))
    snap = source.disk.snapshots[-1]
    assert snap.epoch == 2
    behind = LocalLog(disk=initial_disk(m0), executor=Executor(engine), snapshot_interval=2,
                      on_apply=lambda *_: None, on_apply_failure=lambda *_: None)
    assert behind.install(snap)
    assert behind.entry_ids == {"a:1": 1, "a:2": 2}
    # and after a restart that rebuilds the log from the installed snapshot
    again = LocalLog(disk=behind.disk, executor=Executor(engine), snapshot_interval=2,
                     on_apply=lambda *_: None, on_apply_failure=lambda *_: None)
    assert again.entry_ids == {"a:1": 1, "a:2": 2}
