"""What happens in a scenario (docs/simulate.md), each list parsed on its own: node-driven
operations and the operator's cancels, scripted submissions, schema workloads, client workloads,
clock skew, and the faults (network, partitions, crashes). Every problem is one-line BadInput."""

from __future__ import annotations

from typing import Any

from campaign.errors import BadInput
from campaign.formats import fields
from campaign.formats import scenario_fields as F
from campaign.formats.scenario_fields import Nodes
from campaign.formats.transformations import parse_transformation
from impl.bus import Latency, NetworkFaults
from impl.entry import canonical_json
from impl.scenario import (
    Cancel,
    ClientWorkload,
    Crash,
    Operation,
    Partition,
    Repair,
    Submission,
    Workload,
)

OPS = ("join", "leave", "move", "replace", "remove", "assassinate")
CANCEL_HOW = ("jmx", "abortbootstrap")
SEQUENCE_KINDS = ("JOIN", "LEAVE", "REMOVE", "MOVE", "REPLACE")


def operations(obj: dict[str, Any], nodes: Nodes) -> tuple[Operation, ...]:
    """Node-driven operations: a join or replace names a new node (which later fields may name)."""
    operations = []
    for i, o in enumerate(F.lst(obj.get("operations", []), "operations")):
        where = f"operations[{i}]"
        o = F.obj(o, where)
        F.keys(o, {"op", "node", "at_ms", "target", "tokens", "dc", "rack"}, where)
        op = o.get("op")
        if op not in OPS:
            raise BadInput(f"{where}.op: expected one of {', '.join(OPS)}, got {op!r}")
        name = o.get("node")
        if not isinstance(name, str) or not name:
            raise BadInput(f"{where}.node: expected a node id")
        location = None
        target = None
        if op in ("join", "replace"):
            if name in nodes.topology_ids:
                raise BadInput(f"{where}.node: {name} is already in the topology (a {op} needs a new node)")
            dc = o.get("dc", "dc1")
            if dc not in nodes.dcs:
                raise BadInput(f"{where}.dc: unknown datacenter {dc!r}")
            location = (str(dc), str(o.get("rack", "r1")))
            nodes.ids.add(name)
        else:
            nodes.node(name, f"{where}.node")
        if op in ("replace", "remove", "assassinate"):
            target = nodes.node(o.get("target"), f"{where}.target")
        elif "target" in o:
            raise BadInput(f"{where}.target: only replace, remove and assassinate take a target")
        tokens: tuple[int, ...] = ()
        if op in ("join", "move"):
            raw = F.lst(o.get("tokens"), f"{where}.tokens")
            if not raw or not all(isinstance(t, int) and not isinstance(t, bool)
                                  and -(2**63) < t < 2**63 for t in raw):
                raise BadInput(f"{where}.tokens: expected a non-empty list of Murmur3 tokens")
            tokens = tuple(sorted(raw))
        operations.append(Operation(op=op, node=name, at=F.ms(o.get("at_ms", 0), f"{where}.at_ms"),
                                    target=target, tokens=tokens, location=location))
    return tuple(operations)


def cancels(obj: dict[str, Any], nodes: Nodes) -> tuple[Cancel, ...]:
    """The operator's cancels of an operation in flight."""
    cancels = []
    for i, c in enumerate(F.lst(obj.get("cancels", []), "cancels")):
        where = f"cancels[{i}]"
        c = F.obj(c, where)
        F.keys(c, {"node", "at_ms", "how", "by", "kind"}, where)
        how = c.get("how", "jmx")
        if how not in CANCEL_HOW:
            raise BadInput(f"{where}.how: expected one of {', '.join(CANCEL_HOW)}, got {how!r}")
        kind = c.get("kind")
        if kind is not None and (how != "jmx" or kind not in SEQUENCE_KINDS):
            raise BadInput(f"{where}.kind: a jmx cancel's expected sequence kind, one of {', '.join(SEQUENCE_KINDS)}")
        by = nodes.node(c["by"], f"{where}.by") if "by" in c else None
        cancels.append(Cancel(node=nodes.node(c.get("node"), where), at=F.ms(c.get("at_ms", 0), f"{where}.at_ms"),
                              how=str(how), by=by, kind=kind))

    return tuple(cancels)


def repairs(obj: dict[str, Any], nodes: Nodes) -> tuple[Repair, ...]:
    """Anti-entropy repairs: `{"at_ms", "keyspace", "node"?, "range"?: [left, right]}`."""
    out = []
    for i, r in enumerate(F.lst(obj.get("repairs", []), "repairs")):
        where = f"repairs[{i}]"
        r = F.obj(r, where)
        F.keys(r, {"at_ms", "keyspace", "node", "range"}, where)
        ks = r.get("keyspace")
        if not isinstance(ks, str) or not ks:
            raise BadInput(f"{where}.keyspace: expected a keyspace name")
        rng = None
        if "range" in r:
            bounds = F.lst(r["range"], f"{where}.range")
            if len(bounds) != 2:
                raise BadInput(f"{where}.range: expected [left, right] tokens")
            rng = (fields.integer(bounds[0], f"{where}.range", lo=-(2**63), hi=2**63 - 1),
                   fields.integer(bounds[1], f"{where}.range", lo=-(2**63), hi=2**63 - 1))
        out.append(Repair(at=F.ms(r.get("at_ms", 0), f"{where}.at_ms"), keyspace=ks,
                          node=nodes.node(r["node"], where) if "node" in r else None, range=rng))
    return tuple(out)


