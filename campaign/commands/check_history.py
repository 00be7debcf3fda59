"""`tcmcheck check-history FILE`: is a recorded history linearizable?

Parses the file (`campaign/formats/history*.py`), calls the WGL checker once, and maps its
verdict to an exit status: 0 linearizable, 1 not (the smallest failing sub-history is printed,
in the input's format), 2 bad input, 3 unknown (the time or memory limit ran out). `--output`
prints the verdict as text, JSON, or Jepsen's EDN result map (campaign/formats/jepsen_result.py).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from campaign.commands.backend import backend_options, spark_asked
from campaign.engines.spark_history import (
    check_history_spark,  # optional dependency: pyspark
)
from campaign.errors import BadInput
from campaign.formats.history import FORMATS, ParsedHistory, infer_model, read_history
from campaign.formats.history_out import LABELS, Source, value_writer
from campaign.formats.jepsen_result import edn_result
from campaign.formats.jsonio import in_file
from campaign.outputs import check_output_file, write_output
from checkers.linearizability.explain import explain
from checkers.linearizability.frozen import thaw
from checkers.linearizability.history import HistoryError, Op, Operation, pair
from checkers.linearizability.html import render_html
from checkers.linearizability.model import MODELS, SequentialModel, with_initial
from checkers.linearizability.verdict import LinearizabilityEvidence, Verdict
from checkers.linearizability.wgl import DEFAULT_MAX_CACHE, check_operations

EXIT = {True: 0, False: 1, "unknown": 3}
OUTPUTS = ("text", "json", "edn")


@click.command(name="check-history")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", "model_name", type=click.Choice(sorted(MODELS)), default=None,
              help="Sequential model (default: implied by the format or the ops' f).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="History format (default: detected from the file).")
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds before giving up with 'unknown' (exit 3).")
@click.option("--max-states", type=int, default=DEFAULT_MAX_CACHE, show_default=True,
              help="Memo entries before giving up with 'unknown' (bounds memory).")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a self-contained HTML timeline of the history and the verdict.")
@click.option("--output", "output", type=click.Choice(OUTPUTS), default=None,
              help="text (default): the verdict explained and the failing sub-history in the "
                   "input's format; json: one JSON object; edn: Jepsen's result map {:valid? ...}.")
@click.option("--json", "as_json", is_flag=True, help="The same as --output json.")
@backend_options("spark: check each key's part of the history as a Spark task (campaign/engines/spark_history.py).")
def check_history(
    file: Path,
    model_name: str | None,
    fmt: str | None,
    timeout: float,
    max_states: int,
    html_out: Path | None,
    output: str | None,
    as_json: bool,
    engine: str = "local",
    master: str | None = None,
) -> int:
    """Check that the history in FILE is linearizable (Jepsen-style, WGL search)."""
    spark = spark_asked(engine, master)
    if as_json and output not in (None, "json"):
        raise BadInput(f"--json: not with --output {output}")
    output = "json" if as_json else (output or "text")
    if not math.isfinite(timeout) or timeout <= 0:
        raise BadInput(f"--timeout: expected a positive number of seconds, got {timeout}")
    if max_states < 1:
        raise BadInput(f"--max-states: expected at least 1, got {max_states}")
    if html_out is not None:
        check_output_file(html_out, "--html", inputs=(file,))
    parsed = read_history(file, fmt)
    if model_name is None:
        try:
            model_name = infer_model(parsed)
        except BadInput as e:
            raise in_file(e, file) from None
    model = MODELS[model_name]
    if parsed.has_initial:
        if parsed.model is not None and model.name != parsed.model:
            raise BadInput(f"--model {model.name}: {file} is a {parsed.format} history, "
                           f"which only the {parsed.model} model reads")
        model = with_initial(model, parsed.initial)
    try:
        operations = load_operations(parsed, model)
    except BadInput as e:
        raise in_file(e, file) from None
    if spark:
        verdict = check_history_spark(
            model_name, parsed.has_initial, parsed.initial, operations,
            timeout=timeout, max_states=max_states, master=master,
        )
    else:
        verdict = check_operations(
            model, operations, deadline=time.monotonic() + timeout, max_cache=max_states
        )
    if html_out is not None:
        page = render_html(verdict, model, title=file.name, show_value=value_writer(parsed.format))
        write_output(html_out, page, "--html")
    if output == "json":
        click.echo(json.dumps(verdict_json(verdict, parsed, model), sort_keys=True))
    elif output == "edn":
        click.echo(edn_result(verdict, Source(parsed), model))
    else:
        lines = parsed.lines
        click.echo(explain(verdict, model, locate=lambda i: f"line {lines[i]}"))
        if verdict.valid is False and verdict.evidence.window:
            click.echo(f"Failing sub-history ({LABELS[parsed.format]}):")
            for line in Source(parsed).sub_history(verdict.evidence.window):
                click.echo(line)
    return EXIT[verdict.valid]


def load_operations(parsed: ParsedHistory, model: SequentialModel) -> tuple[Operation, ...]:
    """Pair the events and check every op is one the model can step; `BadInput` names the line."""
    lines = parsed.lines
    for op, line in zip(parsed.ops, lines, strict=True):
        if op.f not in model.functions:
            raise BadInput(
                f"line {line}: f {op.f!r} is not an operation of the {model.name} model "
                f"(one of {', '.join(sorted(model.functions))}; see --model)"
            )
    try:
        operations = pair(parsed.ops)
    except HistoryError as e:
        raise BadInput(f"line {lines[e.index]}: {e.message}") from None
    for o in operations:
        problem = model.malformed(o)
        if problem is not None:
            at = lines[o.ret] if problem.at == "return" and o.ret is not None else lines[o.call]
            raise BadInput(f"line {at}: {problem.reason}")
    # append concatenates strings: a key that is appended to holds strings only (writing an
    # integer there and appending to it has no meaning, and the model cannot step it)
    appended = {o.key for o in operations if o.f == "append"}
    for o in operations:
        if o.key in appended and o.f in ("put", "write", "cas"):
            new = o.input[1] if o.f == "cas" else o.input
            if new is not None and not isinstance(new, str):
                raise BadInput(f"line {lines[o.call]}: key {thaw(o.key)!r} is appended to, so its values are "
                               f"strings; {o.f} of {thaw(new)!r}")
    return operations


def op_json(op: Op) -> dict[str, Any]:
    out: dict[str, Any] = {"process": op.process, "type": op.type, "f": op.f}
    if op.key is not None:
        out["key"] = thaw(op.key)
    out["value"] = thaw(op.value)
    if op.time is not None:
        out["time"] = op.time
    return out


def _operation_json(o: Operation | None, lines: Sequence[int] = ()) -> dict[str, Any] | None:
    if o is None:
        return None
    where: dict[str, Any] = {}
    if lines:
        where = {"call_line": lines[o.call], "return_line": None if o.ret is None else lines[o.ret]}
    return where | {
        "id": o.id,
        "process": o.process,
        "f": o.f,
        "key": thaw(o.key),
        "input": thaw(o.input),
        "output": thaw(o.output),
        "status": o.status,
    }


def _ops_json(ops: Sequence[Operation], lines: Sequence[int]) -> list[dict[str, Any] | None]:
    return [_operation_json(o, lines) for o in ops]


def verdict_json(verdict: Verdict, parsed: ParsedHistory, model: SequentialModel) -> dict[str, Any]:
    ev = verdict.evidence
    out: dict[str, Any] = {
        "valid": verdict.valid,
        "cause": verdict.cause,
        "model": model.name,
        "format": parsed.format,
        "operations": sum(len(p.operations) for p in ev.partitions),
        "partitions": [
            {"key": thaw(p.key), "valid": p.valid, "operations": len(p.operations)}
            for p in ev.partitions
        ],
    }
    if verdict.valid is False:
        out.update(
            key=thaw(ev.key),
            failing_op=_operation_json(ev.failing_op, parsed.lines),
            previous_ok=_operation_json(ev.previous_ok, parsed.lines),
            longest_prefix=_ops_json(ev.longest_prefix, parsed.lines),
            window=[op_json(op) for op in ev.window_history],
            window_minimal=ev.window_minimal,
            refutation=_refutation_json(ev, parsed.lines),
        )
    return out


def _refutation_json(ev: LinearizabilityEvidence, lines: Sequence[int]) -> dict[str, Any] | None:
    """How `refute` showed the violation without finishing the search (null: the search did):
    the op no order can reach, the op that spoiled the state it needs, and the ops that could
    have repaired that state but returned before the spoiler was called."""
    part = next((p for p in ev.partitions if p.valid is False and p.refutation), None)
    if part is None:
        return None
    by_id = {o.id: o for o in part.operations}
    failing, spoiler, *early = (by_id[i] for i in part.refutation)
    return {
        "failing_op": _operation_json(failing, lines),
        "spoiled_by": _operation_json(spoiler, lines),
        "repaired_too_early": _ops_json(early, lines),
    }
