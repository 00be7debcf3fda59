"""Generators of the CEP's concepts — a topology, a replication, the next transformation against
the current metadata, a schema change — shared by the fuzzing campaign and the Hypothesis
strategies (one generator per concept).

Each takes `rng`, anything with the `random.Random` methods of `Draw`: a campaign passes its
run's `random.Random(seed)` (the run stays a pure function of its seed), a strategy passes
`strategies.draws.HypothesisDraw` (each draw a Hypothesis choice, so examples shrink towards the
first option, the lowest number, the first branch). They return the JSON wire shapes of
docs/transformations-json.md and TOPOLOGY.json, so a campaign's case is self-contained; the
strategies parse them into spec values with campaign/formats.

Choices lean towards where bugs live: small token spaces (neighbouring and colliding tokens),
small name pools (racing schema changes), operations left half done and interleaved. Every draw
happens in a fixed order: a change here changes every generated campaign run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from attrs import frozen

from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState
from spec.sequences import OperationKind, Step

T = TypeVar("T")


class Draw(Protocol):
    """The draws a generator makes (a subset of `random.Random`'s methods)."""

    def random(self) -> float: ...

    def randint(self, a: int, b: int) -> int: ...

    def choice(self, seq: Sequence[T]) -> T: ...

    def sample(self, population: Sequence[T], k: int) -> list[T]: ...

    def uniform(self, a: float, b: float) -> float: ...


ABORT_BOOTSTRAP_STATES = ("REGISTERED", "BOOTSTRAPPING", "BOOT_REPLACING")
"""The Unregister that `nodetool abortbootstrap` commits (StorageService.abortBootstrap)."""

DCS = ("dc1", "dc2", "dc3")
RACKS = ("r1", "r2", "r3")
MIN_NODES, MAX_NODES = 3, 12


# ---------------------------------------------------------------- topologies


def topology(rng: Draw, *, min_nodes: int = MIN_NODES, max_nodes: int = MAX_NODES,
             token_span: int | None = None, max_tokens: int = 4, max_keyspaces: int = 2,
             max_dcs: int = 3, max_racks: int = 3) -> dict[str, Any]:
    """3-12 nodes in 1-3 DCs with 1-3 racks, 1-4 tokens each, 1-2 keyspaces (TOPOLOGY.json), by
    default (the campaign's); the first nodes take the DCs in turn, so each DC has a node.

    `token_span`: tokens drawn from [-span, span] (None: the whole Murmur3 range)."""
    n = rng.randint(min_nodes, max_nodes)
    dcs = DCS[:rng.randint(1, max_dcs)]
    racks = RACKS[:rng.randint(1, max_racks)]
    lo, hi = (-(2**63) + 1, 2**63 - 1) if token_span is None else (-token_span, token_span)
    per_node = [rng.randint(1, max_tokens) for _ in range(n)]
    tokens = _distinct(rng, sum(per_node), lo, hi)
    nodes: list[dict[str, Any]] = []
    at = 0
    width = len(str(n))
    for i, k in enumerate(per_node):
        nodes.append({"id": f"n{i + 1:0{width}d}", "dc": dcs[i % len(dcs)] if i < len(dcs) else rng.choice(dcs),
                      "rack": rng.choice(racks), "tokens": sorted(tokens[at:at + k])})
        at += k
    used = sorted({str(nd["dc"]) for nd in nodes})
    keyspaces = [{"name": f"ks{i + 1}", "replication": replication(rng, used)}
                 for i in range(rng.randint(1, max_keyspaces))]
    return {"nodes": nodes, "keyspaces": keyspaces}


def replication(rng: Draw, dcs: Sequence[str], max_rf: int = 3) -> dict[str, Any]:
    """SimpleStrategy or NetworkTopologyStrategy over `dcs`, RF up to `max_rf` (at least one DC
    with a replica)."""
    if rng.random() < 0.5:
        return {"class": "SimpleStrategy", "replication_factor": rng.randint(1, max_rf)}
    factors = {dc: rng.randint(0, max_rf) for dc in dcs}
    if sum(factors.values()) == 0:
        factors[dcs[0]] = 1
    return {"class": "NetworkTopologyStrategy", **factors}


def _distinct(rng: Draw, k: int, lo: int, hi: int) -> list[int]:
    seen: set[int] = set()
    out: list[int] = []
    while len(out) < k:
        t = rng.randint(lo, hi)
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


STEP_KINDS = {
    OperationKind.JOIN: ("START_JOIN", "MID_JOIN", "FINISH_JOIN"),
    OperationKind.LEAVE: ("START_LEAVE", "MID_LEAVE", "FINISH_LEAVE"),
    OperationKind.REMOVE: ("START_LEAVE", "MID_LEAVE", "FINISH_LEAVE"),
    OperationKind.MOVE: ("START_MOVE", "MID_MOVE", "FINISH_MOVE"),
    OperationKind.REPLACE: ("START_REPLACE", "MID_REPLACE", "FINISH_REPLACE"),
}
ALL_STEPS = tuple(sorted({k for steps in STEP_KINDS.values() for k in steps}))
SMALL_TOKENS = 1000
COLUMN_TYPES = ("int", "text", "frozen<ty1>", "list<ty2>")


@frozen(kw_only=True)
class Mix:
    """How `next_transformation` divides its proposals: a draw `r` in [0, 1) picks the branch by
    these cumulative bounds (drive a sequence below `drive`, cancel one below `cancel`, a step out
    of order below `out_of_order`, a schema change below `schema`, a STARTUP from `startup` up,
    an operation in between), and a registration precedes a PREPARE with chance `register`."""

    drive: float = 0.45
    cancel: float = 0.50
    out_of_order: float = 0.58
    schema: float = 0.70
    startup: float = 1.0
    register: float = 0.6
    idle_skips_sequence_branches: bool = False
    """With no sequence in flight, draw `r` above `cancel` (else the drive and cancel share
    goes to steps out of order)."""


CAMPAIGN_MIX = Mix()
"""The refine campaign's mix (a change here changes every generated refine case)."""
EXAMPLE_MIX = Mix(drive=0.35, cancel=0.39, out_of_order=0.45, schema=0.55, startup=0.94, register=0.3,
                  idle_skips_sequence_branches=True)
"""The Hypothesis strategies' mix: an example has a few steps, not 10-40, so fewer are spent on
refusals, operations are prepared sooner, and STARTUP is proposed too."""
CANCEL_MIX = Mix(drive=0.35, cancel=0.58, out_of_order=0.62)
"""The refine campaign's mix when aimed at cancels (`tcmcheck fuzz --focus cancel`): an
operation in flight is cancelled about as often as it is driven."""
NO_CANCEL_MIX = Mix(cancel=CAMPAIGN_MIX.drive)
"""The refine campaign's mix when aimed at operation kinds but not at cancels: none."""
OPERATIONS = ("join", "join", "leave", "remove", "move", "replace", "unregister")
"""The operations a PREPARE (or Unregister) starts, by default (join twice: it needs a
registration first)."""


def steps_of(operations: Sequence[str]) -> tuple[str, ...]:
    """The START/MID/FINISH kinds of the operations named (a focus on replace proposes no
    FINISH_JOIN out of order); every step kind when they name none (unregister alone)."""
    kinds = {"join": OperationKind.JOIN, "leave": OperationKind.LEAVE, "remove": OperationKind.REMOVE,
             "move": OperationKind.MOVE, "replace": OperationKind.REPLACE}
    steps = {k for op in operations if op in kinds for k in STEP_KINDS[kinds[op]]}
    return tuple(sorted(steps)) or ALL_STEPS


def next_transformation(rng: Draw, m: ClusterMetadata, fresh: int, mix: Mix = CAMPAIGN_MIX,
                        operations: Sequence[str] = OPERATIONS) -> tuple[dict[str, Any], int]:
    """A transformation to propose at `m` (wire shape), and the count of fresh nodes registered:
    mostly the next step of an operation in flight, a PREPARE of a new one, a registration or a
    schema change; sometimes a cancel, a step out of order or one for an unknown node, so both
    the accepting and the rejecting paths are exercised (in the proportions of `mix`). A new
    operation is one of `operations` (a campaign's focus narrows them)."""
    sequences = sorted(m.in_progress.sequences(), key=lambda s: str(s.node))
    joined = sorted(str(n.id) for n in m.directory.in_state(NodeState.JOINED))
    registered = sorted(str(n.id) for n in m.directory.in_state(NodeState.REGISTERED))
    dcs = sorted({n.location.dc for n in m.directory}) or ["dc1"]
    racks = sorted({n.location.rack for n in m.directory}) or ["r1"]
    r = rng.random()
    if mix.idle_skips_sequence_branches and not sequences:
        r = mix.cancel + r * (1 - mix.cancel)
    if sequences and r < mix.drive:  # drive an in-flight operation one step on
        seq = rng.choice(sequences)
        kind = STEP_KINDS[seq.kind][int(seq.next_step) - int(Step.START)] if seq.next_step >= Step.START else None
        if kind is not None:
            return {"kind": kind, "node": str(seq.node)}, fresh
    if sequences and r < mix.cancel:
        return {"kind": "CANCEL_SEQUENCE", "node": str(rng.choice(sequences).node)}, fresh
    if r < mix.out_of_order:  # out of order, or an unknown node
        node = rng.choice([*(str(n.id) for n in m.directory), "ghost"])
        return {"kind": rng.choice(steps_of(operations)), "node": node}, fresh
    if r < mix.schema:
        return {"kind": "SCHEMA_CHANGE", "change": schema_change(rng, m.schema.names(), dcs)}, fresh
    if r >= mix.startup:  # an address or version change, refused mid-sequence
        node = rng.choice([*(str(n.id) for n in m.directory), "ghost"])
        change = rng.choice([{"address": "10.0.0.1"}, {"address": node}, {"version": "6.1"}])
        return {"kind": "STARTUP", "node": node, **change}, fresh
    op = rng.choice(operations)
    if op == "unregister":
        # each caller's Unregister: `nodetool cms unregister` for a LEFT node, `nodetool
        # abortbootstrap` for a REGISTERED one (decided on the submitter's view, which may not
        # have seen a PREPARE_JOIN yet: finding unregister-prepared-join)
        gone = sorted(str(n.id) for n in m.directory.in_state(NodeState.REGISTERED, NodeState.LEFT))
        if gone:
            node = rng.choice(gone)
            left = m.directory.state(NodeId(node)) is NodeState.LEFT
            return {"kind": "UNREGISTER", "node": node, "allowed": ["LEFT"] if left else list(ABORT_BOOTSTRAP_STATES)}, fresh
    if op in ("join", "replace") and (not registered or rng.random() < mix.register):
        fresh += 1
        new = {"id": f"x{fresh}", "dc": rng.choice(dcs), "rack": rng.choice(racks)}
        return {"kind": "REGISTER", "node": new}, fresh
    if op == "join" and registered:
        tokens = _distinct(rng, rng.randint(1, 3), -SMALL_TOKENS, SMALL_TOKENS)
        return {"kind": "PREPARE_JOIN", "node": rng.choice(registered), "tokens": sorted(tokens)}, fresh
    if op == "replace" and registered and joined:
        return {"kind": "PREPARE_REPLACE", "node": rng.choice(registered), "replaced": rng.choice(joined)}, fresh
    if op in ("leave", "remove") and joined:
        leave = {"kind": "PREPARE_LEAVE", "node": rng.choice(joined), "remove": op == "remove"}
        if rng.random() < 0.1:  # nodetool --force: PrepareLeave skips its replication check
            leave["force"] = True
        return leave, fresh
    if op == "move" and joined:
        tokens = _distinct(rng, rng.randint(1, 2), -SMALL_TOKENS, SMALL_TOKENS)
        return {"kind": "PREPARE_MOVE", "node": rng.choice(joined), "tokens": sorted(tokens)}, fresh
    return {"kind": "SCHEMA_CHANGE", "change": schema_change(rng, m.schema.names(), dcs)}, fresh


def schema_change(rng: Draw, keyspaces: Sequence[str], dcs: Sequence[str], *, new_keyspace: bool = True
                  ) -> dict[str, Any]:
    """A schema change on one of `keyspaces` (or, with `new_keyspace`, a new one), from small
    pools of table, type and column names, so that changes race: a table using a type another
    change drops (the CEP's race), a keyspace dropped under a table."""
    ks = rng.choice([*keyspaces, "ks_new"] if new_keyspace else list(keyspaces))
    table = rng.choice(["t1", "t2"])
    typ = rng.choice(["ty1", "ty2"])
    col = rng.choice(COLUMN_TYPES)
    return rng.choice([
        {"op": "CREATE_KEYSPACE", "keyspace": ks, "replication": replication(rng, dcs)},
        {"op": "ALTER_KEYSPACE", "keyspace": ks, "replication": replication(rng, dcs)},
        {"op": "DROP_KEYSPACE", "keyspace": ks},
        {"op": "CREATE_TABLE", "keyspace": ks, "table": table, "columns": [["id", "int"], ["v", col]]},
        {"op": "ALTER_TABLE", "keyspace": ks, "table": table, "add": [["w", col]], "drop": []},
        {"op": "DROP_TABLE", "keyspace": ks, "table": table},
        {"op": "CREATE_TYPE", "keyspace": ks, "type": typ, "fields": [["x", "int"]]},
        {"op": "DROP_TYPE", "keyspace": ks, "type": typ},
    ])


__all__ = ["ALL_STEPS", "CAMPAIGN_MIX", "CANCEL_MIX", "NO_CANCEL_MIX", "OPERATIONS", "DCS", "EXAMPLE_MIX", "RACKS", "SMALL_TOKENS", "STEP_KINDS", "Draw", "Mix",
           "next_transformation", "replication", "schema_change", "steps_of", "topology"]
