"""SCENARIO.json (docs/simulate.md) -> impl.scenario.Scenario; any problem is one-line BadInput."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attrs import evolve

from campaign.errors import BadInput
from campaign.formats import fields
from campaign.formats.jsonio import in_file, load_json, loads_json, parsing, read_text
from campaign.formats.topology import parse_topology, parse_version
from campaign.formats.transformations import parse_transformation
from impl.bugs import check_names
from impl.bus import Latency, NetworkFaults
from impl.data.consistency import LEVELS
from impl.entry import canonical_json
from impl.node.progress_barrier import CHAIN
from impl.scenario import (
    Cancel,
    ClientWorkload,
    CmsChange,
    Crash,
    Initialize,
    Operation,
    Partition,
    Scenario,
    Submission,
    Workload,
)
from impl.settings import Settings
from impl.sim.clock import ms_to_ns
from impl.sim.decisions import parse_decision

_TOP = {"topology", "cms", "submissions", "workloads", "faults", "cms_changes", "initialize",
        "settings", "description", "mode", "clients", "operations", "cancels", "clock_skew_ms", "mutants",
        "decisions", "decision_seed"}
_SETTINGS_MS = {"paxos_timeout_ms", "retry_backoff_ms", "retry_backoff_max_ms",
                "fetch_timeout_ms", "submit_timeout_ms", "gossip_interval_ms",
                "election_timeout_ms", "stream_timeout_ms", "end_time_ms", "write_timeout_ms",
                "read_timeout_ms", "barrier_timeout_ms", "barrier_retry_ms", "stream_retry_ms",
                "ring_delay_ms", "gossip_spread_ms"}
MAX_END_TIME_MS = 86_400_000
"""Longest run (one virtual day): a run that never quiesces still ends in bounded work."""
_SETTINGS_CL = {"barrier_consistency", "barrier_min_consistency"}
_OPS = ("join", "leave", "move", "replace", "remove")
_SETTINGS_INT = {"snapshot_interval", "snapshot_catchup_threshold", "max_submit_attempts"}


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    doc = loads_json(read_text(p, "scenario"), str(p))
    try:
        with parsing(str(p)):
            return parse_scenario(doc, base=p.parent)
    except BadInput as e:
        raise in_file(e, p) from None


def parse_scenario(doc: Any, *, base: Path | None = None) -> Scenario:
    obj = _object(doc, "scenario")
    _keys(obj, _TOP, "scenario")
    topology = obj.get("topology")
    if isinstance(topology, str) and base is not None:
        topology = _read_json(base / topology, "topology")
    topo = _object(topology, "topology")
    nodes_doc = topo.get("nodes")
    if not isinstance(nodes_doc, list) or not nodes_doc:
        raise BadInput("topology: \"nodes\" must be a non-empty list")
    ids: set[str] = set()
    for n in nodes_doc:
        if not isinstance(n, dict) or not isinstance(n.get("id"), str) or not n["id"]:
            raise BadInput("topology: every node needs a string \"id\"")
        if n["id"] in ids:
            raise BadInput(f"topology: node {n['id']} appears twice")
        ids.add(n["id"])

    def node(value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in ids:
            raise BadInput(f"{where}: unknown node {value!r}")
        return value

    operations = []
    topo_ids = set(ids)
    dcs = {str(n.get("dc", "dc1")) for n in nodes_doc}
    for i, o in enumerate(_list(obj.get("operations", []), "operations")):
        where = f"operations[{i}]"
        o = _object(o, where)
        _keys(o, {"op", "node", "at_ms", "target", "tokens", "dc", "rack"}, where)
        op = o.get("op")
        if op not in _OPS:
            raise BadInput(f"{where}.op: expected one of {', '.join(_OPS)}, got {op!r}")
        name = o.get("node")
        if not isinstance(name, str) or not name:
            raise BadInput(f"{where}.node: expected a node id")
        location = None
        target = None
        if op in ("join", "replace"):
            if name in topo_ids:
                raise BadInput(f"{where}.node: {name} is already in the topology (a {op} needs a new node)")
            dc = o.get("dc", "dc1")
            if dc not in dcs:
                raise BadInput(f"{where}.dc: unknown datacenter {dc!r}")
            location = (str(dc), str(o.get("rack", "r1")))
            ids.add(name)
        else:
            node(name, f"{where}.node")
        if op in ("replace", "remove"):
            target = node(o.get("target"), f"{where}.target")
        elif "target" in o:
            raise BadInput(f"{where}.target: only replace and remove take a target")
        tokens: tuple[int, ...] = ()
        if op in ("join", "move"):
            raw = _list(o.get("tokens"), f"{where}.tokens")
            if not raw or not all(isinstance(t, int) and not isinstance(t, bool)
                                  and -(2**63) < t < 2**63 for t in raw):
                raise BadInput(f"{where}.tokens: expected a non-empty list of Murmur3 tokens")
            tokens = tuple(sorted(raw))
        operations.append(Operation(op=op, node=name, at=_ms(o.get("at_ms", 0), f"{where}.at_ms"),
                                    target=target, tokens=tokens, location=location))
    cancels = []
    for i, c in enumerate(_list(obj.get("cancels", []), "cancels")):
        where = f"cancels[{i}]"
        c = _object(c, where)
        _keys(c, {"node", "at_ms"}, where)
        cancels.append(Cancel(node=node(c.get("node"), where), at=_ms(c.get("at_ms", 0), f"{where}.at_ms")))

    def node_list(value: Any, where: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise BadInput(f"{where}: expected a list of node ids")
        return tuple(node(v, where) for v in value)

    cms_size: int | None = None
    cms_members: tuple[str, ...] | None = None
    if "cms" in obj:
        cms = _object(obj["cms"], "cms")
        _keys(cms, {"size", "members", "policy"}, "cms")
        if "members" in cms:
            cms_members = node_list(cms["members"], "cms.members")
            if not cms_members:
                raise BadInput("cms.members: the CMS needs at least one member")
            _unique(cms_members, "cms.members")
        elif "size" in cms:
            cms_size = _int(cms["size"], "cms.size", lo=0)
            if cms_size > len(ids):
                raise BadInput(f"cms.size: {cms_size} members but only {len(ids)} nodes")
        elif cms.get("policy", "auto") != "auto":
            raise BadInput("cms.policy: only \"auto\" (the CEP's sizing policy) is known")

    submissions = []
    for i, s in enumerate(_list(obj.get("submissions", []), "submissions")):
        where = f"submissions[{i}]"
        s = _object(s, where)
        _keys(s, {"node", "at_ms", "transformation"}, where)
        submitter = node(s.get("node"), where)
        tr = _object(s.get("transformation"), f"{where}.transformation")
        parse_transformation(tr, f"{where}.transformation")  # unknown kinds, wrong fields
        submissions.append(Submission(node=submitter,
                                      at=_ms(s.get("at_ms", 0), f"{where}.at_ms"),
                                      transformation=canonical_json(tr)))

    workloads = []
    for i, w in enumerate(_list(obj.get("workloads", []), "workloads")):
        where = f"workloads[{i}]"
        w = _object(w, where)
        _keys(w, {"kind", "count", "start_ms", "spread_ms", "nodes", "names", "only"}, where)
        if w.get("kind", "schema") != "schema":
            raise BadInput(f"{where}.kind: only \"schema\" workloads are known")
        workloads.append(Workload(
            kind="schema", count=_int(w.get("count", 100), f"{where}.count", lo=0),
            start=_ms(w.get("start_ms", 0), f"{where}.start_ms"),
            spread=_ms(w.get("spread_ms", 1000), f"{where}.spread_ms"),
            nodes=node_list(w.get("nodes", []), f"{where}.nodes"),
            names=_int(w.get("names", 4), f"{where}.names", lo=1),
            only=_only(w, where)))
    requests = len(submissions) + sum(w.count for w in workloads)
    if requests > fields.MAX_GENERATED_REQUESTS:
        raise BadInput(f"submissions and workloads ask for {requests} requests "
                       f"(at most {fields.MAX_GENERATED_REQUESTS} per scenario)")

    clients = []
    for i, c in enumerate(_list(obj.get("clients", []), "clients")):
        where = f"clients[{i}]"
        c = _object(c, where)
        _keys(c, {"keyspace", "count", "start_ms", "spread_ms", "keys", "writes", "read_cl",
                  "write_cl", "nodes", "only"}, where)
        ks = c.get("keyspace")
        known = [k.get("name") for k in topo.get("keyspaces", []) if isinstance(k, dict)]
        if ks is None and known:
            ks = known[0]
        if not isinstance(ks, str) or not ks:
            raise BadInput(f"{where}.keyspace: expected a keyspace name")
        clients.append(ClientWorkload(
            keyspace=ks, count=_int(c.get("count", 200), f"{where}.count", lo=0),
            start=_ms(c.get("start_ms", 0), f"{where}.start_ms"),
            spread=_ms(c.get("spread_ms", 10_000), f"{where}.spread_ms"),
            keys=_int(c.get("keys", 5), f"{where}.keys", lo=1),
            writes=_prob(c.get("writes", 0.5), f"{where}.writes"),
            read_cl=_levels(c.get("read_cl", ["QUORUM"]), f"{where}.read_cl"),
            write_cl=_levels(c.get("write_cl", ["QUORUM"]), f"{where}.write_cl"),
            nodes=node_list(c.get("nodes", []), f"{where}.nodes"),
            only=_only(c, where)))
    skew = _object(obj.get("clock_skew_ms", {}), "clock_skew_ms")
    clock_skew = []
    for k, v in sorted(skew.items()):
        v = fields.number(v, f"clock_skew_ms.{k}", lo=-fields.MAX_MS, hi=fields.MAX_MS)
        clock_skew.append((node(k, "clock_skew_ms"), round(v * 1_000_000)))
    client_requests = sum(c.count for c in clients)
    if requests + client_requests > fields.MAX_GENERATED_REQUESTS:
        raise BadInput(f"submissions, workloads and clients ask for {requests + client_requests} "
                       f"requests (at most {fields.MAX_GENERATED_REQUESTS} per scenario)")
    mode = fields.choice(obj.get("mode", "tcm"), ("tcm", "gossip"), "mode")

    faults = _object(obj.get("faults", {}), "faults")
    _keys(faults, {"loss", "duplicate", "reorder", "reorder_extra_ms", "latency", "partitions",
                   "crashes"}, "faults")
    network = NetworkFaults(
        loss=_prob(faults.get("loss", 0.0), "faults.loss"),
        duplicate=_prob(faults.get("duplicate", 0.0), "faults.duplicate"),
        reorder=_prob(faults.get("reorder", 0.0), "faults.reorder"),
        reorder_extra_ms=_num(faults.get("reorder_extra_ms", 20.0), "faults.reorder_extra_ms"),
        latency=_latency(faults.get("latency", {"dist": "uniform", "min_ms": 1, "max_ms": 5})))
    partitions = []
    for i, p in enumerate(_list(faults.get("partitions", []), "faults.partitions")):
        where = f"faults.partitions[{i}]"
        p = _object(p, where)
        _keys(p, {"groups", "isolate", "start_ms", "heal_ms"}, where)
        if "isolate" in p:
            groups: tuple[tuple[str, ...], ...] = (node_list(p["isolate"], f"{where}.isolate"),)
        else:
            groups = tuple(node_list(g, f"{where}.groups")
                           for g in _list(p.get("groups"), f"{where}.groups"))
        seen = [n for g in groups for n in g]
        if len(seen) != len(set(seen)):
            raise BadInput(f"{where}: a node is in two groups")
        start = _ms(p.get("start_ms", 0), f"{where}.start_ms")
        heal = _ms(p["heal_ms"], f"{where}.heal_ms") if p.get("heal_ms") is not None else None
        if heal is not None and heal < start:
            raise BadInput(f"{where}: heal_ms before start_ms")
        partitions.append(Partition(groups=groups, start=start, heal=heal))
    crashes = []
    for i, c in enumerate(_list(faults.get("crashes", []), "faults.crashes")):
        where = f"faults.crashes[{i}]"
        c = _object(c, where)
        _keys(c, {"node", "at_ms", "restart_ms"}, where)
        at = _ms(c.get("at_ms", 0), f"{where}.at_ms")
        restart = (_ms(c["restart_ms"], f"{where}.restart_ms")
                   if c.get("restart_ms") is not None else None)
        if restart is not None and restart < at:
            raise BadInput(f"{where}: restart_ms before at_ms")
        crashes.append(Crash(node=node(c.get("node"), where), at=at, restart=restart))

    changes = []
    for i, ch in enumerate(_list(obj.get("cms_changes", []), "cms_changes")):
        where = f"cms_changes[{i}]"
        ch = _object(ch, where)
        _keys(ch, {"at_ms", "members"}, where)
        members = node_list(ch.get("members"), f"{where}.members")
        if not members:
            raise BadInput(f"{where}.members: the CMS needs at least one member")
        _unique(members, f"{where}.members")
        changes.append(CmsChange(at=_ms(ch.get("at_ms", 0), f"{where}.at_ms"), members=members))

    initialize = None
    if "initialize" in obj:
        init = _object(obj["initialize"], "initialize")
        _keys(init, {"initiator", "at_ms", "ignore", "versions", "states", "views", "discovery"}, "initialize")
        disc = _object(init["discovery"], "initialize.discovery") if "discovery" in init else None
        if disc is not None:
            _keys(disc, {"seeds", "rounds", "timeout_ms"}, "initialize.discovery")
            if "initiator" in init:
                raise BadInput("initialize: give an initiator or a discovery, not both")
        versions = _object(init.get("versions", {}), "initialize.versions")
        states = _object(init.get("states", {}), "initialize.states")
        views = _object(init.get("views", {}), "initialize.views")
        seeds: tuple[str, ...] = ()
        rounds = timeout = 0
        if disc is not None:
            seeds = tuple(node(x, "initialize.discovery.seeds")
                          for x in _list(disc.get("seeds", []), "initialize.discovery.seeds"))
            if not seeds:
                raise BadInput("initialize.discovery.seeds: at least one seed")
            rounds = fields.integer(disc.get("rounds", 5), "initialize.discovery.rounds", lo=1, hi=100)
            timeout = _ms(disc.get("timeout_ms", 2_000), "initialize.discovery.timeout_ms")
        initialize = Initialize(
            initiator="" if disc is not None else node(init.get("initiator"), "initialize.initiator"),
            seeds=seeds, discovery_rounds=rounds, discovery_timeout=timeout,
            at=_ms(init.get("at_ms", 0), "initialize.at_ms"),
            # why not node(): ignoring a node that does not exist is gate 2's rejection
            ignore=tuple(str(x) for x in _list(init.get("ignore", []), "initialize.ignore")),
            versions=tuple(sorted((node(k, "initialize.versions"),
                                   parse_version(v, f"initialize.versions.{k}"))
                                  for k, v in versions.items())),
            states=tuple(sorted((node(k, "initialize.states"),
                                 fields.choice(v, _STATES, f"initialize.states.{k}"))
                                for k, v in states.items())),
            views=tuple(sorted((node(k, "initialize.views"), _view(v, f"initialize.views.{k}"))
                               for k, v in views.items())))

    # the same TOPOLOGY.json rules as placements/prove (a node without dc, a bad version, an
    # NTS keyspace in a DC with no nodes are bad input here too); a gossip-era cluster's nodes
    # may carry a state
    parse_topology(topo, "topology", gossip=initialize is not None)
    return Scenario(topology=canonical_json(topo), cms_size=cms_size, cms_members=cms_members,
                    submissions=tuple(submissions), workloads=tuple(workloads),
                    crashes=tuple(crashes), partitions=tuple(partitions),
                    cms_changes=tuple(changes), initialize=initialize, network=network,
                    settings=evolve(_settings(obj.get("settings", {}), mode),
                                    mutants=_mutants(obj.get("mutants", []))),
                    clients=tuple(clients),
                    operations=tuple(operations), cancels=tuple(cancels),
                    clock_skew=tuple(clock_skew), decisions=_decisions(obj),
                    decision_seed=_decision_seed(obj))


MAX_DECISIONS = 1_000_000


def _only(doc: dict[str, Any], where: str) -> tuple[int, ...] | None:
    """A workload's `only`: the indices of the generated items to keep (a shrunk workload)."""
    if "only" not in doc:
        return None
    count = _int(doc.get("count", 0), f"{where}.count", lo=0)
    raw = _list(doc["only"], f"{where}.only")
    out = tuple(_int(x, f"{where}.only", lo=0, hi=max(count - 1, 0)) for x in raw)
    if count == 0 and out:
        raise BadInput(f"{where}.only: a workload of count 0 has nothing to keep")
    if len(set(out)) != len(out):
        raise BadInput(f"{where}.only: an index is listed twice")
    return tuple(sorted(out))


