"""`tcmcheck prove TOPOLOGY.json [--ops OPS.json]`: Z3 proof of read/write quorum intersection.

Runs the spec over the operations, turns its states into the prover's `History`, calls one
prover (`checkers.quorum.z3prover.prove_history`, or `barrier.prove_barrier` with `--barrier`)
and maps the verdict: exit 0 proved, 1 counterexample, 2 bad input, 3 unknown (solver gave up).
JSON on stdout when it is not a terminal (or with `--json`); a rich summary otherwise.
"""

from __future__ import annotations

import json
import sys

import click
from rich.console import Console
from rich.table import Table

from campaign.commands.common import check_replicas, load_inputs, rejection
from campaign.commands.options import parse_fixes
from campaign.errors import BadInput
from checkers.quorum.availability import unavailable_ranges, vacuity_warning
from checkers.quorum.barrier import prove_barrier
from checkers.quorum.from_spec import history_from_run, history_from_states
from checkers.quorum.levels import parse_level
from checkers.quorum.model import History
from checkers.quorum.render import describe, describe_cause, verdict_json
from checkers.quorum.verdict import UNSAFE_BY_DESIGN, Counterexample, Verdict
from checkers.quorum.z3prover import prove_history
from spec.consistency import ConsistencyLevel
from spec.fixes import BARRIER_WAITS_FOR_REPLACED, TWO_EPOCH_CANCEL
from spec.fixes import on as fix_on
from spec.operations import run_operations

EXIT = {True: 0, False: 1, "unknown": 3}
SHOWN = 20  # counterexamples listed in the terminal summary


def _level(option: str, name: str) -> ConsistencyLevel:
    try:
        return parse_level(name)
    except ValueError as e:
        raise BadInput(f"{option}: {e}") from None


def _dc(option: str, dc: str | None, history: History) -> str | None:
    if dc is not None and dc not in history.dc_names():
        raise BadInput(f"{option}: unknown datacenter {dc!r} (known: {', '.join(history.dc_names())})")
    return dc


@click.command(name="prove")
@click.argument("topology", type=click.Path(dir_okay=False))
@click.option("--ops", "ops_path", type=click.Path(dir_okay=False), help="OPS.json: operations to run in order.")
@click.option("--read-cl", default="QUORUM", show_default=True, help="Consistency level of reads.")
@click.option("--write-cl", default="QUORUM", show_default=True, help="Consistency level of writes.")
@click.option("--window", type=int, default=1, show_default=True,
              help="Check every pair of epochs at most this many apart (1: consecutive).")
@click.option("--local-dc", default=None, help="Coordinators' DC for LOCAL_* levels (default: try every DC).")
@click.option("--read-dc", default=None, help="Read coordinator's DC (default: --local-dc).")
@click.option("--write-dc", default=None, help="Write coordinator's DC (default: --local-dc).")
@click.option("--barrier", is_flag=True,
              help="Prove the progress-barrier theorem: a coordinator lagging any number of epochs "
                   "cannot complete a request that misses a quorum taken at the newest epoch.")
@click.option("--barrier-cl", default="EACH_QUORUM", show_default=True,
              help="Consistency level of the progress barrier (with --barrier).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON even on a terminal.")
@click.option("--fix", "fix_names", multiple=True,
              help="Run with a finding's proposed fix (repeatable; see docs/findings.md).")
