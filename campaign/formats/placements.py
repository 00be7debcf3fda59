"""Placements as DESIGN.md's JSON: `{KEYSPACE: {"reads": [RANGE...], "writes": [RANGE...]}}`."""

from __future__ import annotations

from typing import Any

from observed.frozen import SortedGroups
from spec.operations import OperationRun
from spec.placement import DataPlacements, ReplicaGroups


def groups_json(groups: ReplicaGroups) -> list[dict[str, Any]]:
    names = SortedGroups()  # the refinement lists every step's placements
    return [{"range": [r.left, r.right], "replicas": names[replicas]} for r, replicas in groups]


def placements_json(placements: DataPlacements) -> dict[str, Any]:
    return {ks: {"reads": groups_json(p.reads), "writes": groups_json(p.writes)} for ks, p in placements.items()}


def run_json(run: OperationRun) -> dict[str, Any]:
    return {"epochs": [
        {"epoch": m.epoch, "kind": kind, "placements": placements_json(m.placements)}
        for m, kind in zip(run.states, run.kinds, strict=True)
    ]}
