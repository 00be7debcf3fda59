"""ClusterMetadata.writePlacementAllSettled (CASSANDRA-19193's fix, trunk 6bbe85ef): the write
placement once every in-progress sequence has finished, by stepping through them. The fix's own
test (MetadataChangeSimulationTest.testPlacementsAllSettled): with a join, a move, a replace and a
leave in flight, the value does not change as they advance and equals the final placements."""

from __future__ import annotations

from typing import Any

from campaign.formats.placements import groups_json
from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from impl.metadata import Accepted, Metadata, execute
from impl.metadata.settled import write_placement_all_settled, write_placement_from_token_map
from spec.metadata import ClusterMetadata
from spec.settled import write_placement_all_settled as spec_settled
from tests.refinement.test_cassandra_rules import register, topology

RING8 = [(n, [100 * (i + 1)], "dc1", "r1") for i, n in enumerate("ABCDEFGH")]
RF1 = {"ks": {"class": "SimpleStrategy", "replication_factor": 1}}
PREPARES = [register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
            {"kind": "PREPARE_MOVE", "node": "C", "tokens": [340]},
            register("Y"), {"kind": "PREPARE_REPLACE", "node": "Y", "replaced": "E"},
            {"kind": "PREPARE_LEAVE", "node": "F", "force": True}]
STEPS = [{"kind": f"{s}_{op}", "node": n} for s in ("START", "MID", "FINISH")
         for n, op in (("X", "JOIN"), ("C", "MOVE"), ("Y", "REPLACE"), ("F", "LEAVE"))]


def spec_json(m: ClusterMetadata) -> dict[str, Any] | None:
    settled = spec_settled(m)
    return None if settled is None else {ks: groups_json(g) for ks, g in settled.items()}


def test_the_settled_placement_is_the_final_one_at_every_step_on_both_sides() -> None:
    doc = topology(RING8, RF1)
    spec_m, impl_m = ClusterMetadata.initial(parse_topology(doc)), Metadata.from_topology(doc)
    for t in PREPARES:
        spec_m = parse_transformation(t).execute(spec_m).metadata  # type: ignore[union-attr]
        result = execute(impl_m, t)
        assert isinstance(result, Accepted), t
        impl_m = result.metadata
    expected = spec_json(spec_m)
    assert expected is not None and write_placement_all_settled(impl_m) == expected
    # before CASSANDRA-19193: the move keeps its old tokens and the replace is not looked at
    assert write_placement_from_token_map(impl_m) != expected
    for t in STEPS:
        spec_m = parse_transformation(t).execute(spec_m).metadata  # type: ignore[union-attr]
        result = execute(impl_m, t)
        assert isinstance(result, Accepted), t
        impl_m = result.metadata
        assert spec_json(spec_m) == expected and write_placement_all_settled(impl_m) == expected
    assert {ks: v["writes"] for ks, v in impl_m.placements_json().items()} == expected


def test_an_orphaned_join_leaves_no_settled_placement_on_both_sides() -> None:
    """Finding unregister-prepared-join, what the model can say of its disk-boundary question:
    once X is unregistered with its prepared join left behind, stepping through the sequences
    (writePlacementAllSettled) reaches X's START_JOIN, which cannot apply (Cassandra: the
    PrimaryRangeComparator sort throws NullPointerException for X's replica), so there is no
    settled placement — the value DiskBoundaryManager.getLocalRanges needs on every node that
    is not bootstrapping. With the fix unregister-idle-only the UNREGISTER is refused."""
    from impl.metadata import Rejected
    from impl.metadata.fixes import execute as execute_fixed

    doc = topology(RING8, RF1)
    steps = [register("X"), {"kind": "PREPARE_JOIN", "node": "X", "tokens": [150]},
             {"kind": "UNREGISTER", "node": "X", "allowed": ["REGISTERED", "BOOTSTRAPPING", "BOOT_REPLACING"]}]
    spec_m, impl_m = ClusterMetadata.initial(parse_topology(doc)), Metadata.from_topology(doc)
    for t in steps[:2]:
        spec_m = parse_transformation(t).execute(spec_m).metadata  # type: ignore[union-attr]
        impl_m = execute(impl_m, t).metadata  # type: ignore[union-attr]
    assert spec_json(spec_m) is not None and write_placement_all_settled(impl_m) is not None
    fixed = execute_fixed(impl_m, steps[2], frozenset({"unregister-idle-only"}))
    assert isinstance(fixed, Rejected)
    spec_m = parse_transformation(steps[2]).execute(spec_m).metadata  # type: ignore[union-attr]
    result = execute(impl_m, steps[2])
    assert isinstance(result, Accepted)
    assert "X" not in result.metadata.directory and "X" in result.metadata.sequences
    assert spec_json(spec_m) is None and write_placement_all_settled(result.metadata) is None
