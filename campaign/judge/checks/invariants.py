"""Check `invariants`: the spec invariants Cassandra's own rules can break, on the final state of
the committed log (findings replace-cms-member, leave-while-joining-cms, unregister-prepared-join,
nts-rack-composition, cross-dc-replace), so that a simulated run reaching one says so by the same
cause class as a refine run. On the final state only: some hold only at rest.
"""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from spec.invariants import violations

FINAL_INVARIANTS = ("cms_is_consistent", "cms_additions_in_directory", "cms_members_have_not_left",
                    "sequences_name_registered_nodes", "at_rest_matches_from_scratch", "reads_have_replication_factor")


def check(ctx: Context) -> CheckResult:
    if not ctx.whole:
        return CheckResult()
    for name, what in violations(ctx.replay.final):
        if name in FINAL_INVARIANTS:
            cause = C.spec_invariant(name, what)
            return CheckResult(causes=(cause,), summary={"invariants": [cause.text]})
    return CheckResult()


CHECK = Check(name="invariants", family="spec-replay", incremental=False, check=check,
              doc="the final metadata keeps the invariants Cassandra's rules can break")

__all__ = ["CHECK", "FINAL_INVARIANTS"]
