"""Where a CMS reconfiguration places the CMS: the harness's CMSPlacementStrategy (trunk 6bbe85ef),
a pure function shared by the spec's PREPARE_CMS_RECONFIGURATION and impl's engine and drivers.

Cassandra's PrepareCMSReconfiguration.Simple and .Complex carry no member list: `execute(prev)`
computes the new CMS from the metadata it runs on (`getDiff(prev)` -> `prepareNewCMS(dcRf,
prev)` -> `CMSPlacementStrategy.reconfigure(prev)`), so a submission retried after the cluster
changed places the CMS by the newer metadata. `Placement` is that form of the transformation:
the size (the CMS's replication, `ReplicationParams.meta`, fixed when submitted), the nodes the
submitter's failure detector saw down, and for Simple the member to replace.

Every peer, current members included, passes `CMSPlacementStrategy.DefaultNodeFilter` (JOINED,
in no in-progress sequence) and the transformation's `additionalFilteringPredicate` (not down;
for Simple, not the member replaced) or is no candidate: `reconfigure` takes every peer that
fails the filter out of the directory and the token map it places on (`tmpDirectory.without`,
`tmpTokenMap.unassignTokens`), so a current member that is down, in a sequence, or replaced loses
its seat. Of the candidates, the current members keep their seats (lowest ids first when there
are too many) and the lowest candidate ids fill the rest: Cassandra places the metadata range on
the filtered ring with NetworkTopologyStrategy instead (per DC, racks first), so the harness
models which nodes loosely and how many exactly (min(size, candidates)).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from attrs import field, frozen

from spec.nodes import NodeId, node_set


@frozen(kw_only=True)
class Placement:
    size: int
    """The CMS's replication when the reconfiguration was submitted."""
    down: frozenset[NodeId] = field(converter=node_set, default=frozenset())
    """The nodes the submitter saw down (`downNodes`)."""
    without: NodeId | None = None
    """Simple's `toReplace`: the member to take out; None for Complex."""


def place(joined: Iterable[str], members: Collection[str], size: int, *, busy: Collection[str] = (),
          down: Collection[str] = (), exclude: Collection[str] = (), keep_departed: bool = False) -> tuple[str, ...]:
    """The CMS of `size` members over the JOINED nodes `joined`. Candidates are the JOINED nodes
    not down, not excluded and not `busy` (in an in-progress sequence), current members included
    (CMSPlacementStrategy filters every peer); current members among them keep their seats,
    lowest ids first when there are too many, then the lowest other candidates.
    `keep_departed` (impl's switch `decommission-shrinks-cms`): a member no longer JOINED keeps
    its seat. With no JOINED node at all the members stay."""
    ring = sorted(joined)
    if not ring:
        return tuple(sorted(members))
    gone = set(down) | set(exclude) | set(busy)
    candidates = [n for n in ring if n not in gone]
    keep = [m for m in members if m in candidates or keep_departed and m not in ring and m not in exclude]
    if len(keep) >= size:
        return tuple(sorted(keep)[:size])
    extra = [n for n in candidates if n not in keep]
    return tuple(sorted(keep + extra[: size - len(keep)]))


def diff(joined: Iterable[str], members: Collection[str], p: Placement, busy: Collection[str]
         ) -> tuple[frozenset[str], frozenset[str]] | str:
    """(add, remove) of the reconfiguration `p` on metadata whose JOINED nodes are `joined` and
    whose full CMS members are `members`; Simple's refusal when its member is not one
    (`"... is not a member of CMS"`)."""
    if p.without is not None and p.without not in members:
        return f"{p.without} is not a member of CMS. Members: {sorted(members)}"
    exclude = () if p.without is None else (p.without,)
    target = set(place(joined, members, p.size, busy=busy, down=p.down, exclude=exclude))
    return frozenset(target - set(members)), frozenset(set(members) - target)


__all__ = ["Placement", "diff", "place"]
