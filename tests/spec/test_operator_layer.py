"""The operator layer (spec/operator_checks.py, spec/operations.py): what nodetool, StorageService
and Startup refuse before they submit, with Cassandra's messages (trunk 6bbe85ef), and the CMS
reconfiguration their removal paths run first (ReconfigureCMS.maybeReconfigureCMS)."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.cli import main
from campaign.formats.ops import parse_operations
from spec.invariants import check_invariants
from spec.nodes import Location, NodeId
from spec.operations import (
    AbortBootstrap,
    Apply,
    Assassinate,
    Cancel,
    Join,
    Leave,
    Move,
    Remove,
    Replace,
    run_operations,
)
from spec.replication import SimpleStrategy
from spec.sequences import OperationKind, Step
from spec.topology import NodeSpec
from spec.transformations import (
    AdvanceCMSReconfiguration,
    PrepareCMSReconfiguration,
    PrepareJoin,
    Register,
)
from tests.spec.helpers import node, ring

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RING = ring(node("A", 100), node("B", 200), node("C", 300), node("D", 400), node("E", 500))


def refusal(*ops: object) -> str | None:
    run = run_operations(RING, ops)  # type: ignore[arg-type]
    return run.rejection


def joiner(node_id: str, *tokens: int) -> NodeSpec:
    return NodeSpec(id=NodeId(node_id), location=Location(dc="dc1", rack="r1"), tokens=tuple(tokens))


def test_move_refuses_a_node_with_more_than_one_token() -> None:
    # SingleNodeSequences.move: "This doesn't make any sense in a vnodes environment."
    two = ring(node("A", 100, 150), node("B", 200), node("C", 300))
    run = run_operations(two, [Move(node=NodeId("A"), tokens=(250,))])
    assert run.rejection == "operator check: This node has more than one token and cannot be moved thusly."


def test_move_takes_one_token_that_nobody_owns() -> None:
    assert refusal(Move(node=NodeId("A"), tokens=(250, 260))) == (
        "operator check: A: move takes one token (StorageService.move(String newToken)), not 2")
    assert refusal(Move(node=NodeId("A"), tokens=(200,))) == (
        "operator check: target token 200 is already owned by another node.")
    assert refusal(Move(node=NodeId("A"), tokens=(100,))) == (  # its own token too
        "operator check: target token 100 is already owned by another node.")
    assert refusal(Move(node=NodeId("A"), tokens=(250,))) is None


def test_the_stored_multi_token_move_is_refused_with_cassandras_message(capsys: pytest.CaptureFixture[str],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES.parent)
    code = main(["placements", "examples/move-vnode-node.json", "--ops", "examples/move-vnode-node-ops.json"])
    assert code == 2
    assert "This node has more than one token and cannot be moved thusly." in capsys.readouterr().err


def test_join_refuses_an_owned_token_but_not_one_pending_in_another_sequence() -> None:
    assert refusal(Join(node=joiner("X", 200))) == (
        "operator check: Bootstrapping to existing token 200 is not allowed (decommission/removenode the old node first).")
    # BootStrapper checks the token map only: X's pending 150 reaches PrepareJoin, whose lock
    # check refuses Y
    reason = refusal(Join(node=joiner("X", 150), until=Step.PREPARE), Join(node=joiner("Y", 150)))
    assert reason is not None and "conflicts with ranges locked by X" in reason


def test_replace_refuses_a_node_that_is_not_joined() -> None:
    reason = refusal(Leave(node=NodeId("E")), Replace(node=NodeId("E"), by=joiner("X")))
    assert reason == "operator check: Cannot replace node E which is not currently joined"


def test_remove_refuses_an_unknown_node_and_one_with_a_sequence() -> None:
    assert refusal(Remove(node=NodeId("Q"))) == "operator check: Host ID not found."
    assert refusal(Leave(node=NodeId("E"), until=Step.START), Remove(node=NodeId("E"))) == (
        "operator check: Can not remove a node that has an in-progress sequence")


def test_decommission_resumes_a_leave_and_refuses_another_sequence() -> None:
    run = run_operations(RING, [Leave(node=NodeId("E"), until=Step.START), Leave(node=NodeId("E"))])
    assert run.rejection is None and run.kinds[-3:] == ("START_LEAVE", "MID_LEAVE", "FINISH_LEAVE")
    assert refusal(Move(node=NodeId("E"), tokens=(550,), until=Step.PREPARE), Leave(node=NodeId("E"))) == (
        "operator check: Can not decommission a node that has an in-progress sequence")


def cms_of(*members: str) -> Apply:
    return Apply(transformation=PrepareCMSReconfiguration(add=frozenset(NodeId(m) for m in members[1:])))


def grown_cms() -> list[object]:
    """The CMS grown from {A} to {A, B, C} by hand."""
    return [cms_of("A", "B", "C"), *[Apply(transformation=AdvanceCMSReconfiguration()) for _ in range(5)]]


@pytest.mark.parametrize("op", [
    Replace(node=NodeId("B"), by=joiner("X")),
    Leave(node=NodeId("B")),
    Remove(node=NodeId("B")),
    Assassinate(node=NodeId("B")),
])
def test_a_cms_member_leaves_the_cms_before_it_leaves_the_ring(op: object) -> None:
    # ReconfigureCMS.maybeReconfigureCMS: PrepareCMSReconfiguration.Simple keeps the size with a
    # JOINED node in no sequence (D, the lowest), then the operation runs
    run = run_operations(RING, [*grown_cms(), op])  # type: ignore[list-item]
    assert run.rejection is None, run.rejection
    assert run.final.cms.members == {"A", "C", "D"}
    assert all(check_invariants(m) == () for m in run.states)


def test_without_the_operator_layer_a_replaced_cms_member_stays_in_the_cms() -> None:
    # the transformations alone (finding replace-cms-member): a CMS member outside the directory
    run = run_operations(RING, [*grown_cms(), Replace(node=NodeId("B"), by=joiner("X"), operator_checks=False)])  # type: ignore[list-item]
    assert run.rejection is None
    assert any(v.startswith("cms_is_consistent") for v in check_invariants(run.final))


def test_too_few_candidates_left_refuse_the_cms_reconfiguration() -> None:
    three = ring(node("A", 100), node("B", 200), node("C", 300), replication=SimpleStrategy(replication_factor=1))
    # a CMS of one (A): removing A leaves nobody to take its seat, B having left and C moving
    run = run_operations(three, [Leave(node=NodeId("B")),
                                 Move(node=NodeId("C"), tokens=(290,), until=Step.PREPARE),
                                 Assassinate(node=NodeId("A"))])
    assert run.rejection == "operator check: Too many nodes are currently DOWN to safely perform the reconfiguration"


def test_abortbootstrap_cancels_then_unregisters_and_refuses_other_states() -> None:
    run = run_operations(RING, [Join(node=joiner("X", 150), until=Step.START), AbortBootstrap(node=NodeId("X"))])
    assert run.rejection is None
    assert run.kinds[-2:] == ("CANCEL_SEQUENCE", "UNREGISTER")
    assert "X" not in run.final.directory and not run.final.in_progress
    assert refusal(AbortBootstrap(node=NodeId("B"))) == (
        "operator check: Can't abort bootstrap for node B since the state is JOINED")


def test_the_jmx_cancel_checks_only_the_sequence_kind() -> None:
    assert refusal(Cancel(node=NodeId("B"))) == "operator check: No in progress sequence for B"
    assert refusal(Move(node=NodeId("B"), tokens=(250,), until=Step.MID), Cancel(node=NodeId("B"), kind=OperationKind.JOIN)) == (
        "operator check: No in progress sequence of kind JOIN for B (only MOVE in progress)")
    run = run_operations(RING, [Move(node=NodeId("B"), tokens=(250,), until=Step.MID),
                                Cancel(node=NodeId("B"), kind=OperationKind.MOVE)])
    assert run.rejection is None and run.kinds[-1] == "CANCEL_SEQUENCE"


def test_ops_json_spells_the_new_operations() -> None:
    ops = parse_operations([{"op": "assassinate", "node": "B"}, {"op": "abortbootstrap", "node": "C"},
                            {"op": "cancel", "node": "D", "kind": "MOVE"},
                            {"op": "replace", "node": "E", "by": {"id": "X", "dc": "dc1", "rack": "r1"},
                             "operator_checks": False}])
    assert ops[0] == Assassinate(node=NodeId("B"))
    assert ops[1] == AbortBootstrap(node=NodeId("C"))
    assert ops[2] == Cancel(node=NodeId("D"), kind=OperationKind.MOVE)
    assert ops[3].operator_checks is False  # type: ignore[union-attr]


def test_register_and_prepare_join_are_plain_transformations() -> None:
    # nothing of the operator layer applies to a transformation given as is
    run = run_operations(RING, [Apply(transformation=Register(node=NodeId("X"), location=Location(dc="dc1", rack="r1"))),
                                Apply(transformation=PrepareJoin(node=NodeId("X"), tokens=(200,)))])
    assert run.rejection is not None and "already owned by B" in run.rejection
