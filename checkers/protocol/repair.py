"""Promise `repair`: what a completed anti-entropy repair session leaves behind, and that a
session that cannot complete says so (Cassandra's `ActiveRepairService`, `RepairJob`,
`SyncTask`; impl/node/repair.py).

Over the run's protocol trace in the order the simulation took it, with each node's cells
rebuilt from its `Store` events (a cell only ever gets newer: last write wins, nothing deletes):
- **Agreement.** When a session reports `completed`, for every range it repaired and every pair
  of its participants, every key of the range either participant holds: both hold the same
  cell — unless the key is *written during the session*: a store of it on a participant of the
  range between the session's start and its end other than by this session's own syncs (a
  mutation, hint, read repair, stream or another session's sync that arrived meanwhile, which
  the validation may or may not have seen). `RepairJob.createStandardSyncTasks` syncs every pair
  whose trees differ (`MerkleTrees.difference(r1.trees, r2.trees)`), both ways (`new
  SymmetricRemoteSyncTask(ctx, desc, r1.endpoint, r2.endpoint, differences, previewKind)`), and
  `executeTasks` completes only with all of them (`FutureCombiner.allOf(tasks)`), so what the
  participants held when they validated is on all of them by then.
- **Nothing older.** Whatever was written during it, each participant ends the session holding
  a cell at least as new as the newest any participant of the range held when it started.
- **Participants.** Each range's participants are its read replicas in the spec's placement at
  the epoch the coordinator started at (`ActiveRepairService.getNeighbors`: the range's natural
  replicas; pending replicas take no part).
- **Completion.** A session completes at most once, only after it started, and only once the
  rows of every sync task it created reached their destination; it reports failed otherwise.
  At a quiet end, every session whose coordinator is up and did not restart since it began
  has reported an outcome (a coordinator's crash ends its sessions with no word: nodetool's
  connection to it drops).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from checkers.protocol.placements import Placements
from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from observed.protocol import (
    Event,
    FdStart,
    RepairSessionDone,
    RepairSessionStart,
    Store,
    SyncApply,
    SyncTask,
)

Cell = tuple[int, int]
"""(timestamp, value): last write wins, ties broken by the value."""

Fail = Callable[[Event, str, tuple[tuple[str, str], ...]], None]

PATHS = ("sessions completed", "sessions failed", "ranges compared", "keys compared",
         "keys written during a session", "sync tasks")
"""What this check judges in a run (the report's paths)."""


def in_range(token: int, left: int, right: int) -> bool:
    """`token` in (left, right]; the range wraps when left >= right (the full ring when equal)."""
    if left < right:
        return left < token <= right
    return token > left or token <= right


class _Open:
    """A session between its start and its outcome."""

    __slots__ = ("start", "at_start", "dirty", "syncs", "applied")

    def __init__(self, start: RepairSessionStart, at_start: dict[tuple[int, int], dict[str, Cell]]) -> None:
        self.start = start
        self.at_start = at_start
        """range -> key -> the newest cell any participant of the range held at the start."""
        self.dirty: set[str] = set()
        self.syncs: set[tuple[str, str]] = set()
        self.applied: set[tuple[str, str]] = set()


class _Cells:
    """Every node's cells, as its stores left them so far."""

    def __init__(self) -> None:
        self.held: dict[tuple[str, str], dict[str, Cell]] = {}  # (node, keyspace) -> key -> cell
        self.token: dict[str, int] = {}

    def store(self, s: Store) -> None:
        self.held.setdefault((s.node, s.keyspace), {})[s.key] = (s.timestamp, s.value)
        self.token[s.key] = s.token

    def in_range(self, node: str, keyspace: str, rng: tuple[int, int]) -> dict[str, Cell]:
        return {k: c for k, c in self.held.get((node, keyspace), {}).items() if in_range(self.token[k], *rng)}


_READS: frozenset[type[Event]] = frozenset({Store, SyncApply, RepairSessionStart, SyncTask, RepairSessionDone, FdStart})
"""The event kinds the check reads (each an exact class: observed/protocol.py has no subclasses)."""


def check_repair(events: Iterable[Event], placements: Placements | None = None, *,
                 up_at_quiet_end: frozenset[str] | None = None) -> ProtocolVerdict:
    """Every repair session's promise, over the events in the order the simulation took them
    (`placements`: the spec's, to check participants; None skips that; `up_at_quiet_end`: the
    nodes up when the run ended quiet — None when it did not — whose sessions must have ended). One pass, one branch per event kind (past 60 lines: the
    state each branch updates is read best in one loop, and the pass stays linear in the trace)."""
    cells = _Cells()
    open_: dict[tuple[str, int], _Open] = {}
    done: set[tuple[str, int]] = set()
    restarted_at: dict[str, int] = {}
    last_apply: dict[str, tuple[str, int]] = {}  # node -> the session of the rows it is storing
    out: list[Violation] = []
    judged = dict.fromkeys(PATHS, 0)

    def fail(e: Event, detail: str, evidence: tuple[tuple[str, str], ...]) -> None:
        out.append(Violation(invariant="repair", time=e.t, detail=detail, evidence=evidence))

    # why the filter first: these kinds are a small part of a trace, read once per run
    for e in [e for e in events if type(e) in _READS]:
        if isinstance(e, Store):
            source = last_apply.get(e.node) if e.via == "repair" else None
            if e.via != "repair":
                last_apply.pop(e.node, None)
            for which, running in open_.items():
                if which != source and e.keyspace == running.start.keyspace and any(
                        e.node in ps and in_range(e.token, *r)
                        for r, ps in zip(running.start.ranges, running.start.participants, strict=True)):
                    running.dirty.add(e.key)
            cells.store(e)
        elif isinstance(e, SyncApply):
            last_apply[e.dst] = (e.coord, e.session)
            syncing = open_.get((e.coord, e.session))
            if syncing is not None:
                syncing.applied.add((e.src, e.dst))
        elif isinstance(e, RepairSessionStart):
            at_start: dict[tuple[int, int], dict[str, Cell]] = {}
            for rng, ps in zip(e.ranges, e.participants, strict=True):
                newest: dict[str, Cell] = {}
                for p in ps:
                    for k, c in cells.in_range(p, e.keyspace, rng).items():
                        if c > newest.get(k, (-1, -1)):
                            newest[k] = c
                at_start[rng] = newest
                if placements is not None:
                    _participants(e, rng, ps, placements, fail)
            open_[(e.coord, e.session)] = _Open(e, at_start)
        elif isinstance(e, SyncTask):
            judged["sync tasks"] += 1
            creating = open_.get((e.coord, e.session))
            if creating is None:
                fail(e, f"{e.coord} created a sync task {e.src}->{e.dst} for repair session {e.session}, "
                        "which is not running", ())
            else:
                creating.syncs.add((e.src, e.dst))
        elif isinstance(e, RepairSessionDone):
            if e.session == 0:
                judged["sessions failed" if e.outcome != "completed" else "sessions completed"] += 1
                continue
            key = (e.coord, e.session)
            ending = open_.pop(key, None)
            if key in done or ending is None:
                fail(e, f"{e.coord} reported repair session {e.session} {e.outcome}, "
                        + ("a second time" if key in done else "which never started"), ())
                continue
            done.add(key)
            if e.outcome != "completed":
                judged["sessions failed"] += 1
                continue
            judged["sessions completed"] += 1
            _completed(e, ending, cells, fail, judged)
        elif isinstance(e, FdStart) and e.restarted:
            restarted_at[e.node] = e.t
        if len(out) >= MAX_VIOLATIONS:
            break
    if up_at_quiet_end is not None and len(out) < MAX_VIOLATIONS:
        for (coord, number), left in sorted(open_.items()):
            if coord in up_at_quiet_end and restarted_at.get(coord, -1) < left.start.t:
                out.append(Violation(invariant="repair", time=left.start.t, detail=(
                    f"repair session {number} coordinated by {coord} (started at {left.start.t / 1e9:.3f} s) never "
                    "reported an outcome, though the run ended quiet with its coordinator up, never restarted")))
    return ProtocolVerdict(violations=tuple(out[:MAX_VIOLATIONS]), checked=judged["sessions completed"],
                           judged=tuple(judged.items()))


def _participants(e: RepairSessionStart, rng: tuple[int, int], ps: tuple[str, ...], placements: Placements,
                  fail: Fail) -> None:
    groups = placements.groups(e.epoch, e.keyspace, rng[1])
    if groups is None or frozenset(ps) == groups[0]:
        return
    fail(e, f"repair session {e.session} by {e.coord} of {e.keyspace} ({rng[0]}, {rng[1]}] at e{e.epoch} "
            f"takes {','.join(ps)} as participants; the range's read replicas then are "
            f"{','.join(sorted(groups[0]))}", (("session", _session_line(e)),))


def _completed(e: RepairSessionDone, s: _Open, cells: _Cells, fail: Fail, judged: dict[str, int]) -> None:
    start = s.start
    missing = sorted(s.syncs - s.applied)
    if missing:
        src, dst = missing[0]
        fail(e, f"repair session {e.session} by {e.coord} reported completed before the rows of its sync task "
                f"{src}->{dst} reached {dst}" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""),
             (("session", _session_line(start)), ("sync tasks", ", ".join(f"{a}->{b}" for a, b in sorted(s.syncs))),
              ("rows received", ", ".join(f"{a}->{b}" for a, b in sorted(s.applied)) or "none")))
        return
    for rng, ps in zip(start.ranges, start.participants, strict=True):
        judged["ranges compared"] += 1
        held = {p: cells.in_range(p, start.keyspace, rng) for p in ps}
        newest = s.at_start[rng]
        keys = sorted({k for h in held.values() for k in h})
        judged["keys compared"] += len(keys)
        for k in keys:
            if k in s.dirty:
                judged["keys written during a session"] += 1
            now = {p: held[p].get(k) for p in ps}
            base = newest.get(k)
            behind = [p for p in ps if base is not None and (now[p] or (-1, -1)) < base]
            differ = k not in s.dirty and len(set(now.values())) > 1
            if not behind and not differ:
                continue
            what = (f"{behind[0]} holds an older cell than {_cell(base)}, which a participant held when the "
                    "session started") if behind else "its participants hold different cells"
            fail(e, f"repair session {e.session} by {e.coord} completed, yet for {start.keyspace}/{k} in "
                    f"({rng[0]}, {rng[1]}] {what}: " + ", ".join(f"{p}:{_cell(now[p])}" for p in ps),
                 (("session", _session_line(start)),
                  ("at the start", f"the newest cell on a participant: {_cell(base)}"),
                  ("written during it", "yes" if k in s.dirty else "no"),
                  ("at the end", ", ".join(f"{p}:{_cell(now[p])}" for p in ps))))
            return


def _session_line(s: RepairSessionStart) -> str:
    ranges = "; ".join(f"({lo}, {hi}] on {','.join(ps)}" for (lo, hi), ps in zip(s.ranges, s.participants,
                                                                                   strict=True))
    return f"session {s.session} by {s.coord} of {s.keyspace} at e{s.epoch}, {s.t / 1e9:.3f} s: {ranges}"


def _cell(c: Cell | None) -> str:
    return "nothing" if c is None else f"{c[1]}@{c[0]}"


__all__ = ["PATHS", "check_repair", "in_range"]
