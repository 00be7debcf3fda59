"""`tcmcheck simulate SCENARIO.json --seed N [--trace FILE] [--history FILE] [--mutant NAME]`.

Runs one simulation (impl.cluster.run_scenario) to quiescence or the scenario's end time and
prints a JSON summary: seed, trace hash, final epoch, per node its applied epoch and log hash,
counters. `--trace` writes every event, one per line; `--history` the client reads and writes
when the scenario has clients (else the commit requests), `--commit-history` the commit
requests, as JSONL (DESIGN's history shape); `in_progress` names each operation the run ended in
the middle of, where it stopped and what it waited on (also on stderr); `--check` adds the
judgement and, when it fails, its evidence. Bad scenario input is BadInput (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from attrs import evolve

from campaign.errors import BadInput
from campaign.formats.scenario import load_scenario
from campaign.judge.checks.liveness import stuck_evidence
from campaign.judge.judgement import judge
from campaign.outputs import check_distinct, check_output_file, write_output
from campaign.run import variants
from impl.bugs import check_names
from impl.cluster import Cluster
from observed.calls import ClientCall, CommitCall
from observed.frozen import thaw


@click.command(name="simulate")
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True, help="The run's one RNG seed.")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), default=None,
              help="Write every event of the run, one per line.")
@click.option("--history", "history_file", type=click.Path(dir_okay=False), default=None,
              help="Write the client reads and writes as JSONL (the commit requests when the "
                   "scenario has no clients).")
@click.option("--commit-history", "commit_history_file", type=click.Path(dir_okay=False),
              default=None, help="Write the commit requests as JSONL (invoke/ok/fail/info).")
@click.option("--logs/--no-logs", default=False, help="Include every node's log in the summary.")
@click.option("--check", is_flag=True, default=False,
              help="Judge the run: log checkers with the spec justifying every rejection, "
                   "linearizability of the commit history and of the client reads and writes (kv), "
                   "spec replay of the log. Exit 1 if any fails.")
@click.option("--mutant", "mutants", multiple=True,
              help="Plant a known-bug switch (impl/bugs.py; repeatable), on top of any the "
                   "scenario's \"mutants\" names.")
def simulate(scenario: str, seed: int, trace_file: str | None, history_file: str | None,
             commit_history_file: str | None, logs: bool, check: bool, mutants: tuple[str, ...]) -> int:
    """Run one deterministic simulation of a TCM cluster."""
    outputs: dict[str, str | Path | None] = {
        "--trace": trace_file, "--history": history_file, "--commit-history": commit_history_file}
    check_distinct(outputs)
    for option, path in outputs.items():
        if path is not None:
            check_output_file(path, option, inputs=(scenario,))
    try:
        planted = check_names(mutants)
    except ValueError as e:
        raise BadInput(f"--mutant: {e}") from None
    parsed = load_scenario(scenario)
    parsed = evolve(parsed, settings=evolve(parsed.settings, mutants=parsed.settings.mutants | planted))
    parsed, engine = variants.planted(parsed, None)
    try:
        cluster = Cluster(parsed, seed, engine=engine, keep_trace=trace_file is not None)
    except ValueError as e:  # InvalidTopology is a ValueError: the topology is the user's
        raise BadInput(f"{scenario}: {e}") from None
    result = cluster.run()
    if trace_file is not None:
        write_output(trace_file, "".join(result.trace), "--trace")
    client_calls: tuple[ClientCall | CommitCall, ...] = result.clients if parsed.clients else result.commits
    for path, calls, option in ((history_file, client_calls, "--history"),
                                (commit_history_file, result.commits, "--commit-history")):
        if path is not None:
            write_output(path, "".join(json.dumps(doc, sort_keys=True) + "\n" for doc in history_docs(calls)), option)
    summary = result.summary()
    if logs:
        summary["logs"] = {n.id: [{"epoch": e.epoch, "entry_id": e.entry_id, "kind": e.kind}
                                  for e in n.entries] for n in result.nodes}
    # an operation the run ended in the middle of: which, where it stopped, what it waited on
    # (issue 23: "A stuck replace in a hand-written scenario ended with no operation in the summary")
    stuck = stuck_evidence(result).stuck if result.unfinished else ()
    summary["in_progress"] = [s.to_json() for s in stuck]
    lines = [f"in progress at the end: {s.line()}" for s in stuck]
    code = 0
    if check:
        judgement = judge(parsed, result)
        summary["judgement"] = judgement.summary()
        code = 0 if judgement.valid else 1
        evidence = judgement.evidence()
        if evidence is not None:  # as a failure file carries it (docs/fuzz.md); its lines name the stuck ones
            summary["judgement"]["evidence"] = evidence.to_json()
            lines = evidence.lines() + ([] if evidence.stuck else lines)
    click.echo(json.dumps(summary, indent=2, sort_keys=True))
    for line in lines:  # for a person, beside the JSON on stdout (as replay prints its evidence)
        click.echo(line, err=True)
    return code


def history_docs(calls: tuple[ClientCall | CommitCall, ...]) -> list[dict[str, object]]:
    """The calls' events in DESIGN's JSONL history shape, in the order the run recorded them,
    each with the node that coordinated or submitted it (`node`)."""
    events = sorted(((i, op, c) for c in calls for i, op in c.events()), key=lambda e: e[0])
    out: list[dict[str, object]] = []
    for _, op, c in events:
        doc: dict[str, object] = {"process": op.process, "type": op.type, "f": op.f, "value": thaw(op.value),
                                  "time": op.time,
                                  "node": c.coordinator if isinstance(c, ClientCall) else c.node}
        if op.key is not None:
            doc["key"] = op.key
        out.append(doc)
    return out


__all__ = ["BadInput", "history_docs", "simulate"]
