"""Check `holdings`: what each node's metadata held — at a snapshot install, a restart, the end
(or, in the stateful machine, now) — equals the spec's replay of the log up to the node's epoch;
no node's applied epoch goes backwards, nor holds a placement modified above it; and each
snapshot install reports the metadata keys it changed.
"""

from __future__ import annotations

from campaign.judge import cause as C
from campaign.judge.cause import Cause
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.replay import spec_view
from observed.frozen import FrozenMap
from spec.metadata_keys import CORE_METADATA, diff_keys


def differences(ctx: Context) -> tuple[Cause, ...]:
    """Each recorded node view against the spec at the node's epoch (the first difference per
    node and occasion kind; past a refused entry there is nothing to compare with)."""
    states = ctx.replay.states
    out: list[Cause] = []
    seen: set[tuple[str, str]] = set()
    memo: dict[int, FrozenMap] = {}
    for h in ctx.observed.holdings:
        state = states.get(h.epoch)
        if state is None or (h.node, h.when) in seen:
            continue
        if h.epoch not in memo:
            memo[h.epoch] = spec_view(state)
        want = memo[h.epoch]
        if h.view != want:
            seen.add((h.node, h.when))
            parts = [k for k in ("placements", "nodes", "cms") if h.view.get(k) != want.get(k)]
            out.append(C.metadata_differs(h.node, h.epoch, h.when, ", ".join(parts) or "epoch"))
    return tuple(out)


def install_keys(ctx: Context) -> tuple[Cause, ...]:
    """Each snapshot install's reported modified keys against MetadataKeys.diffKeys of the
    node's metadata before it and the snapshot (ForceSnapshot.execute since CASSANDRA-19128).
    Cassandra's diffKeys compares values whose equals includes their lastModified epoch, which
    every transformation that modified the value moves (ClusterMetadata.Transformer.build): a
    key is modified when the spec's state changed it at any epoch in (before, after], even if
    its content ends equal. Installs whose span the spec did not replay whole are skipped."""
    states = ctx.replay.states
    step: dict[int, tuple[str, ...]] = {}
    for i in ctx.observed.installs:
        if any(e not in states for e in range(i.before, i.after + 1)):
            continue
        changed: set[str] = set()
        for e in range(i.before + 1, i.after + 1):
            if e not in step:
                step[e] = diff_keys(states[e - 1], states[e])
            changed.update(step[e])
        want = tuple(k for k in CORE_METADATA if k in changed)
        if tuple(i.keys) != want:
            return (C.install_keys(i.node, i.before, i.after, tuple(i.keys), want),)
    return ()


def check(ctx: Context) -> CheckResult:
    causes = (*(C.epoch_regression(r) for r in ctx.observed.epoch_regressions), *differences(ctx),
              *install_keys(ctx))
    return CheckResult(causes=causes, summary={"holdings": [c.text for c in causes]})


CHECK = Check(name="holdings", family="holdings", incremental=True, check=check,
              doc="each node's metadata equals the spec's at the node's epoch, which never goes backwards")

__all__ = ["CHECK", "differences", "install_keys"]