def _decision_seed(obj: dict[str, Any]) -> int | None:
    """The optional `decision_seed` (docs/shrink.md): meaningful only with a decision list."""
    if "decision_seed" not in obj:
        return None
    value = obj["decision_seed"]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise BadInput(f"decision_seed: expected an integer in [0, 2^63), got {value!r}")
    if "decisions" not in obj:
        raise BadInput("decision_seed: only with a decision list (\"decisions\")")
    return value


def _decisions(obj: dict[str, Any]) -> tuple[tuple[str, int, int], ...] | None:
    """The optional decision list (docs/shrink.md): [[key, index, value], ...]."""

    if "decisions" not in obj:
        return None
    raw = _list(obj["decisions"], "decisions")
    if len(raw) > MAX_DECISIONS:
        raise BadInput(f"decisions: {len(raw)} entries (at most {MAX_DECISIONS})")
    out = []
    seen: set[tuple[str, int]] = set()
    for i, item in enumerate(raw):
        try:
            d = parse_decision(item, f"decisions[{i}]")
        except ValueError as e:
            raise BadInput(str(e)) from None
        if (d[0], d[1]) in seen:
            raise BadInput(f"decisions[{i}]: {d[0]!r} draw {d[1]} appears twice")
        seen.add((d[0], d[1]))
        out.append(d)
    return tuple(out)