def prove(topology: str, ops_path: str | None, read_cl: str, write_cl: str, window: int,
          local_dc: str | None, read_dc: str | None, write_dc: str | None, barrier: bool,
          barrier_cl: str, as_json: bool, fix_names: tuple[str, ...] = ()) -> int:
    """Prove that read and write quorums intersect across epochs (Z3)."""
    reads, writes = _level("--read-cl", read_cl), _level("--write-cl", write_cl)
    barrier_level = _level("--barrier-cl", barrier_cl)
    if window < 0:
        raise BadInput(f"--window must not be negative, got {window}")

    fixes = parse_fixes(fix_names)
    topo, ops = load_inputs(topology, ops_path)
    run = run_operations(topo, ops, fixes)
    check_replicas(run, ops_path)
    rejected = rejection(run, ops_path)
    if rejected is not None:
        raise rejected
    # The barrier mode models Cassandra's ProgressBarrier step by step (from_spec.step_barriers).
    history = (history_from_run(run.states, run.transformations,
                                waits_for_replaced=fix_on(fixes, BARRIER_WAITS_FOR_REPLACED),
                                two_epoch_cancel=fix_on(fixes, TWO_EPOCH_CANCEL))
               if barrier else history_from_states(run.states))
    local = _dc("--local-dc", local_dc, history)
    rdc = _dc("--read-dc", read_dc, history) or local
    wdc = _dc("--write-dc", write_dc, history) or local
    if barrier:
        verdict = prove_barrier(history, read_cl=reads, write_cl=writes, barrier_cl=barrier_level,
                                read_dc=rdc, write_dc=wdc, window=window)
    else:
        verdict = prove_history(history, read_cl=reads, write_cl=writes, window=window,
                                read_dc=rdc, write_dc=wdc)
    # why: a level that needs more replicas than a range has is unavailable there, so
    # intersection holds trivially; say so rather than let "proved" stand alone.
    warning = (vacuity_warning(unavailable_ranges(history, read_cl=reads, write_cl=writes,
                                                  read_dc=rdc, write_dc=wdc), history, reads, writes)
               if verdict.valid is True else "")
    if as_json or not sys.stdout.isatty():
        out = verdict_json(verdict)
        if warning:
            out["warnings"] = [warning]
        click.echo(json.dumps(out))
        if verdict.cause == UNSAFE_BY_DESIGN:
            click.echo(f"tcmcheck: note: {describe_cause(verdict)}", err=True)
        if warning:
            click.echo(f"tcmcheck: warning: {warning}", err=True)
    else:
        _summary(verdict, reads, writes, window, barrier, barrier_level)
        if warning:
            Console().print("[bold yellow]warning[/] — ", end="")
            Console().print(warning, markup=False, highlight=False)
    return EXIT[verdict.valid]


def _summary(v: Verdict, reads: ConsistencyLevel, writes: ConsistencyLevel, window: int,
             barrier: bool, barrier_level: ConsistencyLevel) -> None:

    console = Console()
    what = (f"progress barrier at {barrier_level.name}" if barrier else f"window {window}")
    head = f"reads {reads.name}, writes {writes.name}, {what}: {v.checked} checks, {v.solver_calls} solver calls"
    if v.valid is True:
        console.print(f"[bold green]proved[/] — {head}")
        return
    colour = "red" if v.valid is False else "yellow"
    console.print(f"[bold {colour}]{'counterexample' if v.valid is False else 'unknown'}[/] — {head}")
    console.print(describe_cause(v))
    if not v.counterexamples:
        return
    shown = v.counterexamples[:SHOWN]
    notes = [_note(c) for c in shown]
    table = Table(show_lines=False)
    columns = ["keyspace", "range", "read epoch", "read quorum", "write epoch", "write quorum"]
    for col in columns + (["note"] if any(notes) else []):
        table.add_column(col)
    for c, note in zip(shown, notes, strict=True):
        row = [c.keyspace, f"({c.range.left}, {c.range.right}]", str(c.read_epoch),
               "{" + ", ".join(c.read_quorum) + "}", str(c.write_epoch), "{" + ", ".join(c.write_quorum) + "}"]
        table.add_row(*row, *([note] if any(notes) else []))
    console.print(table)
    if len(v.counterexamples) > SHOWN:
        console.print(f"… and {len(v.counterexamples) - SHOWN} more (use --json for all)")
    console.print(describe(v.counterexamples[0]))


def _note(c: Counterexample) -> str:
    """Why the pair matters: same epoch (by design), the quorum replicas' knowledge, the DCs."""
    parts = []
    if c.by_design:
        parts.append("same epoch (by design)")
    if c.knowledge:
        members = set(c.read_quorum) | set(c.write_quorum)
        parts.append("seen: " + " ".join(f"{n}@{e}" for n, e in c.knowledge if n in members))
    if c.read_dc or c.write_dc:
        parts.append(f"reads@{c.read_dc} writes@{c.write_dc}")
    return "; ".join(parts)