def submissions(obj: dict[str, Any], nodes: Nodes) -> tuple[Submission, ...]:
    """Transformations submitted as written, each from a node at a time."""
    submissions = []
    for i, s in enumerate(F.lst(obj.get("submissions", []), "submissions")):
        where = f"submissions[{i}]"
        s = F.obj(s, where)
        F.keys(s, {"node", "at_ms", "transformation"}, where)
        submitter = nodes.node(s.get("node"), where)
        tr = F.obj(s.get("transformation"), f"{where}.transformation")
        parse_transformation(tr, f"{where}.transformation")  # unknown kinds, wrong fields
        submissions.append(Submission(node=submitter,
                                      at=F.ms(s.get("at_ms", 0), f"{where}.at_ms"),
                                      transformation=canonical_json(tr)))

    return tuple(submissions)


def workloads(obj: dict[str, Any], nodes: Nodes, submitted: int) -> tuple[Workload, ...]:
    """Schema workloads; with `submitted` scripted submissions, at most MAX_GENERATED_REQUESTS in all."""
    workloads = []
    for i, w in enumerate(F.lst(obj.get("workloads", []), "workloads")):
        where = f"workloads[{i}]"
        w = F.obj(w, where)
        F.keys(w, {"kind", "count", "start_ms", "spread_ms", "nodes", "names", "only"}, where)
        if w.get("kind", "schema") != "schema":
            raise BadInput(f"{where}.kind: only \"schema\" workloads are known")
        workloads.append(Workload(
            kind="schema", count=F.integer(w.get("count", 100), f"{where}.count", lo=0),
            start=F.ms(w.get("start_ms", 0), f"{where}.start_ms"),
            spread=F.ms(w.get("spread_ms", 1000), f"{where}.spread_ms"),
            nodes=nodes.node_list(w.get("nodes", []), f"{where}.nodes"),
            names=F.integer(w.get("names", 4), f"{where}.names", lo=1),
            only=F.only(w, where)))
    requests = submitted + sum(w.count for w in workloads)
    if requests > fields.MAX_GENERATED_REQUESTS:
        raise BadInput(f"submissions and workloads ask for {requests} requests "
                       f"(at most {fields.MAX_GENERATED_REQUESTS} per scenario)")

    return tuple(workloads)


def clients(obj: dict[str, Any], nodes: Nodes, topo: dict[str, Any], requests: int) -> tuple[ClientWorkload, ...]:
    """Client workloads on a keyspace (the topology's first by default); with `requests` already asked for, at most MAX_GENERATED_REQUESTS in all."""
    clients = []
    for i, c in enumerate(F.lst(obj.get("clients", []), "clients")):
        where = f"clients[{i}]"
        c = F.obj(c, where)
        F.keys(c, {"keyspace", "count", "start_ms", "spread_ms", "keys", "writes", "read_cl",
                  "write_cl", "nodes", "only", "key_prefix"}, where)
        prefix = c.get("key_prefix", "k")
        if not isinstance(prefix, str) or not prefix.isidentifier():
            raise BadInput(f"{where}.key_prefix: expected a short name (letters, digits, _), "
                           f"got {prefix!r}")
        ks = c.get("keyspace")
        known = [k.get("name") for k in topo.get("keyspaces", []) if isinstance(k, dict)]
        if ks is None and known:
            ks = known[0]
        if not isinstance(ks, str) or not ks:
            raise BadInput(f"{where}.keyspace: expected a keyspace name")
        clients.append(ClientWorkload(
            keyspace=ks, count=F.integer(c.get("count", 200), f"{where}.count", lo=0),
            start=F.ms(c.get("start_ms", 0), f"{where}.start_ms"),
            spread=F.ms(c.get("spread_ms", 10_000), f"{where}.spread_ms"),
            keys=F.integer(c.get("keys", 5), f"{where}.keys", lo=1),
            writes=F.prob(c.get("writes", 0.5), f"{where}.writes"),
            read_cl=F.levels(c.get("read_cl", ["QUORUM"]), f"{where}.read_cl"),
            write_cl=F.levels(c.get("write_cl", ["QUORUM"]), f"{where}.write_cl", writes=True),
            nodes=nodes.node_list(c.get("nodes", []), f"{where}.nodes"),
            only=F.only(c, where), key_prefix=prefix))
    client_requests = sum(c.count for c in clients)
    if requests + client_requests > fields.MAX_GENERATED_REQUESTS:
        raise BadInput(f"submissions, workloads and clients ask for {requests + client_requests} "
                       f"requests (at most {fields.MAX_GENERATED_REQUESTS} per scenario)")
    return tuple(clients)