def _levels(value: Any, where: str) -> tuple[str, ...]:
    levels = _list(value, where)
    if not levels or not all(v in LEVELS for v in levels):
        raise BadInput(f"{where}: expected a non-empty list of {', '.join(LEVELS)}")
    return tuple(levels)


def _mutants(value: Any) -> frozenset[str]:
    """Known-bug switches to plant (impl/bugs.py): a list of their names."""

    names = _list(value, "mutants")
    if not all(isinstance(n, str) for n in names):
        raise BadInput("mutants: expected a list of switch names")
    try:
        return check_names(names)
    except ValueError as e:
        raise BadInput(f"mutants: {e}") from None


def _settings(value: Any, mode: str = "tcm") -> Settings:
    s = _object(value, "settings")
    _keys(s, _SETTINGS_MS | _SETTINGS_INT | _SETTINGS_CL, "settings")
    kwargs: dict[str, Any] = {"mode": mode}
    for k, v in s.items():
        if k in _SETTINGS_CL:
            kwargs[k] = fields.choice(v, CHAIN, f"settings.{k}")
        elif k == "end_time_ms":
            kwargs["end_time_ns"] = ms_to_ns(fields.number(v, f"settings.{k}", lo=0, hi=MAX_END_TIME_MS))
        elif k in _SETTINGS_MS:
            # why at least 1 ms: a zero timeout or interval re-arms at the same instant forever
            kwargs[k[: -len("_ms")] + "_ns"] = ms_to_ns(fields.number(v, f"settings.{k}", lo=1,
                                                                      hi=fields.MAX_MS))
        else:
            kwargs[k] = _int(v, f"settings.{k}", lo=0 if k == "snapshot_interval" else 1)
    if "snapshot_interval" in kwargs and "snapshot_catchup_threshold" not in kwargs:
        kwargs["snapshot_catchup_threshold"] = max(kwargs["snapshot_interval"], 1)
    if CHAIN.index(kwargs.get("barrier_min_consistency", "EACH_QUORUM")) < CHAIN.index(
            kwargs.get("barrier_consistency", "EACH_QUORUM")):
        raise BadInput("settings.barrier_min_consistency: stronger than barrier_consistency")
    return Settings(**kwargs)


