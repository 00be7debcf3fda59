"""An `OperationPlan` as one self-contained HTML page (no script, no network): for a 256-vnode cluster the
text shows counts, the page every range. Per keyspace a strip of the ring marks the ranges whose
replicas change; each step's ranges are a table (added replicas green, removed red); then the
streaming tasks, the proofs and the findings."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import Any

from campaign.operator.murmur3 import MINIMUM
from campaign.operator.plan import OperationPlan, PlanStep, RangeChange
from campaign.operator.plan_render import plan_text
from checkers.quorum.render import RESULT, describe
from spec.tokens import Range

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 1200px; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.85em; }
td, th { padding: 2px 8px; text-align: left; border-bottom: 1px solid #eee; vertical-align: top; }
code, td { overflow-wrap: anywhere; } .add { color: #1e7b34; font-weight: bold; } .del { color: #c0392b; text-decoration: line-through; }
.refused, .counterexample, .halts { color: #c0392b; font-weight: bold; } .proved { color: #1e7b34; font-weight: bold; }
details { margin: 0.4em 0; } summary { cursor: pointer; } pre { white-space: pre-wrap; font-size: 0.8em; background: #f7f7f7; padding: 0.5em; }
"""
_WIDTH = 1000


def esc(x: object) -> str:
    return html.escape(str(x))


def _x(token: int) -> float:
    return (token - MINIMUM) / 2**64 * _WIDTH


def ring_strip(ranges: Iterable[Range], label: str) -> str:
    """An SVG bar of the whole ring, the given ranges filled."""
    rects = []
    for r in ranges:
        for lo, hi in r.unwrap() if not r.is_full_ring else ((MINIMUM, MINIMUM + 2**64 - 1),):
            rects.append(f'<rect x="{_x(lo):.2f}" y="2" width="{max(_x(hi) - _x(lo), 0.5):.2f}" height="16" fill="#d35400"/>')
    return (f'<svg width="{_WIDTH}" height="20" viewBox="0 0 {_WIDTH} 20" role="img" aria-label="{esc(label)}">'
            f'<rect x="0" y="2" width="{_WIDTH}" height="16" fill="#eee"/>{"".join(rects)}</svg>')


def _group(before: frozenset[str], after: frozenset[str]) -> str:
    if before == after:
        return esc(", ".join(sorted(after)))
    kept = [esc(n) for n in sorted(before & after)]
    added = [f'<span class="add">{esc(n)}</span>' for n in sorted(after - before)]
    removed = [f'<span class="del">{esc(n)}</span>' for n in sorted(before - after)]
    return ", ".join(kept + added + removed)


def _change_rows(changes: Iterable[RangeChange]) -> str:
    rows = [f"<tr><td>{esc(c.keyspace)}</td><td><code>({c.range.left}, {c.range.right}]</code></td>"
            f"<td>{_group(c.reads_before, c.reads_after)}</td><td>{_group(c.writes_before, c.writes_after)}</td></tr>"
            for c in changes]
    return ("<table><tr><th>keyspace</th><th>range</th><th>read replicas</th><th>write replicas</th></tr>"
            + "".join(rows) + "</table>")


def _step(s: PlanStep, plan: OperationPlan) -> str:
    parts = [f"<details{' open' if len(s.changes) <= 20 else ''}><summary><b>epoch {s.epoch}: {esc(s.kind)}</b> "
             f"({esc(s.phase)}; {len(s.changes)} range{'s' if len(s.changes) != 1 else ''} change)</summary>"]
    if s.barrier is not None:
        parts.append(f"<p>Progress barrier first: EACH_QUORUM of {len(s.barrier)} replicas: "
                     f"{esc(', '.join(s.barrier))}</p>")
    if s.states:
        parts.append("<p>" + "; ".join(f"{esc(n)}: {esc(b)} → {esc(a)}" for n, b, a in s.states) + "</p>")
    if s.changes:
        parts.append(ring_strip((c.range for c in s.changes), f"ranges changed at epoch {s.epoch}"))
        parts.append(_change_rows(s.changes))
    if s.phase == "START" and plan.halts:
        parts.append(f'<p class="halts">Cassandra\'s bootstrap halts here: {esc(plan.halts)}</p>')
    parts.append("</details>")
    return "".join(parts)


