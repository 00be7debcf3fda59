"""The CEP's worked example: X joins at 150 between A=100, B=200, C=300 (RF 2), then leaves.

Expected groups are the CEP's tables (see also ../shared/golden/README.md); the range
(300, 100] is the CEP's (0, 100].
"""

from __future__ import annotations

import json

import pytest

from campaign.formats.ops import load_operations
from campaign.formats.topology import load_topology
from spec.invariants import check_invariants
from spec.operations import Join, Leave, run_operations
from tests.conftest import shared_path
from tests.spec.helpers import node, ring, run, table

CEP_RING = ring(node("A", 100), node("B", 200), node("C", 300))
JOIN_X = Join(node=node("X", 150))

# (kind, reads, writes) after each transformation, over (300,100], (100,150], (150,200], (200,300]
BEFORE = {(300, 100): "AB", (100, 200): "BC", (200, 300): "AC"}
SPLIT = {(300, 100): "AB", (100, 150): "BC", (150, 200): "BC", (200, 300): "AC"}
EXPECTED = [
    ("INITIAL", BEFORE, BEFORE),
    ("REGISTER", BEFORE, BEFORE),
    ("PREPARE_JOIN", SPLIT, SPLIT),
    ("START_JOIN", SPLIT, {**SPLIT, (300, 100): "ABX", (100, 150): "BCX"}),
    ("MID_JOIN", {**SPLIT, (300, 100): "AX", (100, 150): "BX"}, {**SPLIT, (300, 100): "ABX", (100, 150): "BCX"}),
    ("FINISH_JOIN", {**SPLIT, (300, 100): "AX", (100, 150): "BX"}, {**SPLIT, (300, 100): "AX", (100, 150): "BX"}),
    ("PREPARE_LEAVE", {**SPLIT, (300, 100): "AX", (100, 150): "BX"}, {**SPLIT, (300, 100): "AX", (100, 150): "BX"}),
    ("START_LEAVE", {**SPLIT, (300, 100): "AX", (100, 150): "BX"}, {**SPLIT, (300, 100): "ABX", (100, 150): "BCX"}),
    ("MID_LEAVE", SPLIT, {**SPLIT, (300, 100): "ABX", (100, 150): "BCX"}),
    ("FINISH_LEAVE", BEFORE, BEFORE),
]


def test_join_then_decommission_of_x_follows_the_cep_tables_step_by_step() -> None:
    """CEP: "In step 2, the new node is added to the write groups ... step 3 ... adding X to the
    corresponding read groups ... step 4 is performed, removing the write replicas"."""
    result = run(CEP_RING, JOIN_X, Leave(node="X"))
    assert [k for k in result.kinds] == [k for k, _, _ in EXPECTED]
    for m, (kind, reads, writes) in zip(result.states, EXPECTED, strict=True):
        assert table(m, direction="reads") == reads, kind
        assert table(m, direction="writes") == writes, kind
        assert check_invariants(m) == (), kind


def test_epochs_increase_by_one_per_committed_transformation() -> None:
    result = run(CEP_RING, JOIN_X, Leave(node="X"))
    assert [m.epoch for m in result.states] == list(range(len(EXPECTED)))


def test_mid_join_moves_reads_in_one_epoch() -> None:
    """Reads switch from {A,B} to {A,X} at MID_JOIN and at no other step."""
    result = run(CEP_RING, JOIN_X)
    changed = [k for a, b, k in zip(result.states, result.states[1:], result.kinds[1:], strict=False)
               if table(a)[(300, 100)] != table(b)[(300, 100)]]
    assert changed == ["MID_JOIN"]


def test_the_joining_node_enters_the_token_map_at_finish_join() -> None:
    result = run(CEP_RING, JOIN_X)
    owns_150 = [m.token_map.owner_of(150) for m in result.states]
    assert owns_150 == [None, None, None, None, None, "X"]


@pytest.mark.parametrize("ops_file", ["cep21-join-x.json", "cep21-join-then-leave-x.json"])
def test_shared_golden_files_give_the_cep_tables(ops_file: str) -> None:
    topology = load_topology(shared_path("golden", "cep21-ring.json"))
    ops = load_operations(shared_path("golden", ops_file), topology)
    result = run_operations(topology, ops)
    assert result.rejection is None
    for m, (kind, reads, writes) in zip(result.states, EXPECTED, strict=False):
        assert (table(m, direction="reads"), table(m, direction="writes")) == (reads, writes), kind


def test_placements_cli_prints_every_state_of_the_golden_table(capsys: pytest.CaptureFixture[str]) -> None:
    from campaign.cli import main

    code = main(["placements", str(shared_path("golden", "cep21-ring.json")),
                 "--ops", str(shared_path("golden", "cep21-join-then-leave-x.json"))])
    assert code == 0
    epochs = json.loads(capsys.readouterr().out)["epochs"]
    assert [e["kind"] for e in epochs] == [k for k, _, _ in EXPECTED]
    for e, (kind, reads, writes) in zip(epochs, EXPECTED, strict=True):
        got_reads = {tuple(r["range"]): "".join(r["replicas"]) for r in e["placements"]["ks"]["reads"]}
        got_writes = {tuple(r["range"]): "".join(r["replicas"]) for r in e["placements"]["ks"]["writes"]}
        assert (got_reads, got_writes) == (reads, writes), kind
