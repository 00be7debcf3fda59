"""`tcmcheck plan TOPOLOGY.json OPERATION`: a topology change planned step by step.

OPERATION is the operator's words, mapped onto one OPS.json operation:

    decommission ADDR                      {"op": "leave", "node": ADDR}
    removenode ADDR                        {"op": "remove", "node": ADDR}
    replace ADDR --by NEW [--dc --rack]    {"op": "replace", "node": ADDR, "by": {...}} (default: ADDR's DC and rack)
    move ADDR TOKEN                        {"op": "move", "node": ADDR, "tokens": [TOKEN]}
    bootstrap ADDR --dc DC --rack RACK (--tokens LIST | --num-tokens N)
                                           {"op": "join", "node": {...}}: the tokens given (initial_token), or
                                           N allocated as Cassandra's TokenAllocation would (num_tokens;
                                           campaign/operator/token_allocation.py)

Exit 0: Cassandra runs it and every quorum proof holds; 1: Cassandra refuses it, its streaming
halts, or a proof fails; 2: bad input; 3: the prover could not decide. Text on stdout (`--json`
for data); `--html OUT` writes every range of every step to a page.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import click

from campaign.errors import BadInput
from campaign.formats.fields import describe
from campaign.formats.jsonio import in_file, load_json, parsing
from campaign.formats.ops import parse_operations
from campaign.formats.topology import parse_topology
from campaign.operator.plan import Levels, make_plan
from campaign.operator.plan_findings import BARRIER_LEVELS
from campaign.operator.plan_html import plan_html
from campaign.operator.plan_render import plan_json, plan_text
from campaign.operator.token_allocation import DEFAULT_LOCAL_RF, allocate_tokens
from campaign.outputs import check_output_file, write_output
from checkers.quorum.levels import parse_level
from spec.consistency import ConsistencyLevel
from spec.nodes import NodeId
from spec.tokens import MAX_TOKEN, MIN_TOKEN
from spec.topology import Topology

EXIT = {"proved": 0, "refused": 1, "halts": 1, "counterexample": 1, "unknown": 3}
COMMANDS = ("decommission", "removenode", "replace", "move", "bootstrap")
MAX_COUNT = 4096
"""The largest `--num-tokens` (Cassandra's num_tokens is far below it)."""
_INT = re.compile(r"-?[0-9]+")


def _level(option: str, name: str) -> ConsistencyLevel:
    try:
        return parse_level(name)
    except ValueError as e:
        raise BadInput(f"{option}: {e}") from None


def _token(text: str, where: str) -> int:
    text = text.strip()
    if not _INT.fullmatch(text):
        raise BadInput(f"{where}: {describe(text)} is not a token (an integer)")
    if len(text.lstrip("-")) > 20:
        raise BadInput(f"{where}: token {describe(text)} is outside the Murmur3 range [-2**63, 2**63-1]")
    value = int(text)
    if not MIN_TOKEN <= value <= MAX_TOKEN:
        raise BadInput(f"{where}: token {value} is outside the Murmur3 range [-2**63, 2**63-1]")
    return value


def _words(words: tuple[str, ...]) -> tuple[str, str, list[str]]:
    unknown = [w for w in words if w.startswith("--")]
    if unknown:
        raise BadInput(f"no such option: {unknown[0]}")
    if len(words) < 2:
        raise BadInput(f"expected an OPERATION after TOPOLOGY.json: one of {', '.join(COMMANDS)}, then the node "
                       "(e.g. `decommission 10.0.1.12`)")
    command, node, rest = words[0], words[1], list(words[2:])
    if command not in COMMANDS:
        raise BadInput(f"unknown operation {command!r} (one of {', '.join(COMMANDS)})")
    return command, node, rest


def _cms(value: str | None, topo: Topology) -> list[NodeId] | None:
    """`--cms`: members as `nodetool cms describe` prints them ("/10.0.0.1:7000,/10.0.0.2:7000") or
    as plain node ids; a port or the leading slash is dropped when the node ids have none."""
    if value is None:
        return None
    ids = {n.id for n in topo.nodes}
    out = []
    for raw in (v.strip() for v in value.removeprefix("Members:").split(",")):
        if not raw:
            continue
        candidates = [raw, raw.lstrip("/"), re.sub(r":[0-9]+$", "", raw.lstrip("/")).strip("[]")]
        match = next((c for c in candidates if c in ids), None)
        if match is None:
            raise BadInput(f"--cms: {raw!r} is not a node of the topology")
        out.append(NodeId(match))
    if not out:
        raise BadInput("--cms: no member given")
    return out


@click.command(name="plan", context_settings={"ignore_unknown_options": True})
@click.argument("topology", type=click.Path(dir_okay=False))
@click.argument("operation", nargs=-1, type=click.UNPROCESSED)
@click.option("--by", default=None, help="replace: the new node's address.")
@click.option("--dc", default=None, help="bootstrap/replace: the new node's datacenter.")
@click.option("--rack", default=None, help="bootstrap/replace: the new node's rack.")
@click.option("--tokens", default=None, metavar="LIST",
              help="bootstrap: the new node's tokens, comma-separated (cassandra.yaml's initial_token).")
@click.option("--num-tokens", type=int, default=None, metavar="N",
              help="bootstrap: allocate N tokens as Cassandra would (cassandra.yaml's num_tokens).")
@click.option("--allocate-for-rf", type=int, default=DEFAULT_LOCAL_RF, show_default=True,
              help="bootstrap N tokens: allocate_tokens_for_local_replication_factor.")
@click.option("--allocate-for-keyspace", default=None,
              help="bootstrap N tokens: allocate_tokens_for_keyspace (overrides --allocate-for-rf).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="bootstrap N tokens into an empty DC/rack: the seed of the random first token.")
@click.option("--cms", "cms", default=None, metavar="LIST",
              help="The CMS members (`nodetool cms describe`'s Members); default: the first node by id.")
@click.option("--read-cl", default="QUORUM", show_default=True, help="Consistency level of reads.")
@click.option("--write-cl", default="QUORUM", show_default=True, help="Consistency level of writes.")
@click.option("--window", type=int, default=1, show_default=True, help="Prove epochs at most this many apart.")
@click.option("--local-dc", default=None, help="Coordinators' DC for LOCAL_* levels (default: every DC).")
@click.option("--read-dc", default=None, help="The read coordinator's DC (default: the local DC option).")
@click.option("--write-dc", default=None, help="The write coordinator's DC (default: the local DC option).")
@click.option("--progress-barrier-min-cl", default="EACH_QUORUM", show_default=True,
              help="cassandra.yaml's progress_barrier_min_consistency_level.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None,
              help="Also write the plan, every range of every step, as an HTML page.")
def plan(topology: str, operation: tuple[str, ...], by: str | None, dc: str | None, rack: str | None,
         tokens: str | None, num_tokens: int | None, allocate_for_rf: int, allocate_for_keyspace: str | None, seed: int, cms: str | None,
         read_cl: str, write_cl: str, window: int, local_dc: str | None, read_dc: str | None, write_dc: str | None,
         progress_barrier_min_cl: str, as_json: bool, html_out: str | None) -> int:
    """Plan a decommission, removenode, replace, move or bootstrap step by step."""
    command, node, rest = _words(operation)
    levels = Levels(read_cl=_level("--read-cl", read_cl), write_cl=_level("--write-cl", write_cl), window=window,
                    read_dc=read_dc or local_dc, write_dc=write_dc or local_dc,
                    barrier_min_cl=_level("--progress-barrier-min-cl", progress_barrier_min_cl))
    if levels.barrier_min_cl not in BARRIER_LEVELS:
        raise BadInput(f"--progress-barrier-min-cl: one of {', '.join(c.name for c in BARRIER_LEVELS)}")
    if window < 0:
        raise BadInput(f"--window must not be negative, got {window}")
    if html_out is not None:
        check_output_file(html_out, "--html", inputs=(topology,))
    doc = load_json(topology, "topology")
    with parsing(topology):
        try:
            topo = parse_topology(doc, topology)
        except BadInput as e:
            raise in_file(e, topology) from None
    dcs = {n.location.dc for n in topo.nodes}
    for option, value in (("--local-dc", local_dc), ("--read-dc", read_dc), ("--write-dc", write_dc)):
        if value is not None and value not in dcs:
            raise BadInput(f"{option}: unknown datacenter {value!r} (known: {', '.join(sorted(dcs))})")
    op_doc, detail, refused = _operation(command, node, rest, topo, by=by, dc=dc, rack=rack, tokens=tokens,
                                         num_tokens=num_tokens, allocate_for_rf=allocate_for_rf, keyspace=allocate_for_keyspace, seed=seed)
    ops = [op_doc]
    parsed = parse_operations(ops, "operation", topo)[0]
    result = make_plan(topo, doc, parsed, command=command, node=node, detail=detail, cms=_cms(cms, topo),
                       levels=levels, refused_before=refused)
    prove = _prove_command(topology, ops, levels, cms)
    if as_json:
        click.echo(json.dumps(plan_json(result, ops=ops, prove_command=prove)))
    else:
        click.echo(plan_text(result, ops=ops, prove_command=prove), nl=False)
    if html_out is not None:
        write_output(html_out, plan_html(result, ops=ops, prove_command=prove, title=Path(topology).name), "--html")
    return EXIT[result.outcome]


def _operation(command: str, node: str, rest: list[str], topo: Topology, *, by: str | None, dc: str | None,
               rack: str | None, tokens: str | None, num_tokens: int | None, allocate_for_rf: int,
               keyspace: str | None,
               seed: int) -> tuple[dict[str, Any], str, str | None]:
    """(the OPS.json operation, how it was read, a refusal found before the spec runs)."""
    allowed = {"replace": {"by", "dc", "rack"}, "bootstrap": {"dc", "rack", "tokens", "num-tokens"}}.get(command, set())
    given = {k for k, v in (("by", by), ("dc", dc), ("rack", rack), ("tokens", tokens), ("num-tokens", num_tokens))
             if v is not None}
    if given - allowed:
        raise BadInput(f"{command}: --{sorted(given - allowed)[0]} does not apply (only to "
                       f"{'replace' if 'by' in given - allowed else 'bootstrap and replace'})")
    if command == "move":
        if len(rest) != 1:
            raise BadInput("move: expected `move ADDR TOKEN` (one token: StorageService.move(String newToken))")
        return {"op": "move", "node": node, "tokens": [_token(rest[0], "move")]}, f"move {node} to {rest[0]}", None
    if rest:
        raise BadInput(f"{command}: unexpected {rest[0]!r}")
    if command == "decommission":
        return {"op": "leave", "node": node}, f"decommission {node}", None
    if command == "removenode":
        return {"op": "remove", "node": node}, f"removenode {node}", None
    if command == "replace":
        if by is None:
            raise BadInput("replace: --by NEW (the replacement's address) is required")
        old = next((n for n in topo.nodes if n.id == node), None)
        if old is None:
            raise BadInput(f"replace: unknown node {node!r}")
        where = {"id": by, "dc": dc or old.location.dc, "rack": rack or old.location.rack}
        return ({"op": "replace", "node": node, "by": where},
                f"replace {node} by {by} in {where['dc']}/{where['rack']}", None)
    if dc is None or rack is None or (tokens is None) == (num_tokens is None):
        raise BadInput("bootstrap: --dc, --rack and one of --tokens LIST or --num-tokens N are required")
    node_doc: dict[str, Any] = {"id": node, "dc": dc, "rack": rack}
    if num_tokens is not None:
        if not 1 <= num_tokens <= MAX_COUNT:
            raise BadInput(f"--num-tokens: expected 1 to {MAX_COUNT}, got {num_tokens}")
        params = None
        if keyspace is not None:
            params = dict(topo.keyspaces).get(keyspace)
            if params is None:
                raise BadInput(f"--allocate-for-keyspace: unknown keyspace {keyspace!r}")
        if allocate_for_rf < 1:
            raise BadInput(f"--allocate-for-rf must be at least 1, got {allocate_for_rf}")
        got = allocate_tokens(topo.nodes, node, dc, rack, num_tokens, params=params, local_rf=allocate_for_rf,
                              seed=seed)
        setting = (f"allocate_tokens_for_keyspace: {keyspace}" if keyspace else
                   f"allocate_tokens_for_local_replication_factor: {allocate_for_rf}")
        if isinstance(got, str):
            node_doc["tokens"] = [MIN_TOKEN + 1]  # a placeholder: the spec does not run a refused join
            return {"op": "join", "node": node_doc}, f"bootstrap {node} in {dc}/{rack}, {num_tokens} tokens ({setting})", got
        node_doc["tokens"] = list(got[0])
        return ({"op": "join", "node": node_doc},
                f"bootstrap {node} in {dc}/{rack} with {num_tokens} tokens chosen by {got[1]} ({setting})", None)
    assert tokens is not None
    parts = [p for p in tokens.split(",") if p.strip()]
    if not parts:
        raise BadInput("--tokens: expected comma-separated tokens")
    node_doc["tokens"] = [_token(p, "--tokens") for p in parts]
    return {"op": "join", "node": node_doc}, f"bootstrap {node} in {dc}/{rack} at {len(parts)} given token(s)", None


def _prove_command(topology: str, ops: list[Any], levels: Levels, cms: str | None) -> str:
    words = ["tcmcheck", "prove", shlex.quote(topology), "--ops", "OPS.json", "--read-cl", levels.read_cl.name,
             "--write-cl", levels.write_cl.name, "--window", str(levels.window)]
    for option, value in (("--read-dc", levels.read_dc), ("--write-dc", levels.write_dc)):
        if value is not None:
            words += [option, shlex.quote(value)]
    note = " (the CMS as --cms gives it: prove starts from the first node by id)" if cms is not None else ""
    return " ".join(words) + note
