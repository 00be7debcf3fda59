"""Promise `hint replay`: a hint carries exactly the write it was made for to a node that owns it,
and is deleted only once its target acknowledged it (Cassandra's `HintsService`,
`HintsDispatcher`, `HintVerbHandler`; impl/node/hints.py and `Replica.on_hint`).

Over the protocol trace in the order the simulation took it:
- **Made for a write.** A hint a coordinator stores for a target carries a write that
  coordinator planned — the same keyspace, key, timestamp and value — with the target among the
  write's replicas (`StorageProxy.submitHint` hints a replica of the mutation); a hint stored
  by re-hinting (`rehint`) carries a hint its holder received and could not apply, for a write
  replica of the token in that holder's metadata then (`HintsService.writeForAllReplicas`).
- **Replayed as made.** A hint its target receives is one its sender stored for it, cell for
  cell (key, timestamp, value) — a page sent again after the first was acknowledged (an
  unanswered page is resent at the next tick; the network may duplicate it) repeats hints
  already deleted, which is harmless; the target applies it when it is a write replica of the token in
  the spec's placement at the target's epoch and re-hints it otherwise (`HintVerbHandler`: "the
  topology has changed, and we are no longer a replica of the mutation", then
  `HintsService.instance.writeForAllReplicas(hint)`); every cell a hint changed on a disk is the
  cell of a hint applied there.
- **Deleted once acknowledged.** A holder deletes a hint only after its target received that
  hint (the target answers once it handled it: `HintVerbHandler` calls `respond(messaging,
  message)` in the apply's success callback, or after re-hinting),
  and never more often than it stored it; every hint stored and not deleted is on its holder's
  disk (a hint goes nowhere else: `HintsService.excise` has no caller).
"""

from __future__ import annotations

from collections.abc import Iterable

from checkers.protocol.placements import Placements
from checkers.protocol.verdict import MAX_VIOLATIONS, ProtocolVerdict, Violation
from observed.cells import StoredHint
from observed.protocol import Event, HintApply, HintDeliver, HintStore, Store, WritePlan

Write = tuple[str, str, int, int]
"""(keyspace, key, timestamp, value)"""

PATHS = ("hints stored", "hints re-hinted", "hints applied", "hints received by a non-owner",
         "hints deleted")
"""What this check judges in a run (the report's paths)."""


_READS: frozenset[type[Event]] = frozenset({WritePlan, HintStore, HintApply, Store, HintDeliver})
"""The event kinds the check reads (each an exact class: observed/protocol.py has no subclasses)."""


