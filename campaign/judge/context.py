"""What every check of the judge reads: one run's scenario and observations, the spec's replay
of its committed log, and what several checks derive from them, computed once (`Context`).

A context is built for a finished run (`Context.of`) or, by the stateful machine, for what a
running cluster has observed so far with the replay the machine keeps (`replay=`). The derived
values are computed on first use and kept: the checks share them, and a check that never asks
for the placements (a run whose replay failed) never pays for them.
"""

from __future__ import annotations

import json
from functools import cached_property

from attrs import evolve

from campaign.judge.replay import SpecReplay, spec_start
from campaign.judge.streams import StreamLosses, stream_losses
from checkers.logs import CommitAttempt, LogEntry, NodeLog, longest
from checkers.protocol import Placements
from checkers.protocol.fencing import reads_behind
from checkers.protocol.pending import reads_past_pending
from impl.scenario import Scenario
from observed.calls import CommitCall
from observed.entry import Entry
from observed.protocol import ProtocolTrace
from observed.run import Observed

CHECK_TIMEOUT_S = 30.0
"""Seconds each linearizability search of a run may take (then its verdict is unknown)."""


def log_entry(entry: Entry) -> LogEntry:
    """impl's log entry as the log checkers' (its transformation a frozen JSON value)."""
    return LogEntry(epoch=entry.epoch, entry_id=entry.entry_id, kind=entry.kind,
                    transformation=json.loads(entry.transformation))


def commit_attempts(commits: tuple[CommitCall, ...]) -> tuple[CommitAttempt, ...]:
    """The commit calls as the log checkers' attempts: completed ones in the order they
    completed, then those never completed (outcome unknown); an election aborted before the
    metadata saw it decided nothing, so it is no attempt."""
    done = sorted((c for c in commits if c.complete_index is not None), key=lambda c: c.complete_index or 0)
    out: list[CommitAttempt] = []
    for c in done:
        if c.outcome == "fail" and c.aborted:
            continue
        attempt = CommitAttempt(entry_id=c.entry_id, kind=c.kind, transformation=c.transformation, invoked=c.invoked)
        if c.outcome == "ok":
            attempt = evolve(attempt, completed=c.completed, epoch=c.epoch)
        elif c.outcome == "fail":
            attempt = evolve(attempt, completed=c.completed, rejected=c.rejection, decided_at=c.epoch)
        out.append(attempt)
    out += [CommitAttempt(entry_id=c.entry_id, kind=c.kind, transformation=c.transformation, invoked=c.invoked)
            for c in commits if c.complete_index is None]
    return tuple(out)


class Context:
    """One run as the checks see it (plain attributes, and values derived once)."""

    def __init__(self, scenario: Scenario, observed: Observed, *, fixes: frozenset[str] = frozenset(),
                 timeout_s: float = CHECK_TIMEOUT_S, replay: SpecReplay | None = None,
                 logs: tuple[NodeLog, ...] | None = None) -> None:
        self.scenario = scenario
        self.observed = observed
        self.fixes = fixes
        self.timeout_s = timeout_s
        if logs is None:
            # why the memo: every node's log holds the same entries, each parsed once
            parsed: dict[Entry, LogEntry] = {}
            logs = tuple(NodeLog(node=n.id, entries=tuple(parsed.get(e) or parsed.setdefault(e, log_entry(e))
                                                          for e in n.entries)) for n in observed.nodes)
        self.logs = logs
        reference = longest(self.logs)
        self.log: tuple[LogEntry, ...] = reference.entries if reference is not None else ()
        """The longest node log: the committed log the spec replays."""
        if replay is None:
            start = spec_start(scenario)
            self.full = not self.log or self.log[0].epoch == start.epoch + 1
            replay = SpecReplay(start, self.log if self.full else (), fixes)
        else:
            # a replay that grows with the run (the stateful machine's): the entries past it,
            # from any node (one that installed a snapshot holds none below it)
            done = replay.final.epoch
            held = {e.epoch: e for log in self.logs for e in log.entries if e.epoch > done}
            new: list[LogEntry] = []
            while done + 1 + len(new) in held:
                new.append(held[done + 1 + len(new)])
            replay.extend(new)
            self.full = not self.log or self.log[0].epoch == replay.start.epoch + 1
        self.replay = replay
        self.whole = self.full and not replay.refused
        """The spec replayed the whole committed log and accepted every entry: the checks that
        need the spec's state at every epoch run only then (otherwise the refinement failure
        is the run's cause)."""

    @cached_property
    def trace(self) -> ProtocolTrace:
        return self.observed.protocol_trace()

    @cached_property
    def placements(self) -> Placements | None:
        """The spec's placements at every epoch (None unless the replay is whole)."""
        return Placements(self.replay.states) if self.whole else None

    @cached_property
    def attempts(self) -> tuple[CommitAttempt, ...]:
        return commit_attempts(self.observed.commits)

    @cached_property
    def reads_behind(self) -> frozenset[tuple[str, str, int]]:
        """(coordinator, key, completion time) of the client reads some replica served to a
        coordinator behind the read group's last change (finding `stale-coordinator-read`)."""
        return self._client_reads(reads_behind(self.trace, self.placements)) if self.placements else frozenset()

    @cached_property
    def reads_past_pending(self) -> frozenset[tuple[str, str, int]]:
        """(coordinator, key, completion time) of the client reads that returned a value a
        pending replica of their token lacked, repairing nothing (finding
        `monotonic-read-across-movement`)."""
        if self.placements is None:
            return frozenset()
        return self._client_reads(reads_past_pending(self.trace, self.placements))

    @cached_property
    def stream_losses(self) -> StreamLosses:
        return stream_losses(self.scenario, self.observed)

    def _client_reads(self, requests: frozenset[tuple[str, int]]) -> frozenset[tuple[str, str, int]]:
        """The client reads (coordinator, key, completion time) of these coordinator requests."""
        if not requests:
            return frozenset()
        keys = {(p.coord, p.rid): p.key for p in self.trace.read_plans}
        return frozenset((d.coord, keys[(d.coord, d.rid)], d.t) for d in self.trace.read_dones
                         if (d.coord, d.rid) in requests and (d.coord, d.rid) in keys)


__all__ = ["CHECK_TIMEOUT_S", "Context", "commit_attempts", "log_entry"]
