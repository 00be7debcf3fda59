"""A snapshot install reports the keys Cassandra's MetadataKeys.diffKeys would: those whose
lastModified epoch moved between the node's metadata and the snapshot, i.e. those any
transformation in between modified, even when the content ends equal (fresh seed 71707: n4,
down from epoch 0, installed epoch 10 after the CMS reconfiguration had come and gone; the
judge, comparing content only, said IN_PROGRESS_SEQUENCES was not modified)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from campaign.kinds import checked
from campaign.run.record import RunSpec
from impl.metadata import Metadata, execute
from impl.metadata.keys import diff_keys

DATA = Path(__file__).parents[1] / "impl" / "sim" / "data"
CASE = "install-after-cms-reconfiguration.json"


def run(name: str, mutants: tuple[str, ...] = ()) -> Any:
    doc: dict[str, Any] = json.loads((DATA / name).read_text())
    case = dict(doc["case"])
    if mutants:
        case["mutants"] = list(mutants)
    return checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=case))


def test_an_install_past_a_finished_cms_reconfiguration_is_judged_right() -> None:
    outcome = run(CASE)
    assert outcome.valid, outcome.cause


def test_an_install_reporting_every_key_is_still_caught() -> None:
    # CASSANDRA-19128's bug: ForceSnapshot reported all six core keys whatever changed
    outcome = run(CASE, ("force-snapshot-reports-all-keys",))
    assert outcome.cause is not None
    assert outcome.cause.klass == "holdings: a snapshot install reported the wrong modified keys"


def test_a_sequence_added_then_removed_is_modified() -> None:
    doc = {"nodes": [{"id": f"n{i}", "tokens": [i * 1000]} for i in range(1, 5)],
           "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 1}}]}
    m0 = Metadata.from_topology(doc)
    m = m0
    for t in ({"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["n2"], "remove": []},):
        r = execute(m, t)
        assert hasattr(r, "metadata"), r
        m = r.metadata
    while m.cms.reconfiguring:
        r = execute(m, {"kind": "ADVANCE_CMS_RECONFIGURATION"})
        assert hasattr(r, "metadata"), r
        m = r.metadata
    assert m.sequences == {} and not m.cms.reconfiguring
    assert "IN_PROGRESS_SEQUENCES" in diff_keys(m0, m)
    assert "LOCKED_RANGES" in diff_keys(m0, m)
    assert diff_keys(m, m) == ()
