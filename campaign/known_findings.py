"""Findings the harness has made and reported, which the specified semantics still contain.

A campaign still runs and records every failing run; a failure whose cause class is listed here
is reported apart as a known finding instead of failing the campaign, so that a new bug stands
out. `tcmcheck fuzz --strict` fails on known findings too. Remove an entry when the behaviour
it describes is changed.
"""

from __future__ import annotations

from attrs import frozen


@frozen(kw_only=True)
class KnownFinding:
    id: str
    cause_class: str
    """`campaign.fuzz.cause_class` of the failures it explains."""
    summary: str
    replay: str


KNOWN_FINDINGS: tuple[KnownFinding, ...] = (
    KnownFinding(
        id="cancel-after-mid",
        cause_class="quorum: disjoint-across-epochs (across CANCEL_SEQUENCE)",
        summary=(
            "CANCEL_SEQUENCE after MID moves reads back and narrows writes in one epoch (as the "
            "issue specifies and Cassandra's BootstrapAndJoin.cancel does), so a read quorum at "
            "the MID epoch and a write quorum at the cancel epoch can be disjoint: with RF 1, "
            "join X until MID then cancel reads {X} at epoch 4 and writes {A} at epoch 5. "
            "A two-epoch cancel (reads back first, writes narrowed after) would keep consecutive "
            "epochs intersecting."
        ),
        replay="tcmcheck replay --kind refine --seed 41",
    ),
)


def known_finding(cause_class: str) -> KnownFinding | None:
    return next((f for f in KNOWN_FINDINGS if f.cause_class == cause_class), None)
