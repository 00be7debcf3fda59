"""An `OperationPlan` as JSON (`plan_json`: everything, every range) and as text for a terminal
(`plan_text`: each step with counts and the first few ranges). No I/O."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from campaign.operator.plan import OperationPlan, PlanStep, Proof, RangeChange, Transfer
from checkers.quorum.render import RESULT, counterexample_json, describe, describe_cause
from spec.tokens import Range

SHOWN = 8
"""Ranges listed per step and per keyspace in the text (all of them in JSON and HTML)."""


def _range(r: Range) -> list[int]:
    return [r.left, r.right]


def _ids(nodes: Iterable[str]) -> list[str]:
    return sorted(nodes)


def change_json(c: RangeChange) -> dict[str, Any]:
    return {"keyspace": c.keyspace, "range": _range(c.range),
            "reads": {"before": _ids(c.reads_before), "after": _ids(c.reads_after)},
            "writes": {"before": _ids(c.writes_before), "after": _ids(c.writes_after)}}


def transfer_json(t: Transfer) -> dict[str, Any]:
    return {"keyspace": t.keyspace, "destination": t.destination, "sources": list(t.sources),
            "ranges": [_range(r) for r in t.ranges], "share": round(t.share, 6)}


def step_json(s: PlanStep) -> dict[str, Any]:
    return {"epoch": s.epoch, "kind": s.kind, "phase": s.phase,
            "barrier": None if s.barrier is None else list(s.barrier),
            "node_states": [{"node": n, "before": b, "after": a} for n, b, a in s.states],
            "changes": [change_json(c) for c in s.changes]}


def proof_json(p: Proof) -> dict[str, Any]:
    v = p.verdict
    out: dict[str, Any] = {"keyspace": p.keyspace, "result": RESULT[v.valid], "checked": v.checked,
                           "counterexamples": [counterexample_json(c) for c in v.counterexamples]}
    if v.cause:
        out["cause"] = v.cause
    if p.warning:
        out["warning"] = p.warning
    return out


def plan_json(plan: OperationPlan, *, ops: list[Any], prove_command: str) -> dict[str, Any]:
    """The whole plan as data; `ops` is the OPS.json the operation maps onto, `prove_command`
    the `tcmcheck prove` line whose verdict `proofs.overall` equals."""
    return {
        "operation": {"command": plan.command, "node": plan.node, "detail": plan.detail},
        "ops": ops,
        "outcome": plan.outcome,
        "refused": None if plan.refusal is None else {
            "epoch": plan.refusal.epoch, "kind": plan.refusal.kind, "by": plan.refusal.by,
            "reason": plan.refusal.reason},
        "halts": plan.halts,
        "cms": {"before": list(plan.cms_before), "after": list(plan.cms_after), "note": plan.cms_note,
                "reconfiguration": [s.kind for s in plan.steps if s.phase == "CMS"]},
        "steps": [step_json(s) for s in plan.steps],
        "streaming": [transfer_json(t) for t in plan.transfers],
        "unstreamed": [{"keyspace": k, "node": n, "range": _range(r)} for k, n, r in plan.unstreamed],
        "movement": [{"keyspace": m.keyspace, "ranges_changed": m.ranges_changed,
                      "ring_share": round(m.ring_share, 6),
                      "gained": {n: round(s, 6) for n, s in m.gained},
                      "lost": {n: round(s, 6) for n, s in m.lost}} for m in plan.movement],
        "preconditions": list(plan.preconditions),
        "proofs": {"read_cl": plan.read_cl.name, "write_cl": plan.write_cl.name, "window": plan.window,
                   "prove_command": prove_command,
                   "overall": {"result": RESULT[plan.overall.valid], "checked": plan.overall.checked,
                               "counterexamples": [counterexample_json(c) for c in plan.overall.counterexamples]},
                   "per_keyspace": [proof_json(p) for p in plan.proofs]},
        "findings": [{"id": f.id, "class": f.klass, "why": f.why, "advice": f.advice, "fix": f.fix,
                      "report": f.report} for f in plan.findings],
        "findings_not_applying": [{"id": i, "why": why} for i, why in plan.not_applying],
    }


def _set(nodes: Iterable[str]) -> str:
    return "{" + ", ".join(sorted(nodes)) + "}"


def _pct(share: float) -> str:
    return f"{100 * share:.2f}%"


def _change_line(c: RangeChange) -> str:
    parts = []
    if c.reads_before != c.reads_after:
        parts.append(f"reads {_set(c.reads_before)} -> {_set(c.reads_after)}")
    if c.writes_before != c.writes_after:
        parts.append(f"writes {_set(c.writes_before)} -> {_set(c.writes_after)}")
    return f"      {c.keyspace} ({c.range.left}, {c.range.right}]: " + "; ".join(parts)


def _what(s: PlanStep) -> str:
    reads = sum(1 for c in s.changes if c.reads_before != c.reads_after)
    writes = sum(1 for c in s.changes if c.writes_before != c.writes_after)
    bits = []
    if writes:
        bits.append(f"write groups change on {writes} range{'s' if writes != 1 else ''}")
    if reads:
        bits.append(f"read groups change on {reads} range{'s' if reads != 1 else ''}")
    return "; ".join(bits) or "no replica group changes"


def _step_lines(s: PlanStep, transfers: tuple[Transfer, ...], halts: str | None) -> list[str]:
    head = f"  epoch {s.epoch:<3} {s.phase:<8} {s.kind}"
    lines = [head]
    if s.barrier is not None:
        lines.append(f"      progress barrier first: EACH_QUORUM of the {len(s.barrier)} replicas of the locked ranges "
                     "must have seen the previous step")
    for n, before, after in s.states:
        lines.append(f"      {n}: {before} -> {after}")
    lines.append(f"      {_what(s)}")
    lines += [_change_line(c) for c in s.changes[:SHOWN]]
    if len(s.changes) > SHOWN:
        lines.append(f"      ... and {len(s.changes) - SHOWN} more (--json, --html)")
    if s.phase == "START" and (transfers or halts):
        lines.append("      then streaming, before MID:" if not halts else f"      then Cassandra's bootstrap HALTS: {halts}")
        lines += _transfer_lines(transfers)
    return lines


def _transfer_lines(transfers: tuple[Transfer, ...]) -> list[str]:
    by_pair: dict[tuple[str, tuple[str, ...]], list[Transfer]] = {}
    for t in transfers:
        by_pair.setdefault((t.destination, t.sources), []).append(t)
    lines = []
    for (dest, sources), ts in sorted(by_pair.items())[:SHOWN * 2]:
        ranges = sum(len(t.ranges) for t in ts)
        share = sum(t.share for t in ts)
        src = sources[0] if len(sources) == 1 else f"one of {', '.join(sources)}"
        keyspaces = ", ".join(sorted({t.keyspace for t in ts}))
        lines.append(f"        to {dest} from {src}: {ranges} range{'s' if ranges != 1 else ''} of {keyspaces} "
                     f"({_pct(share)} of the ring)")
    if len(by_pair) > SHOWN * 2:
        lines.append(f"        ... and {len(by_pair) - SHOWN * 2} more source/destination pairs (--json, --html)")
    if any(len(sources) > 1 for _, sources in by_pair):
        lines.append("        (\"one of\": Cassandra streams each range from ONE of them, the first live one by the "
                     "snitch's proximity; tcmcheck's simulation tries them in this order)")
    return lines


def plan_text(plan: OperationPlan, *, ops: list[Any], prove_command: str) -> str:
    out = [f"plan: {plan.detail}", f"  OPS.json: {json.dumps(ops)}"]
    n = sum(1 for s in plan.steps if s.phase == "CMS")
    if n == 0:
        out.append(f"  CMS: {_set(plan.cms_before)}, unchanged")
    else:
        out.append(f"  CMS: {_set(plan.cms_before)} -> {_set(plan.cms_after)}: reconfigured first "
                   f"(ReconfigureCMS.maybeReconfigureCMS), {n} epoch{'s' if n != 1 else ''}")
    if plan.cms_note:
        out.append(f"  {plan.cms_note}")
    out += ["", "Steps (each one epoch):"]
    for s in plan.steps:
        out += _step_lines(s, plan.transfers, plan.halts)
    if plan.refusal is not None:
        r = plan.refusal
        who = "the operator layer (nodetool, StorageService, Startup)" if r.by == "operator" else "the CMS"
        out.append(f"  epoch {r.epoch:<3} REFUSED  {r.kind} by {who}: {r.reason}")
    if plan.movement:
        out += ["", "What moves (start to finish, natural replicas):"]
        for m in plan.movement:
            gained = ", ".join(f"{n} {_pct(s)}" for n, s in m.gained[:SHOWN]) or "none"
            lost = ", ".join(f"{n} {_pct(s)}" for n, s in m.lost[:SHOWN]) or "none"
            out.append(f"  {m.keyspace}: {m.ranges_changed} range{'s' if m.ranges_changed != 1 else ''}, "
                       f"{_pct(m.ring_share)} of the ring; gain: {gained}; lose: {lost}")
    if plan.unstreamed:
        keyspace, gainer, lone = plan.unstreamed[0]
        out.append(f"  {len(plan.unstreamed)} range(s) gained with no replica left to stream from, e.g. {keyspace} "
                   f"({lone.left}, {lone.right}] to {gainer}")
    if plan.preconditions:
        out += ["", "Checked by Cassandra when it runs (not decidable from nodetool's output):"]
        out += [f"  - {p}" for p in plan.preconditions]
    out += ["", f"Quorum proof (reads {plan.read_cl.name}, writes {plan.write_cl.name}, epochs up to {plan.window} "
                "apart, every epoch above):"]
    for p in plan.proofs:
        v = p.verdict
        line = f"  {p.keyspace:<24} {RESULT[v.valid]:<15} {v.checked} checks"
        if v.counterexamples:
            line += f"; {describe_cause(v)}; e.g. {describe(v.counterexamples[0])}"
        out.append(line)
        if p.warning:
            out.append(f"    warning: {p.warning}")
    out.append(f"  overall: {RESULT[plan.overall.valid]} (the verdict of: {prove_command})")
    out += ["", "Known findings whose conditions hold (docs/findings.md):"]
    out += [f"  - {f.id} ({f.klass}): {f.why}.\n    What to do: {f.advice}. Proposed fix: --fix {f.fix}"
            + (f"; {f.report}" if f.report else "") for f in plan.findings] or ["  none"]
    out += ["", f"Outcome: {_outcome(plan)}"]
    return "\n".join(out) + "\n"


def _outcome(plan: OperationPlan) -> str:
    if plan.refusal is not None:
        return f"Cassandra refuses this operation: {plan.refusal.reason}"
    if plan.halts is not None:
        return f"Cassandra starts the operation but its streaming halts before MID: {plan.halts}"
    return {True: "Cassandra runs it, and every read quorum meets every write quorum across its epochs",
            False: "Cassandra runs it, but some read and write quorums can miss each other (above)",
            "unknown": "the prover could not decide some check"}[plan.overall.valid]


__all__ = ["SHOWN", "change_json", "plan_json", "plan_text", "step_json", "transfer_json"]
