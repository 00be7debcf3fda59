"""The simulator's and the judge's fast paths give what their plain statements give, on generated
runs of the default campaign: a metadata view built directly equals the frozen JSON it stands for,
and the comparisons of placements, keyspaces and node records that skip building JSON decide as
comparing the JSON does (impl/metadata/keys.py)."""

from __future__ import annotations

from typing import Any

import pytest

import campaign.judge.checks.holdings as holdings
import impl.cluster as cluster
import impl.metadata.keys as keys
from campaign.formats.placements import placements_json
from campaign.kinds import run_one
from campaign.run.record import RunSpec
from observed.frozen import freeze

SEEDS = (0, 2, 4, 6, 8, 10)
"""Sim runs of `tcmcheck fuzz --seed 0` (its even runs): joins, leaves, moves and replaces."""


def _plain_view(m: Any) -> Any:
    """impl/views.py's view as it was first stated: the JSON value, frozen."""
    nodes = {n: [m.node_state(n).value, list(m.tokens_of(n))] for n in m.directory}
    return freeze({"epoch": m.epoch, "placements": m.placements_json(), "nodes": nodes,
                   "cms": [sorted(m.cms_members()), sorted(m.cms_write_members())]})


def test_views_and_placement_changes_agree_with_their_plain_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = {"impl views": 0, "spec views": 0, "changes": 0, "changed": 0, "records": 0, "records changed": 0}
    wrong: list[str] = []

    real_view, real_spec_view, real_differ = cluster.metadata_view, holdings.spec_view, keys._placements_differ
    real_records = keys._records_differ

    def view(m: Any) -> Any:
        got = real_view(m)
        compared["impl views"] += 1
        if got != _plain_view(m):
            wrong.append(f"impl view at epoch {m.epoch}")
        return got

    def spec_view(m: Any) -> Any:
        got = real_spec_view(m)
        compared["spec views"] += 1
        if got["placements"] != freeze(placements_json(m.placements)):
            wrong.append(f"spec view at epoch {m.epoch}")
        return got

    def differ(a: Any, b: Any) -> bool:
        got = real_differ(a, b)
        compared["changes"] += 1
        compared["changed"] += got
        if got != (keys._placements(a) != keys._placements(b)):
            wrong.append(f"placements change {a.epoch} -> {b.epoch}: {got}")
        return got

    def records(a: dict[str, Any], b: dict[str, Any]) -> bool:
        got = real_records(a, b)
        compared["records"] += 1
        compared["records changed"] += got
        if got != (sorted((n, r.to_json()) for n, r in a.items()) != sorted((n, r.to_json()) for n, r in b.items())):
            wrong.append(f"records change: {got}")
        return got

    monkeypatch.setattr(cluster, "metadata_view", view)
    monkeypatch.setattr(keys, "_records_differ", records)
    monkeypatch.setattr(holdings, "spec_view", spec_view)
    monkeypatch.setattr(keys, "_placements_differ", differ)
    for seed in SEEDS:
        run_one(RunSpec(kind="sim", seed=seed))
    assert not wrong
    # each path was taken, a placement change both ways
    assert all(compared.values()), compared
    assert compared["changed"] < compared["changes"] and compared["records changed"] < compared["records"], compared
