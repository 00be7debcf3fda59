"""The CMS placement filters every peer, current members included (issue 33): trunk 6bbe85ef's
`CMSPlacementStrategy.reconfigure` takes each peer that fails its filter out of the directory and
token map it places on (`tmpDirectory.without(peerId)`, `tmpTokenMap.unassignTokens(peerId)`),
the filter being `DefaultNodeFilter` (JOINED, not in `inProgressSequences`) and the
transformation's `additionalFilteringPredicate` (Simple: `!nodeId.equals(toReplace) &&
!downNodes.contains(nodeId)`; Complex: `!downNodes.contains(nodeId)`). So a member that is down
or in a sequence loses its seat to a candidate; `verify` refuses a CMS below a majority of its
size."""

from __future__ import annotations

from impl.cms import placement as impl_placement
from spec.cms_placement import Placement, diff, place

RING = ("a", "b", "c", "d", "e", "f")


def test_a_down_member_loses_its_seat() -> None:
    assert place(RING, {"a", "b", "c"}, 3, down={"b"}) == ("a", "c", "d")


def test_a_member_in_a_sequence_loses_its_seat() -> None:
    assert place(RING, {"a", "b", "c"}, 3, busy={"c"}) == ("a", "b", "d")


def test_a_member_that_passes_keeps_its_seat_over_a_lower_candidate() -> None:
    assert place(RING, {"e", "f"}, 3, down={"b"}) == ("a", "e", "f")


def test_simple_replaces_its_member_and_drops_a_down_one() -> None:
    add, remove = diff(RING, {"a", "b", "c"}, Placement(size=3, down=frozenset({"b"}), without="c"), busy=())
    assert (sorted(add), sorted(remove)) == (["d", "e"], ["b", "c"])


def test_with_no_candidate_the_cms_would_be_empty() -> None:
    # PrepareCMSReconfiguration.executeInternal then rejects: "would leave CMS empty"
    assert place(("a", "b"), {"a"}, 1, down={"a", "b"}) == ()


def test_ensure_cms_placement_is_refused_below_a_majority() -> None:
    # ClusterMetadataService.reconfigureCMS: transformation.verify(metadata) before the commit
    class Meta:
        directory = {n: type("R", (), {"state": type("S", (), {"value": "JOINED"})()})() for n in RING}

    assert impl_placement.ensure(Meta(), ("a", "b", "c"), 5, frozenset({"b", "c", "d", "e"})) \
        == impl_placement.TOO_MANY_DOWN
    assert impl_placement.ensure(Meta(), ("a", "b", "c"), 5, frozenset({"b", "c"})) == (("d", "e", "f"), ("b", "c"))
