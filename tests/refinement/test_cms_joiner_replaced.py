"""A node that a CMS reconfiguration is adding, replaced while the addition waits for it (trunk
6bbe85ef): `ReconfigureCMS.maybeReconfigureCMS(metadata, replaceAddress)` returns unless
`metadata.fullCMSMembers()` contains the node, and `PrepareReplace` has no CMS check, so the
replace runs; `FinishReplace` (`Transformer.replaced`) takes the node out of the directory. The
reconfiguration can then neither go on nor be cancelled: `ReconfigureCMS.executeNext`,
`AdvanceCMSReconfiguration.startAdd` / `finishAdd` / `executeRemove` and
`CancelCMSReconfiguration.execute` each build `new Replica(prev.directory.endpoint(nodeId), ...)`,
and `Replica`'s constructor is `Preconditions.checkNotNull(endpoint)`: a NullPointerException out
of the commit, modelled as a refusal that says so (finding leave-while-joining-cms, its replace
variant; invariant `cms_additions_in_directory`)."""

from __future__ import annotations

from typing import Any

from spec.invariants import cms_additions_in_directory, cms_is_consistent
from tests.refinement.test_cassandra_rules import RING4, SIMPLE, both, register, topology

ADVANCE: dict[str, Any] = {"kind": "ADVANCE_CMS_RECONFIGURATION"}


def replace(node: str, replaced: str) -> list[dict[str, Any]]:
    return [register(node), {"kind": "PREPARE_REPLACE", "node": node, "replaced": replaced},
            {"kind": "START_REPLACE", "node": node}, {"kind": "MID_REPLACE", "node": node},
            {"kind": "FINISH_REPLACE", "node": node}]


def test_a_cms_addition_whose_node_was_replaced_can_neither_go_on_nor_be_cancelled() -> None:
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B", "C"]},
        ADVANCE, ADVANCE,          # B: write member, then read member
        ADVANCE,                   # C: write member (its log streaming waits: C is down)
        *replace("X", "C"),        # maybeReconfigureCMS: C is no full member; PrepareReplace: no check
        ADVANCE,
        {"kind": "CANCEL_CMS_RECONFIGURATION"}])
    assert verdicts[:9] == [None] * 9
    assert verdicts[9] == ("C: not in the directory: AdvanceCMSReconfiguration's new Replica(directory.endpoint(C), ...) "
                           "throws NullPointerException")
    assert verdicts[10] == ("C: not in the directory: CancelCMSReconfiguration's new Replica(directory.endpoint(C), ...) "
                            "throws NullPointerException")
    assert "C" not in spec_m.directory and "C" in spec_m.cms.writes and "C" not in spec_m.cms.reads
    assert cms_additions_in_directory(spec_m) == (
        "CMS members being added ['C'] are not in the directory (the reconfiguration can neither go on nor be cancelled)",)
    assert cms_is_consistent(spec_m) == ()
    assert impl_m.cms.reconfiguring


def test_a_full_cms_member_replaced_stays_the_other_invariant() -> None:
    # by direct submission only (the replace path reconfigures the CMS first): replace-cms-member
    spec_m, _, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B"]}, ADVANCE, ADVANCE, ADVANCE, *replace("X", "B")])
    assert verdicts == [None] * 9
    assert cms_is_consistent(spec_m) == ("CMS members ['B'] are not in the directory",)
    assert cms_additions_in_directory(spec_m) == ()


def test_a_node_still_to_be_added_replaced_stops_the_reconfiguration_until_its_cancel() -> None:
    """The same with the replaced node later in the plan (no active transition yet): the next
    ADVANCE pops it and `startAdd`'s `new Replica(null, ...)` throws; with no active transition
    `CancelCMSReconfiguration` builds no Replica and clears the sequence (fuzz seed 286618, sim
    run 286618864968, where the judge first saw only a CMS short of its size)."""
    spec_m, impl_m, verdicts = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B", "C"]},
        ADVANCE, ADVANCE,          # B: write member, then read member; C still to be added
        *replace("X", "C"),
        ADVANCE])
    assert verdicts[:8] == [None] * 8
    assert verdicts[8] is not None and "C: not in the directory" in verdicts[8]
    assert "C" not in spec_m.directory and "C" not in spec_m.cms.members
    assert cms_additions_in_directory(spec_m) == (
        "CMS additions ['C'] are not in the directory (the reconfiguration cannot go on; "
        "only an operator's cancel ends it)",)
    assert impl_m.cms.reconfiguring
    cancelled, _, after = both(topology(RING4, SIMPLE), [
        {"kind": "PREPARE_CMS_RECONFIGURATION", "add": ["B", "C"]}, ADVANCE, ADVANCE, *replace("X", "C"),
        {"kind": "CANCEL_CMS_RECONFIGURATION"}])
    assert after[8] is None and cancelled.cms.reconfiguration is None
    assert cms_additions_in_directory(cancelled) == ()
