"""SCENARIO.json (docs/simulate.md) -> impl.scenario.Scenario; any problem is one-line BadInput.

This module parses the cluster's side (the CMS, its changes, a CMS initialization, settings,
switches, a decision list); campaign/formats/scenario_events.py what happens in the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attrs import evolve

from campaign.errors import BadInput
from campaign.formats import fields
from campaign.formats import scenario_events as E
from campaign.formats import scenario_fields as F
from campaign.formats.jsonio import in_file, load_json, loads_json, parsing, read_text
from campaign.formats.scenario_fields import Nodes
from campaign.formats.topology import parse_topology, parse_version
from impl.bugs import check_names
from impl.entry import canonical_json
from impl.node.progress_barrier import CHAIN
from impl.scenario import CmsChange, Initialize, Scenario
from impl.settings import Settings
from impl.sim.clock import ms_to_ns
from impl.sim.decisions import parse_decision

_TOP = {"topology", "cms", "submissions", "workloads", "faults", "cms_changes", "initialize",
        "settings", "description", "mode", "clients", "operations", "cancels", "clock_skew_ms", "mutants",
        "decisions", "decision_seed", "repairs"}
_SETTINGS_MS = {"paxos_timeout_ms", "retry_backoff_ms", "retry_backoff_max_ms",
                "fetch_timeout_ms", "submit_timeout_ms", "gossip_interval_ms",
                "election_timeout_ms", "stream_timeout_ms", "end_time_ms", "write_timeout_ms",
                "read_timeout_ms", "barrier_timeout_ms", "barrier_retry_ms", "stream_retry_ms",
                "ring_delay_ms", "gossip_spread_ms", "fd_initial_value_ms", "fd_max_interval_ms",
                "max_hint_window_ms", "hint_dispatch_interval_ms", "speculative_retry_ms",
                "repair_timeout_ms"}
MAX_END_TIME_MS = 86_400_000
"""Longest run (one virtual day): a run that never quiesces still ends in bounded work."""
_SETTINGS_CL = {"barrier_consistency", "barrier_min_consistency"}
_SETTINGS_INT = {"snapshot_interval", "snapshot_catchup_threshold", "max_submit_attempts"}
_SETTINGS_NUMBER = {"phi_convict_threshold"}
_SETTINGS_BOOL = {"hinted_handoff_enabled", "hint_window_persistent"}
_SETTINGS_CHOICE = {"read_contacts": ("blockfor", "all")}


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    doc = loads_json(read_text(p, "scenario"), str(p))
    try:
        with parsing(str(p)):
            return parse_scenario(doc, base=p.parent)
    except BadInput as e:
        raise in_file(e, p) from None


def parse_scenario(doc: Any, *, base: Path | None = None) -> Scenario:
    """A scenario document as impl's `Scenario`: each field parsed by its own function (those of
    what happens in the run in campaign/formats/scenario_events.py), nodes checked against the
    topology's (and those its operations add), then the topology by TOPOLOGY.json's rules."""
    obj = F.obj(doc, "scenario")
    F.keys(obj, _TOP, "scenario")
    topology = obj.get("topology")
    if isinstance(topology, str) and base is not None:
        topology = load_json(base / topology, "topology")
    topo = F.obj(topology, "topology")
    nodes = Nodes(topo.get("nodes"))
    operations = E.operations(obj, nodes)
    cancels = E.cancels(obj, nodes)
    cms_size, cms_members, cms_reconfigure_at = _cms(obj, nodes)
    submissions = E.submissions(obj, nodes)
    workloads = E.workloads(obj, nodes, len(submissions))
    requests = len(submissions) + sum(w.count for w in workloads)
    clients = E.clients(obj, nodes, topo, requests)
    clock_skew = E.clock_skew(obj, nodes)
    mode = fields.choice(obj.get("mode", "tcm"), ("tcm", "gossip"), "mode")
    network, partitions, crashes = E.faults(obj, nodes)
    changes = _cms_changes(obj, nodes)
    initialize = _initialize(obj, nodes)
    # the same TOPOLOGY.json rules as placements/prove (a node without dc, a bad version, an
    # NTS keyspace in a DC with no nodes are bad input here too); a gossip-era cluster's nodes
    # may carry a state
    parse_topology(topo, "topology", gossip=initialize is not None)
    return Scenario(topology=canonical_json(topo), cms_size=cms_size, cms_members=cms_members,
                    cms_reconfigure_at=cms_reconfigure_at,
                    submissions=submissions, workloads=workloads, crashes=crashes, partitions=partitions,
                    cms_changes=changes, initialize=initialize, network=network,
                    settings=evolve(_settings(obj.get("settings", {}), mode),
                                    mutants=_mutants(obj.get("mutants", []))),
                    clients=clients, operations=operations, cancels=cancels, clock_skew=clock_skew,
                    repairs=E.repairs(obj, nodes),
                    decisions=_decisions(obj), decision_seed=_decision_seed(obj))


def _cms(obj: dict[str, Any], nodes: Nodes) -> tuple[int | None, tuple[str, ...] | None, int]:
    """The first CMS: its members, or its size (the lowest ids), or the CEP's sizing policy (and
    when the operator first applies it)."""
    cms_size: int | None = None
    cms_members: tuple[str, ...] | None = None
    reconfigure_at = 0
    if "cms" in obj:
        cms = F.obj(obj["cms"], "cms")
        F.keys(cms, {"size", "members", "policy", "reconfigure_at_ms"}, "cms")
        if "reconfigure_at_ms" in cms:
            if "members" in cms or "size" in cms:
                raise BadInput("cms.reconfigure_at_ms: only with the sizing policy")
            reconfigure_at = F.ms(cms["reconfigure_at_ms"], "cms.reconfigure_at_ms")
        if "members" in cms:
            cms_members = nodes.node_list(cms["members"], "cms.members")
            if not cms_members:
                raise BadInput("cms.members: the CMS needs at least one member")
            F.unique(cms_members, "cms.members")
        elif "size" in cms:
            cms_size = F.integer(cms["size"], "cms.size", lo=0)
            if cms_size > len(nodes.topology_ids):
                raise BadInput(f"cms.size: {cms_size} members but only {len(nodes.topology_ids)} nodes")
        elif cms.get("policy", "auto") != "auto":
            raise BadInput("cms.policy: only \"auto\" (the CEP's sizing policy) is known")

    return cms_size, cms_members, reconfigure_at


def _cms_changes(obj: dict[str, Any], nodes: Nodes) -> tuple[CmsChange, ...]:
    """Scripted CMS reconfigurations: the members at a time."""
    changes = []
    for i, ch in enumerate(F.lst(obj.get("cms_changes", []), "cms_changes")):
        where = f"cms_changes[{i}]"
        ch = F.obj(ch, where)
        F.keys(ch, {"at_ms", "members"}, where)
        members = nodes.node_list(ch.get("members"), f"{where}.members")
        if not members:
            raise BadInput(f"{where}.members: the CMS needs at least one member")
        F.unique(members, f"{where}.members")
        changes.append(CmsChange(at=F.ms(ch.get("at_ms", 0), f"{where}.at_ms"), members=members))

    return tuple(changes)


def _initialize(obj: dict[str, Any], nodes: Nodes) -> Initialize | None:
    """A gossip-era cluster whose CMS is initialized in the run (docs/simulate.md)."""
    initialize = None
    if "initialize" in obj:
        init = F.obj(obj["initialize"], "initialize")
        F.keys(init, {"initiator", "at_ms", "ignore", "versions", "states", "views", "discovery"}, "initialize")
        disc = F.obj(init["discovery"], "initialize.discovery") if "discovery" in init else None
        if disc is not None:
            F.keys(disc, {"seeds", "rounds", "timeout_ms"}, "initialize.discovery")
            if "initiator" in init:
                raise BadInput("initialize: give an initiator or a discovery, not both")
        versions = F.obj(init.get("versions", {}), "initialize.versions")
        states = F.obj(init.get("states", {}), "initialize.states")
        views = F.obj(init.get("views", {}), "initialize.views")
        seeds: tuple[str, ...] = ()
        rounds = timeout = 0
        if disc is not None:
            seeds = tuple(nodes.node(x, "initialize.discovery.seeds")
                          for x in F.lst(disc.get("seeds", []), "initialize.discovery.seeds"))
            if not seeds:
                raise BadInput("initialize.discovery.seeds: at least one seed")
            rounds = fields.integer(disc.get("rounds", 5), "initialize.discovery.rounds", lo=1, hi=100)
            timeout = F.ms(disc.get("timeout_ms", 2_000), "initialize.discovery.timeout_ms")
        initialize = Initialize(
            initiator="" if disc is not None else nodes.node(init.get("initiator"), "initialize.initiator"),
            seeds=seeds, discovery_rounds=rounds, discovery_timeout=timeout,
            at=F.ms(init.get("at_ms", 0), "initialize.at_ms"),
            # why not nodes.node(): ignoring a node that does not exist is gate 2's rejection
            ignore=tuple(str(x) for x in F.lst(init.get("ignore", []), "initialize.ignore")),
            versions=tuple(sorted((nodes.node(k, "initialize.versions"),
                                   parse_version(v, f"initialize.versions.{k}"))
                                  for k, v in versions.items())),
            states=tuple(sorted((nodes.node(k, "initialize.states"),
                                 fields.choice(v, _STATES, f"initialize.states.{k}"))
                                for k, v in states.items())),
            views=tuple(sorted((nodes.node(k, "initialize.views"), _view(v, f"initialize.views.{k}"))
                               for k, v in views.items())))

    return initialize


MAX_DECISIONS = 1_000_000


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
    raw = F.lst(obj["decisions"], "decisions")
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


def _mutants(value: Any) -> frozenset[str]:
    """Known-bug switches to plant (impl/bugs.py): a list of their names."""

    names = F.lst(value, "mutants")
    if not all(isinstance(n, str) for n in names):
        raise BadInput("mutants: expected a list of switch names")
    try:
        return check_names(names)
    except ValueError as e:
        raise BadInput(f"mutants: {e}") from None


def _settings(value: Any, mode: str = "tcm") -> Settings:
    s = F.obj(value, "settings")
    F.keys(s, _SETTINGS_MS | _SETTINGS_INT | _SETTINGS_CL | _SETTINGS_NUMBER | _SETTINGS_BOOL
           | set(_SETTINGS_CHOICE), "settings")
    kwargs: dict[str, Any] = {"mode": mode}
    for k, v in s.items():
        if k in _SETTINGS_CL:
            kwargs[k] = fields.choice(v, CHAIN, f"settings.{k}")
        elif k in _SETTINGS_BOOL:
            if not isinstance(v, bool):
                raise BadInput(f"settings.{k}: expected true or false, got {v!r}")
            kwargs[k] = v
        elif k in _SETTINGS_CHOICE:
            kwargs[k] = fields.choice(v, _SETTINGS_CHOICE[k], f"settings.{k}")
        elif k in _SETTINGS_NUMBER:
            # why above 0: a threshold of 0 convicts every peer at every status check
            kwargs[k] = float(fields.number(v, f"settings.{k}", lo=0.001, hi=1000))
        elif k == "end_time_ms":
            kwargs["end_time_ns"] = ms_to_ns(fields.number(v, f"settings.{k}", lo=0, hi=MAX_END_TIME_MS))
        elif k in _SETTINGS_MS:
            # why at least 1 ms: a zero timeout or interval re-arms at the same instant forever
            kwargs[k[: -len("_ms")] + "_ns"] = ms_to_ns(fields.number(v, f"settings.{k}", lo=1,
                                                                      hi=fields.MAX_MS))
        else:
            kwargs[k] = F.integer(v, f"settings.{k}", lo=0 if k == "snapshot_interval" else 1)
    if "snapshot_interval" in kwargs and "snapshot_catchup_threshold" not in kwargs:
        kwargs["snapshot_catchup_threshold"] = max(kwargs["snapshot_interval"], 1)
    if CHAIN.index(kwargs.get("barrier_min_consistency", "EACH_QUORUM")) < CHAIN.index(
            kwargs.get("barrier_consistency", "EACH_QUORUM")):
        raise BadInput("settings.barrier_min_consistency: stronger than barrier_consistency")
    return Settings(**kwargs)


_STATES = ("REGISTERED", "BOOTSTRAPPING", "BOOT_REPLACING", "JOINED", "LEAVING", "LEFT", "MOVING")


def _view(value: Any, where: str) -> str:
    parse_topology(F.obj(value, where), where, gossip=True)
    return canonical_json(value)