def check_hints(events: Iterable[Event], placements: Placements | None = None,
                held: Iterable[StoredHint] | None = None) -> ProtocolVerdict:
    """Every hint's promise, over the events in the order the simulation took them (`placements`:
    the spec's, to judge ownership at the target's epoch; None skips that; `held`: the hints on
    the disks when the events end, every hint stored and not deleted). One pass, one branch per event kind (past 60 lines: the
    state each branch updates is read best in one loop, and the pass stays linear in the trace)."""
    planned: dict[tuple[str, Write], frozenset[str]] = {}  # (coordinator, write) -> its replicas
    rehinting: dict[tuple[str, Write], tuple[int, int]] = {}  # (holder, write) -> (epoch, token) re-hinted at
    stored: dict[tuple[str, str, Write], int] = {}  # (holder, target, write) -> hints held
    made: set[tuple[str, str, Write]] = set()  # (holder, target, write) of every hint ever stored
    received: set[tuple[str, str, Write]] = set()  # (holder, target, write) the target received
    applied_now: dict[str, tuple[int, Write]] = {}  # node -> (time, write) of its last applied hint
    judged = dict.fromkeys(PATHS, 0)
    out: list[Violation] = []

    def fail(e: Event, detail: str, *evidence: tuple[str, str]) -> None:
        out.append(Violation(invariant="hint replay", time=e.t, detail=detail, evidence=evidence))

    events = tuple(events)
    end = events[-1].t if events else 0
    # why the filter first: these kinds are a small part of a trace, read once per run
    for e in [e for e in events if type(e) in _READS]:
        if isinstance(e, WritePlan):
            w = (e.keyspace, e.key, e.timestamp, e.value)
            planned[(e.coord, w)] = frozenset(e.contacts) | frozenset(e.down)
        elif isinstance(e, HintStore):
            w = (e.keyspace, e.key, e.timestamp, e.value)
            judged["hints re-hinted" if e.reason == "rehint" else "hints stored"] += 1
            if e.reason == "rehint":
                at = rehinting.get((e.coord, w))
                if at is None:
                    fail(e, f"{e.coord} re-hinted {_w(w)} for {e.target} without having received that hint",
                         ("hint", _store_line(e)))
                elif placements is not None and (g := placements.groups(at[0], e.keyspace, at[1])) \
                        is not None and e.target not in g[1]:
                    fail(e, f"{e.coord} re-hinted {_w(w)} to {e.target}, not a write replica of its token at "
                            f"e{at[0]} ({','.join(sorted(g[1]))})", ("hint", _store_line(e)))
            else:
                replicas = planned.get((e.coord, w))
                if replicas is None or e.target not in replicas:
                    fail(e, f"{e.coord} stored a hint of {_w(w)} for {e.target} ({e.reason}), which matches no "
                            f"write it planned" + ("" if replicas is None else
                                                   f" for {e.target} (its replicas: {','.join(sorted(replicas))})"),
                         ("hint", _store_line(e)))
            stored[(e.coord, e.target, w)] = stored.get((e.coord, e.target, w), 0) + 1
            made.add((e.coord, e.target, w))
        elif isinstance(e, HintApply):
            w = (e.keyspace, e.key, e.timestamp, e.value)
            if (e.holder, e.node, w) not in made:
                others = sorted(f"{_w(x)}" for (h, t, x) in made if (h, t) == (e.holder, e.node) and x[:2] == w[:2])
                fail(e, f"{e.node} received from {e.holder} a hint of {_w(w)}, which {e.holder} never stored "
                        f"for it" + (f" (it stored {', '.join(others[:3])})" if others else ""),
                     ("received", _apply_line(e)))
            received.add((e.holder, e.node, w))
            if e.answer == "applied":
                judged["hints applied"] += 1
                applied_now[e.node] = (e.t, w)
            else:
                judged["hints received by a non-owner"] += 1
                rehinting[(e.node, w)] = (e.epoch, e.token)
            groups = placements.groups(e.epoch, e.keyspace, e.token) if placements is not None else None
            if groups is not None and (e.node in groups[1]) != (e.answer == "applied"):
                fail(e, f"{e.node} at e{e.epoch} {e.answer} a hint of {_w(w)} from {e.holder}, "
                        + ("not" if e.answer == "applied" else "though it is") + " a write replica of its token "
                        f"then (write replicas {','.join(sorted(groups[1]))})", ("received", _apply_line(e)))
        elif isinstance(e, Store) and e.via == "hint":
            w = (e.keyspace, e.key, e.timestamp, e.value)
            last = applied_now.get(e.node)
            if last is None or last[0] != e.t:
                fail(e, f"{e.node} stored {_w(w)} by a hint it did not apply", ("stored", f"{e.node} {_w(w)}"))
            elif last[1] != w:
                fail(e, f"{e.node} applied the hint of {_w(last[1])} as {_w(w)}: not the write it was made for",
                     ("applied", _w(last[1])), ("stored", _w(w)))
        elif isinstance(e, HintDeliver):
            judged["hints deleted"] += 1
            k = (e.holder, e.target, (e.keyspace, e.key, e.timestamp, e.value))
            if k not in received:
                fail(e, f"{e.holder} deleted its hint of {_w(k[2])} for {e.target} before {e.target} "
                        "acknowledged it (it never received it)", ("deleted", _w(k[2])))
            elif stored.get(k, 0) == 0:
                fail(e, f"{e.holder} deleted a hint of {_w(k[2])} for {e.target} more often than it stored it",
                     ("deleted", _w(k[2])))
            else:
                stored[k] -= 1
        if len(out) >= MAX_VIOLATIONS:
            break
    if held is not None and len(out) < MAX_VIOLATIONS:
        out += _kept(stored, held, end)
    return ProtocolVerdict(violations=tuple(out[:MAX_VIOLATIONS]), checked=judged["hints applied"],
                           judged=tuple(judged.items()))


def _kept(stored: dict[tuple[str, str, Write], int], held: Iterable[StoredHint], end: int) -> list[Violation]:
    """Hints stored and never deleted are on their holder's disk (a disk outlives a crash)."""
    on_disk: dict[tuple[str, str, Write], int] = {}
    for h in held:
        k = (h.holder, h.target, (h.keyspace, h.key, h.timestamp, h.value))
        on_disk[k] = on_disk.get(k, 0) + 1
    for k in sorted(set(stored) | set(on_disk)):
        if stored.get(k, 0) != on_disk.get(k, 0):
            holder, target, w = k
            return [Violation(invariant="hint replay", time=end, detail=(
                f"at the end {holder} holds {on_disk.get(k, 0)} hint(s) of {_w(w)} for {target}, having stored "
                f"{stored.get(k, 0)} more than it deleted on an acknowledgement: a hint went "
                + ("missing without one" if stored.get(k, 0) > on_disk.get(k, 0) else "onto its disk unrecorded")))]
    return []


def _w(w: Write) -> str:
    return f"{w[0]}/{w[1]}={w[3]}@{w[2]}"


def _store_line(e: HintStore) -> str:
    return f"{e.coord} stored a hint for {e.target} ({e.reason}) of {_w((e.keyspace, e.key, e.timestamp, e.value))}"


def _apply_line(e: HintApply) -> str:
    return (f"{e.node} at e{e.epoch} {e.answer} the hint of {_w((e.keyspace, e.key, e.timestamp, e.value))} "
            f"from {e.holder}")


__all__ = ["PATHS", "check_hints"]