def _latency(value: Any) -> Latency:
    lat = _object(value, "faults.latency")
    dist = lat.get("dist", "uniform")
    where = "faults.latency"
    if dist == "fixed":
        _keys(lat, {"dist", "ms"}, where)
        return Latency(dist="fixed", a=_num(lat.get("ms", 1), f"{where}.ms"), b=0.0)
    if dist == "uniform":
        _keys(lat, {"dist", "min_ms", "max_ms"}, where)
        lo = _num(lat.get("min_ms", 1), f"{where}.min_ms")
        hi = _num(lat.get("max_ms", 5), f"{where}.max_ms")
        if hi < lo:
            raise BadInput(f"{where}: max_ms below min_ms")
        return Latency(dist="uniform", a=lo, b=hi)
    if dist == "exponential":
        _keys(lat, {"dist", "mean_ms", "min_ms"}, where)
        return Latency(dist="exponential", a=_num(lat.get("mean_ms", 2), f"{where}.mean_ms"),
                       b=_num(lat.get("min_ms", 0), f"{where}.min_ms"))
    if dist == "lognormal":
        _keys(lat, {"dist", "median_ms", "sigma"}, where)
        sigma = fields.number(lat.get("sigma", 0.5), f"{where}.sigma", lo=0, hi=10)
        return Latency(dist="lognormal", a=_num(lat.get("median_ms", 2), f"{where}.median_ms"),
                       b=sigma)
    raise BadInput(f"{where}.dist: unknown distribution {dist!r} "
                   "(fixed, uniform, exponential, lognormal)")


