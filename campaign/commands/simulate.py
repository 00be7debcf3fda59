"""`tcmcheck simulate SCENARIO.json --seed N [--trace FILE] [--history FILE]`.

Runs one simulation (impl.cluster.run_scenario) to quiescence or the scenario's end time and
prints a JSON summary: seed, trace hash, final epoch, per node its applied epoch and log hash,
counters. `--trace` writes every event, one per line; `--history` the commit requests as
JSONL (DESIGN's history shape). Bad scenario input is BadInput (exit 2).
"""

from __future__ import annotations

import json

import click

from campaign.errors import BadInput
from campaign.formats.scenario import load_scenario
from campaign.outputs import check_distinct, check_output_file, write_output


@click.command(name="simulate")
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True, help="The run's one RNG seed.")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), default=None,
              help="Write every event of the run, one per line.")
@click.option("--history", "history_file", type=click.Path(dir_okay=False), default=None,
              help="Write the commit requests as JSONL (invoke/ok/fail/info).")
@click.option("--logs/--no-logs", default=False, help="Include every node's log in the summary.")
@click.option("--check", is_flag=True, default=False,
              help="Judge the run: log checkers with the spec justifying every rejection, "
                   "linearizability of the commit history, spec replay of the log. Exit 1 if any fails.")
def simulate(scenario: str, seed: int, trace_file: str | None, history_file: str | None,
             logs: bool, check: bool) -> int:
    """Run one deterministic simulation of a TCM cluster."""
    from impl.cluster import Cluster

    check_distinct({"--trace": trace_file, "--history": history_file})
    if trace_file is not None:
        check_output_file(trace_file, "--trace", inputs=(scenario,))
    if history_file is not None:
        check_output_file(history_file, "--history", inputs=(scenario,))
    parsed = load_scenario(scenario)
    try:
        cluster = Cluster(parsed, seed, keep_trace=trace_file is not None)
    except ValueError as e:  # InvalidTopology is a ValueError: the topology is the user's
        raise BadInput(f"{scenario}: {e}") from None
    result = cluster.run()
    if trace_file is not None:
        write_output(trace_file, "".join(result.trace), "--trace")
    if history_file is not None:
        write_output(history_file, "".join(json.dumps(op.to_json(), sort_keys=True) + "\n"
                                           for op in result.history), "--history")
    summary = result.summary()
    if logs:
        summary["logs"] = {n.id: [{"epoch": e.epoch, "entry_id": e.entry_id, "kind": e.kind}
                                  for e in n.entries] for n in result.nodes}
    code = 0
    if check:
        from campaign.judge import judge

        judgement = judge(parsed, result)
        summary["judgement"] = judgement.summary()
        code = 0 if judgement.valid else 1
    click.echo(json.dumps(summary, indent=2, sort_keys=True))
    return code


__all__ = ["simulate", "BadInput"]