def plan_html(plan: OperationPlan, *, ops: list[Any], prove_command: str, title: str) -> str:
    outcome = plan.outcome
    p = ["<!doctype html><html><head><meta charset=\"utf-8\">",
         f"<title>tcmcheck plan: {esc(plan.detail)}</title><style>{_CSS}</style></head><body>",
         f"<h1>tcmcheck plan: {esc(plan.detail)} <small>({esc(title)})</small></h1>",
         f'<p>Outcome: <span class="{esc(outcome)}">{esc(outcome)}</span>. OPS.json: <code>{esc(json.dumps(ops))}</code></p>',
         f"<p>CMS: {esc(', '.join(plan.cms_before))} → {esc(', '.join(plan.cms_after))}</p>"]
    if plan.refusal is not None:
        p.append(f'<p class="refused">Refused at {esc(plan.refusal.kind)} (epoch {plan.refusal.epoch}) by the '
                 f'{esc(plan.refusal.by)} layer: {esc(plan.refusal.reason)}</p>')
    if plan.movement:
        p.append("<h2>What moves</h2>")
        for m in plan.movement:
            changed = [c.range for s in plan.steps for c in s.changes
                       if c.keyspace == m.keyspace and c.reads_before != c.reads_after]
            p.append(f"<h3>{esc(m.keyspace)}: {m.ranges_changed} ranges, {100 * m.ring_share:.2f}% of the ring</h3>")
            p.append(ring_strip(changed, f"{m.keyspace}: ranges whose read replicas change"))
            rows = "".join(f"<tr><td>{esc(n)}</td><td>{100 * dict(m.gained).get(n, 0):.2f}%</td>"
                           f"<td>{100 * dict(m.lost).get(n, 0):.2f}%</td></tr>"
                           for n in sorted({*dict(m.gained), *dict(m.lost)}))
            p.append(f"<table><tr><th>node</th><th>gains</th><th>loses</th></tr>{rows}</table>")
    p.append("<h2>Steps</h2>")
    p += [_step(s, plan) for s in plan.steps]
    if plan.transfers:
        p.append("<h2>Streaming (before MID)</h2><table><tr><th>keyspace</th><th>to</th><th>from (tried in order)</th>"
                 "<th>ranges</th><th>share of the ring</th></tr>")
        for t in plan.transfers:
            ranges = ", ".join(f"({r.left}, {r.right}]" for r in t.ranges)
            p.append(f"<tr><td>{esc(t.keyspace)}</td><td>{esc(t.destination)}</td><td>{esc(', '.join(t.sources))}</td>"
                     f"<td><code>{esc(ranges)}</code></td><td>{100 * t.share:.3f}%</td></tr>")
        p.append("</table>")
    p.append(f"<h2>Quorum proof: reads {esc(plan.read_cl.name)}, writes {esc(plan.write_cl.name)}, window "
             f"{plan.window}</h2><table><tr><th>keyspace</th><th>result</th><th>checks</th><th>first counterexample</th></tr>")
    for proof in plan.proofs:
        v = proof.verdict
        first = describe(v.counterexamples[0]) if v.counterexamples else proof.warning
        p.append(f'<tr><td>{esc(proof.keyspace)}</td><td class="{esc(RESULT[v.valid])}">{esc(RESULT[v.valid])}</td>'
                 f"<td>{v.checked}</td><td>{esc(first)}</td></tr>")
    p.append(f"</table><p>Overall: {esc(RESULT[plan.overall.valid])}, as <code>{esc(prove_command)}</code> says.</p>")
    p.append("<h2>Known findings whose conditions hold</h2><ul>")
    p += [f"<li><b>{esc(f.id)}</b> ({esc(f.klass)}): {esc(f.why)}. <i>What to do:</i> {esc(f.advice)}. "
          f"Fix: <code>--fix {esc(f.fix)}</code></li>" for f in plan.findings] or ["<li>none</li>"]
    p.append("</ul><h2>As text</h2><pre>" + esc(plan_text(plan, ops=ops, prove_command=prove_command)) + "</pre>")
    p.append("</body></html>\n")
    return "".join(p)


__all__ = ["plan_html", "ring_strip"]