def _read_json(path: Path, what: str) -> Any:
    return load_json(path, what)


_STATES = ("REGISTERED", "BOOTSTRAPPING", "BOOT_REPLACING", "JOINED", "LEAVING", "LEFT", "MOVING")


def _view(value: Any, where: str) -> str:
    parse_topology(_object(value, where), where, gossip=True)
    return canonical_json(value)


# The helpers every scenario field goes through (campaign/formats/fields.py's typed getters,
# with this format's bounds): finite, in range, never a bool for a number.


def _unique(ids: tuple[str, ...], where: str) -> None:
    twice = sorted({n for n in ids if ids.count(n) > 1})
    if twice:
        raise BadInput(f"{where}: node {twice[0]!r} is listed twice")


def _object(value: Any, where: str) -> dict[str, Any]:
    return fields.obj(value, where)


def _list(value: Any, where: str) -> list[Any]:
    return fields.lst(value, where)


def _keys(obj: dict[str, Any], allowed: set[str], where: str) -> None:
    fields.known_keys(obj, allowed, where)


def _num(value: Any, where: str) -> float:
    """A non-negative finite number of milliseconds (or ms-like quantity) up to MAX_MS."""
    return fields.number(value, where, lo=0, hi=fields.MAX_MS)


def _ms(value: Any, where: str) -> int:
    return ms_to_ns(_num(value, where))


def _int(value: Any, where: str, *, lo: int, hi: int = 10**9) -> int:
    return fields.integer(value, where, lo=lo, hi=hi)


def _prob(value: Any, where: str) -> float:
    v = fields.number(value, where)
    if not 0 <= v <= 1:
        raise BadInput(f"{where}: a probability must lie in [0, 1], got {value!r}")
    return v
