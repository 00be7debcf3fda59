"""Issue 36: "liveness: CMS undersized" on fresh seed 91817 was the known finding
leave-while-joining-cms, reported under the wrong cause.

The operator's first `nodetool cms reconfigure` (policy size 5) adds four nodes one at a time;
meanwhile scripted submissions replace n03, one of its additions still to start. Cassandra's
replace path lets that through (`ReconfigureCMS.maybeReconfigureCMS` returns unless
`metadata.fullCMSMembers()` contains the node; `PrepareReplace` has no CMS check), and
`FinishReplace` takes n03 out of the directory. `AdvanceCMSReconfiguration.startAdd` then builds
`new Replica(prev.directory.endpoint(n03), entireRange, true)`, whose constructor is
`Preconditions.checkNotNull(endpoint)`: every ADVANCE fails, and the CMS stays at two members
(trunk 6bbe85ef). The invariant `cms_additions_in_directory` looked only at the write set, so the
run fell through to the liveness rule; it now also looks at the additions still to start.
The shrunk file (tests/impl/sim/data/cms-addition-replaced-shrunk.json) is the issue's, with the
verdict the issue recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from campaign.kinds import checked, generated
from campaign.run.findings import known_finding
from campaign.run.record import RunSpec
from spec.fixes import LEAVE_REFUSES_CMS_JOINER

DATA = Path(__file__).parents[1] / "impl" / "sim" / "data"
SEED = 91817276545
WHY = "CMS additions ['n03'] are not in the directory (the reconfiguration cannot go on; only an operator's cancel ends it)"


def _shrunk(fixes: frozenset[str] = frozenset()) -> Any:
    doc: dict[str, Any] = json.loads((DATA / "cms-addition-replaced-shrunk.json").read_text())
    return checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"], fixes=fixes))


def _unshrunk(fixes: frozenset[str] = frozenset()) -> Any:
    spec, crashed = generated(RunSpec(kind="sim", seed=SEED, fixes=fixes))
    assert crashed is None
    return checked(spec)


def test_the_shrunk_case_is_the_known_finding_not_an_undersized_cms() -> None:
    outcome = _shrunk()
    assert outcome.cause is not None
    assert outcome.cause.klass == "invariant cms_additions_in_directory"
    assert WHY in outcome.cause.text
    finding = known_finding(outcome.cause.klass)
    assert finding is not None and finding.id == "leave-while-joining-cms"


def test_the_unshrunk_run_fails_for_the_same_reason() -> None:
    outcome = _unshrunk()
    assert outcome.cause is not None
    assert outcome.cause.klass == "invariant cms_additions_in_directory"
    assert WHY in outcome.cause.text


def test_the_findings_fix_makes_both_pass() -> None:
    # leave-refuses-cms-joiner: PREPARE_REPLACE refuses a node among the additions still to come
    fix = frozenset({LEAVE_REFUSES_CMS_JOINER})
    for outcome in (_shrunk(fix), _unshrunk(fix)):
        assert outcome.valid, outcome.cause
