"""Issue 22's data-path switches, each caught by a trace invariant (one by the liveness check of
a halted bootstrap) on a stored, shrunk case (the
failure file `tcmcheck mutants` wrote): with the switch the run fails with the invariant's class;
without it the same case, schedule and all, passes. Planting one of these bugs as a code edit
therefore fails this test (the switch-off half)."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve

from campaign.kinds import checked, load_failure
from impl.bugs import BY_NAME

DATA = Path(__file__).parent / "data"

CAUGHT_BY = {
    "fencing-accepts-one-behind": "trace: fencing",
    "barrier-accepts-one-behind": "trace: barrier",
    "fencing-mutation-checks-read-group": "trace: fencing",
    "move-skips-streaming": "trace: streaming",
    "each-quorum-pending-local-dc-only": "trace: quorum",
    "local-quorum-ignores-pending": "trace: quorum",
    # a move's plan with a source that keeps the range: the moving node is neither source nor
    # destination, which Move.executeNext's assertion stops before MID (caught before any read)
    "stream-from-remaining-replica": "liveness: bootstrap halted on a movement to another node "
                                     "(move, not a replacement elsewhere)",
    "read-repair-responders-only": "trace: quorum",
    "hint-replay-ignores-ownership": "trace: fencing",
    "revalidation-off-by-one": "trace: quorum",
}


def test_every_data_path_switch_has_a_stored_case() -> None:
    mine = {m.name for m in BY_NAME.values() if m.focus == "data"}
    assert mine == set(CAUGHT_BY) == {p.stem for p in DATA.glob("*.json")}


@pytest.mark.parametrize("name", sorted(CAUGHT_BY))
def test_the_switch_is_caught_by_its_trace_invariant_and_the_case_passes_without_it(name: str) -> None:
    spec = load_failure(DATA / f"{name}.json")
    assert spec.mutant == name
    broken = checked(spec)
    assert broken.cause is not None and broken.cause.klass == CAUGHT_BY[name], broken.cause
    clean = checked(evolve(spec, mutant=None))
    assert clean.valid, clean.cause
