"""Check `durability`: what became of every acknowledged client write — the one place durability
is judged (checkers/protocol/durability.py reports lost and stale writes from the trace and the
end state; this check says which of them fail a run, with their evidence).

- **Stale replica** (every client write at ALL, a quiet end): every write replica, pending ones
  included, acknowledged each `ok` write and streaming hands it on, so the live read replicas of
  a key hold the same cell — unless a write of that key ended unknown (`info`, `fail`: applied
  part way, which nothing repairs but a read).
- **Stale read** (every client write at ALL, no clock skew): a read that starts after a write of
  its key was acknowledged returns that write or a later one. Weaker than linearizability on
  purpose: a write still in flight may be seen by one read at ONE and not by a later one (reads
  at ONE repair nothing), which is Cassandra's semantics. Last write wins by the coordinator's
  clock, so not with clock skew.
- **Lost write** (any level but ANY, whenever the run is observed): no write replica holds it or
  a newer cell (up or down: a disk outlives a crash), and no hint for a node still in the
  directory carries it — neither hints nor repair can bring it back. Sound on a running cluster
  too: a write is on its replicas' disks before they acknowledge it, a hint is kept until its
  target acknowledged it, and a range movement streams before its MID while the nodes giving a
  range up stay write replicas until FINISH; `durability: lost by a single-source
  stream` when a faithful remove/replace stream from one source explains every lost write
  (finding `remove-replace-single-source`).

Its evidence: each write behind a cause, followed from its plan to the end
(campaign/judge/write_fate.py). The stateful machine judges lost writes after every step (its
scenario declares no workloads, so the ALL-only rules, which read the workloads' levels, do not
apply there).
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from campaign.judge import cause as C
from campaign.judge.cause import Cause
from campaign.judge.check import Check, CheckResult
from campaign.judge.context import Context
from campaign.judge.evidence import Evidence
from campaign.judge.promises import judged_keys, writes_at_all
from campaign.judge.write_fate import MAX_FATES, write_fate
from checkers.protocol import DurabilityReport, check_durability
from observed.calls import completed


@frozen(kw_only=True)
class Followed:
    """A write behind a cause: (what, keyspace, key, value, the stale read's (value, invoked))."""

    kind: str
    keyspace: str
    key: str
    value: int
    read: tuple[int | None, int] | None = None


def stale_replicas(ctx: Context) -> tuple[tuple[Cause, Followed], ...]:
    observed = ctx.observed
    if not observed.quiescent or not writes_at_all(ctx.scenario):
        return ()
    unsure = {c.key for c in observed.clients if c.f == "write" and c.outcome in ("info", "fail")}
    judged = judged_keys(ctx.scenario)
    for k in observed.cells:
        cells = k.readable()
        if k.key in unsure or k.key not in judged or len({c.cell for c in cells}) <= 1:
            continue
        held = ", ".join(f"{c.replica}:{c.value if not c.holds_nothing else '-'}" for c in cells)
        newest = max(c.cell for c in cells)
        return ((C.durability(f"replicas of {k.keyspace}/{k.key} disagree at the end ({held})"),
                 Followed(kind="stale replica", keyspace=k.keyspace, key=k.key, value=newest[1])),)
    return ()


def stale_reads(ctx: Context) -> tuple[tuple[Cause, Followed], ...]:
    """The first read that missed an acknowledged write, when every write is at ALL."""
    if not writes_at_all(ctx.scenario) or ctx.scenario.clock_skew:
        return ()
    calls = completed(ctx.observed.clients)
    writes: dict[str, list[Any]] = {}  # key -> calls of its writes, in the order they completed
    for c in calls:
        if c.f == "write":
            writes.setdefault(c.key, []).append(c)
    judged = judged_keys(ctx.scenario)
    keyspace = {c.key: c.keyspace for c in ctx.observed.clients}
    for read in calls:
        if read.f != "read" or read.outcome != "ok" or read.key not in judged:
            continue
        of_key = writes.get(read.key, [])
        done = [w for w in of_key if w.outcome == "ok" and (w.completed or 0) < read.invoked]
        if not done:
            continue
        follow = Followed(kind="stale read", keyspace=keyspace[read.key], key=read.key, value=done[-1].value,
                          read=(read.value, read.invoked))
        if read.value is None:
            return ((C.stale_read(f"stale read of {read.key}: nothing, after write {done[-1].value} was "
                                  "acknowledged"), follow),)
        source = next((w for w in of_key if w.value == read.value), None)
        if source is None or source.outcome != "ok":
            continue
        newer = next((w for w in done if (source.completed or 0) < w.invoked), None)
        if newer is not None:
            return ((C.stale_read(f"stale read of {read.key}: {read.value}, after write {newer.value} (begun once "
                                  f"{read.value} was acknowledged) was acknowledged"),
                     Followed(kind="stale read", keyspace=keyspace[read.key], key=read.key, value=newer.value,
                              read=(read.value, read.invoked))),)
    return ()


def report(ctx: Context) -> DurabilityReport:
    """Stale versus lost over the run so far (checkers/protocol/durability.py)."""
    observed = ctx.observed
    if not observed.protocol or not observed.cells:
        return DurabilityReport()
    directory = frozenset(n.id for n in ctx.replay.final.directory) if ctx.whole else frozenset(
        n.id for n in observed.nodes)
    return check_durability(ctx.trace, observed.clients, observed.cells, observed.hints, directory)


def lost_writes(ctx: Context, found: DurabilityReport) -> tuple[tuple[Cause, Followed], ...]:
    """The first lost write at a level that promises durability (not ANY), with the others it
    counts; followed: up to `MAX_FATES` of them."""
    lost = [w for w in found.lost if w.level != "ANY"]
    if not lost:
        return ()
    lost_by_stream = ctx.stream_losses.lost
    # (writes at ANY promise nothing: a hint for a node that then left is Cassandra's
    # documented loss, left out of the cause)
    single = all((w.key, w.value) in lost_by_stream for w in found.lost if w.level != "ANY")
    w = lost[0]
    more = f" (and {len(lost) - 1} more)" if len(lost) > 1 else ""
    cause = C.lost_write(f"lost write {w.keyspace}/{w.key}={w.value} at {w.level}: no replica holds it "
                         f"or a newer cell at the end, and no hint carries it{more}", single_source=single)
    return tuple((cause, Followed(kind="lost write", keyspace=x.keyspace, key=x.key, value=x.value))
                 for x in found.lost[:MAX_FATES])


def check(ctx: Context) -> CheckResult:
    found = report(ctx)
    parts = (*stale_replicas(ctx), *stale_reads(ctx), *lost_writes(ctx, found))
    causes = tuple(dict.fromkeys(c for c, _ in parts))
    summary = {"durability": {
        "lost": [f"{w.keyspace}/{w.key}={w.value} at {w.level}" for w in found.lost],
        "stale": [f"{s.keyspace}/{s.key}: a read returned {s.read_value} after {s.missed_value} "
                  f"was acknowledged; " + (f"healed by {', '.join(dict.fromkeys(s.healed_by))}"
                                           if s.healed_by else "not healed")
                  + ("; still stale at the end" if s.still_stale else "")
                  for s in found.stale[:20]]}}
    if not causes:
        return CheckResult(summary=summary)
    trace = ctx.trace
    fates = tuple(write_fate(ctx.observed, trace, f.kind, f.keyspace, f.key, f.value, f.read) for _, f in parts)
    first = fates[0]
    evidence = Evidence(anomaly=causes[0].klass, key=first.key, writes=fates, final_epoch=ctx.observed.final_epoch)
    return CheckResult(causes=causes, evidence=evidence, summary=summary)


CHECK = Check(name="durability", family="durability", incremental=True, check=check,
              doc="acknowledged writes are neither lost nor, with writes at ALL, missed by a later read "
                  "or by a replica at a quiet end")

__all__ = ["CHECK", "lost_writes", "report", "stale_reads", "stale_replicas"]