def clock_skew(obj: dict[str, Any], nodes: Nodes) -> tuple[tuple[str, int], ...]:
    """Per-node clock offsets in ms (a coordinator's write timestamps)."""
    skew = F.obj(obj.get("clock_skew_ms", {}), "clock_skew_ms")
    clock_skew = []
    for k, v in sorted(skew.items()):
        v = fields.number(v, f"clock_skew_ms.{k}", lo=-fields.MAX_MS, hi=fields.MAX_MS)
        clock_skew.append((nodes.node(k, "clock_skew_ms"), round(v * 1_000_000)))
    return tuple(clock_skew)


def faults(obj: dict[str, Any], nodes: Nodes) -> tuple[NetworkFaults, tuple[Partition, ...], tuple[Crash, ...]]:
    """The network's loss, duplication, reordering and latency, the partitions and the crashes."""
    faults = F.obj(obj.get("faults", {}), "faults")
    F.keys(faults, {"loss", "duplicate", "reorder", "reorder_extra_ms", "latency", "partitions",
                   "crashes"}, "faults")
    network = NetworkFaults(
        loss=F.prob(faults.get("loss", 0.0), "faults.loss"),
        duplicate=F.prob(faults.get("duplicate", 0.0), "faults.duplicate"),
        reorder=F.prob(faults.get("reorder", 0.0), "faults.reorder"),
        reorder_extra_ms=F.num(faults.get("reorder_extra_ms", 20.0), "faults.reorder_extra_ms"),
        latency=latency(faults.get("latency", {"dist": "uniform", "min_ms": 1, "max_ms": 5})))
    partitions = []
    for i, p in enumerate(F.lst(faults.get("partitions", []), "faults.partitions")):
        where = f"faults.partitions[{i}]"
        p = F.obj(p, where)
        F.keys(p, {"groups", "isolate", "start_ms", "heal_ms"}, where)
        if "isolate" in p:
            groups: tuple[tuple[str, ...], ...] = (nodes.node_list(p["isolate"], f"{where}.isolate"),)
        else:
            groups = tuple(nodes.node_list(g, f"{where}.groups")
                           for g in F.lst(p.get("groups"), f"{where}.groups"))
        seen = [n for g in groups for n in g]
        if len(seen) != len(set(seen)):
            raise BadInput(f"{where}: a node is in two groups")
        start = F.ms(p.get("start_ms", 0), f"{where}.start_ms")
        heal = F.ms(p["heal_ms"], f"{where}.heal_ms") if p.get("heal_ms") is not None else None
        if heal is not None and heal < start:
            raise BadInput(f"{where}: heal_ms before start_ms")
        partitions.append(Partition(groups=groups, start=start, heal=heal))
    crashes = []
    for i, c in enumerate(F.lst(faults.get("crashes", []), "faults.crashes")):
        where = f"faults.crashes[{i}]"
        c = F.obj(c, where)
        F.keys(c, {"node", "at_ms", "restart_ms"}, where)
        at = F.ms(c.get("at_ms", 0), f"{where}.at_ms")
        restart = (F.ms(c["restart_ms"], f"{where}.restart_ms")
                   if c.get("restart_ms") is not None else None)
        if restart is not None and restart < at:
            raise BadInput(f"{where}: restart_ms before at_ms")
        crashes.append(Crash(node=nodes.node(c.get("node"), where), at=at, restart=restart))

    return network, tuple(partitions), tuple(crashes)


def latency(value: Any) -> Latency:
    lat = F.obj(value, "faults.latency")
    dist = lat.get("dist", "uniform")
    where = "faults.latency"
    if dist == "fixed":
        F.keys(lat, {"dist", "ms"}, where)
        return Latency(dist="fixed", a=F.num(lat.get("ms", 1), f"{where}.ms"), b=0.0)
    if dist == "uniform":
        F.keys(lat, {"dist", "min_ms", "max_ms"}, where)
        lo = F.num(lat.get("min_ms", 1), f"{where}.min_ms")
        hi = F.num(lat.get("max_ms", 5), f"{where}.max_ms")
        if hi < lo:
            raise BadInput(f"{where}: max_ms below min_ms")
        return Latency(dist="uniform", a=lo, b=hi)
    if dist == "exponential":
        F.keys(lat, {"dist", "mean_ms", "min_ms"}, where)
        return Latency(dist="exponential", a=F.num(lat.get("mean_ms", 2), f"{where}.mean_ms"),
                       b=F.num(lat.get("min_ms", 0), f"{where}.min_ms"))
    if dist == "lognormal":
        F.keys(lat, {"dist", "median_ms", "sigma"}, where)
        sigma = fields.number(lat.get("sigma", 0.5), f"{where}.sigma", lo=0, hi=10)
        return Latency(dist="lognormal", a=F.num(lat.get("median_ms", 2), f"{where}.median_ms"),
                       b=sigma)
    raise BadInput(f"{where}.dist: unknown distribution {dist!r} "
                   "(fixed, uniform, exponential, lognormal)")


__all__ = ["OPS", "cancels", "clients", "clock_skew", "faults", "latency", "operations", "submissions", "workloads"]
