"""How the mutant matrix reshapes generated cases so that a planted switch has something to show
in (a denser client load during topology operations, a coordinator cut off from the CMS, a CMS
member gone for good, ...): `biased(name, case)`. Each shape says why it exists at its function.

Past the 400-line guideline: every shape is a small function, but they share the helpers that
find a key's replicas and a join above it, and each explains the schedule it builds.
"""

from __future__ import annotations

import copy
import json
import random
import zlib
from typing import Any

from campaign.formats.scenario import parse_scenario
from campaign.kinds.sim_generator import REMOVAL_AFTER_DEATH_MS
from impl.bugs import BY_NAME
from impl.cluster import run_scenario
from impl.data.partitioner import token
from spec.tokens import MIN_TOKEN


def biased(name: str | None, case: dict[str, Any], *, base: bool = False,
           seed: int | None = None) -> dict[str, Any]:
    """(One branch per family of switches, each naming the shape it applies; past the 60-line
    guideline because the generic `ops` shape is spelled out here, step by step, with why.)

    The `ops` bias: a denser client load (QUORUM/QUORUM on an RF 3 keyspace, few keys, many
    operations) while the topology operations run, so that a data-path bug has reads to show in."""
    if name in CMS_POLICY_SWITCHES:
        return _cms_policy_bias(name, case)
    if name == "locked-ranges-miss-wraparound":
        return _min_token_bias(case)
    if name == "catchup-trusts-lagging-peer":
        return _lagging_members_bias(case)
    if name == "discovery-never-resets-unchanged-rounds":
        return _discovery_bias(case)
    if name == "rejected-commit-no-catchup":
        return _restart_driver_bias(biased("barrier-at-one", case, base=True))
    if name == "restart-rejoins-after-decommission":
        return _restart_leaving_bias(case)
    if name == "revalidation-off-by-one":
        # why the `ops` shape for a data-path switch: it needs a request in flight exactly when
        # its coordinator applies the one epoch after its plan's, and that epoch changing the
        # key's groups; the dense load on three keys during the operations gives many such
        # moments (seed 1: detected at the 15th run, where the generated load needed 420 runs)
        return biased("barrier-at-one", case, base=True)
    if name is None or BY_NAME[name].focus != "ops":
        return case
    if name in _STALE_SHAPE and not base:  # base: the generic ops shape (another switch's start)
        return stale_replicas(case)
    if name in _STALE_COORDINATOR and not base and seed is not None:
        shaped = stale_coordinator(case, seed)
        if shaped is not None:
            return shaped
    if name == "coordinator-skips-revalidation" and not base and seed is not None:
        shaped = stale_coordinator(case, seed, relaxed=True)
        if shaped is not None:
            return shaped
    case = copy.deepcopy(case)
    for ks in case["topology"]["keyspaces"]:
        if ks["name"] == "kv":
            ks["replication"] = {"class": "SimpleStrategy", "replication_factor": 3}
    for c in case.get("clients", []):
        c.update({"count": 300, "keys": 3, "read_cl": ["QUORUM"], "write_cl": ["QUORUM"],
                  "spread_ms": 20_000})
    if name == "removenode-nothing-to-stream-hangs":
        # the generator's node-driven operations are join/leave/move: the first becomes a
        # removenode, asked by a node of the upper half for another one that is down for good
        ids = sorted(n["id"] for n in case["topology"]["nodes"])
        first = case["operations"][0]
        upper = ids[len(ids) // 2:]
        target = upper[-1] if first["node"] != upper[-1] else upper[0]
        asker = next(n for n in reversed(ids) if n != target)
        case["operations"] = [{"op": "remove", "node": asker, "target": target, "at_ms": first["at_ms"]}]
        case.pop("cancels", None)
        # why no clients: a remove on RF 1 loses acknowledged writes by Cassandra's design (the
        # data path's finding); this campaign is about the remove finishing
        case.pop("clients", None)
        for ks in case["topology"]["keyspaces"]:
            ks["replication"] = {"class": "SimpleStrategy", "replication_factor": 1}
        # removenode is for a dead node: the target dies for good when the remove was drawn,
        # and the remove runs once the asker's failure detector has convicted it (Cassandra
        # refuses to remove a node it sees alive)
        faults = case.setdefault("faults", {})
        faults["crashes"] = [{"node": target, "at_ms": int(first["at_ms"])}]
        case["operations"][0]["at_ms"] = int(first["at_ms"]) + REMOVAL_AFTER_DEATH_MS
        faults["partitions"] = []
    ops = case.get("operations", [])
    faults = case.setdefault("faults", {})
    if ops and BY_NAME[name].name not in _NO_SPLIT:
        # why a split: a bug in the data path shows when a coordinator and replicas lag behind
        # the CMS during an operation (the two sides see different epochs), then heal
        # the cut-off side: neither the CMS (the lowest ids) nor an operation's driver, so the
        # operation goes on while those nodes keep coordinating and serving at old epochs
        ids = sorted(n["id"] for n in case["topology"]["nodes"])
        drivers = {o["node"] for o in ops}
        candidates = [n for n in ids[3:] if n not in drivers]
        at = min(int(o["at_ms"]) for o in ops)
        cut = candidates[: max(2, (len(ids) * 2) // 5)]
        faults["loss"] = 0.0
        faults["partitions"] = [{"isolate": cut, "start_ms": max(0, at - 50), "heal_ms": at + 8_000}]
        if seed_parity(case) == 1:
            # or no cut: a replica down while writes go on (it misses them: there is no hinted
            # handoff), back during the operation, over slow links (nodes lag by many epochs)
            # or no fault but slow links, writes at ALL and reads at ONE: every replica must
            # hold every acknowledged write, and any one that does not is read
            faults["partitions"] = []
            faults["duplicate"] = 0.0
            faults["reorder"] = 0.3
            faults["latency"] = {"dist": "exponential", "mean_ms": 30, "min_ms": 1}
            for c in case.get("clients", []):
                c.update({"read_cl": ["ONE"], "write_cl": ["ALL"]})
            # why: a write at ALL that timed out part way is seen by some ONE reads and not by
            # others (Cassandra semantics, not a bug); with no fault, waiting longer avoids it
            case.setdefault("settings", {}).update({"write_timeout_ms": 60_000, "read_timeout_ms": 60_000})
            # why: timeouts well above the round trips, or the CMS itself never commits
            case.setdefault("settings", {}).update({"paxos_timeout_ms": 3_000, "fetch_timeout_ms": 3_000})
        faults["crashes"] = []
        for c in case.get("clients", []):
            c.update({"start_ms": max(0, at - 3_000), "spread_ms": 12_000})
    return case


CMS_POLICY_SWITCHES = ("cms-reconfig-chooses-down-nodes", "decommission-shrinks-cms",
                       "cms-not-reconfigured-after-operation", "assassinate-skips-cms-reconfiguration",
                       "cms-commit-fails-after-leaving-cms")

# why barrier-at-one too: a barrier met by ONE replica lets FINISH commit while the cut-off
# pair still routes by old placements, as a missing barrier does (the shape caught it in 5 of
# 40 cases by hand); barrier-new-replicas-only: a join adds only the joining node, so its
# barriers ask it alone, the same story; mid-drops-old-write-replicas: between MID and FINISH
# (the barrier holds FINISH while the pair is cut off) a write acknowledged by the joined node
# and the key's second replica skips the losing replica, which the cut-off reader still reads
_STALE_SHAPE = ("no-progress-barrier", "barrier-at-one", "mid-drops-old-write-replicas",
                "barrier-new-replicas-only")


CMS_LATE_MS = 45_000
"""When the CMS shapes' operator acts: after the first growth of the CMS has ended (a member dying
during it can leave the CMS without a majority, which rightly stops everything) and after every
failure detector has convicted a node crashed at 5 s (phi 8: 20-30 s of silence here, at one
gossip round a second), as an operator acts on a node known dead."""


def _cms_policy_bias(name: str, case: dict[str, Any]) -> dict[str, Any]:
    """The CMS at the CEP's sizing policy, one operator action on it, the schema workload racing
    it: no client, no other operation, no partition (the CMS's placements are what is under
    test); every keyspace at RF 3 (a replace streams from a remaining replica).

    - cms-reconfig-chooses-down-nodes (CASSANDRA-19943): the second-lowest id is down for good
      from the start and the operator's first `nodetool cms reconfigure` comes late, so the
      policy's growth has a down node among the lowest ids to choose or to skip.
    - decommission-shrinks-cms (CASSANDRA-18416): a CMS member (the second-lowest id)
      decommissions itself; maybeReconfigureCMS must put another node in its seat first.
    - cms-commit-fails-after-leaving-cms (CASSANDRA-19872): the same decommission while the
      leaving member submits schema changes of its own, which it takes up after its removal.
    - cms-not-reconfigured-after-operation (CASSANDRA-19705): on three nodes (its dtest,
      replaceEqualRF) a CMS member dies and is replaced: no other node can take its seat before
      the replacement has joined, so only ensureCMSPlacement after FINISH_REPLACE refills it; on
      five nodes a sixth joins, which raises the policy's size from three to five.
    - assassinate-skips-cms-reconfiguration (CASSANDRA-19768, its dtest): a CMS member dies and
      the highest id assassinates it."""
    case = copy.deepcopy(case)
    ids = sorted(n["id"] for n in case["topology"]["nodes"])
    case["cms"] = {"policy": "auto"}
    for key in ("clients", "operations", "cancels", "submissions"):
        case.pop(key, None)
    for ks in case["topology"]["keyspaces"]:
        ks["replication"] = {"class": "SimpleStrategy", "replication_factor": 3}
    faults = case.setdefault("faults", {})
    faults["partitions"] = []
    faults["crashes"] = []
    victim = ids[1]
    dc = next(n["dc"] for n in case["topology"]["nodes"] if n["id"] == victim)
    if name == "cms-reconfig-chooses-down-nodes":
        faults["crashes"] = [{"node": victim, "at_ms": 0}]
        case["cms"]["reconfigure_at_ms"] = CMS_LATE_MS
    elif name in ("decommission-shrinks-cms", "cms-commit-fails-after-leaving-cms"):
        case["operations"] = [{"op": "leave", "node": victim, "at_ms": CMS_LATE_MS}]
        if name == "cms-commit-fails-after-leaving-cms":
            # the leaving member's own schema changes race its removal from the CMS: the ones
            # it takes up after it has left must go to a current member
            case.setdefault("workloads", []).append({"kind": "schema", "count": 40, "names": 5,
                                                     "start_ms": CMS_LATE_MS, "spread_ms": 300,
                                                     "nodes": [victim]})
    elif name == "cms-not-reconfigured-after-operation" and len(ids) != 3:
        taken = {t for n in case["topology"]["nodes"] for t in n["tokens"]}
        spot = next(t for t in range(1, 2**20) if t not in taken)
        case["operations"] = [{"op": "join", "node": "d1", "dc": dc, "rack": "r1", "tokens": [spot],
                               "at_ms": CMS_LATE_MS}]
    else:
        # why 5 s: the CMS's first growth has ended (a member dying during it stalls it)
        faults["crashes"] = [{"node": victim, "at_ms": 5_000}]
        op = "replace" if name == "cms-not-reconfigured-after-operation" else "assassinate"
        node = "d1" if op == "replace" else ids[-1]
        case["operations"] = [{"op": op, "node": node, "target": victim, "dc": dc, "rack": "r1",
                               "at_ms": CMS_LATE_MS}]
        if op == "assassinate":
            for key in ("dc", "rack"):
                case["operations"][0].pop(key)
    return case


def _discovery_bias(case: dict[str, Any]) -> dict[str, Any]:
    """A new cluster (no CMS) whose nodes find their initiator by Discovery (5 rounds of 400 ms,
    seeds: the lowest and the third-lowest id) while the two lowest ids are cut off from the rest
    until 3.8 s, and the highest id starts late (down until 2.1 s), so that the rest's
    discovered set changes once more just after the timeout. With the fix (CASSANDRA-19153) the
    third-lowest id keeps discovering for five unchanged rounds after that change, meets the
    lowest id's CMS after the heal and stops; without the reset it stops at 3.6 s, believes it
    is the lowest, and initializes a second CMS.

    The generated workload (schema changes, clients, operations) stays: a new cluster is
    started to be used, and what the run does once it has a CMS is the shrinker's to remove
    (it did not when this shape dropped it: a 3-step case has nothing to shrink)."""
    case = copy.deepcopy(case)
    ids = sorted(n["id"] for n in case["topology"]["nodes"])
    case["cms"] = {"size": 0}
    case["initialize"] = {"at_ms": 0, "discovery": {"seeds": [ids[0], ids[2]], "rounds": 5,
                                                    "timeout_ms": 2_000}}
    faults = case.setdefault("faults", {})
    faults.update({"loss": 0.0, "duplicate": 0.0, "reorder": 0.0,
                   "partitions": [{"groups": [ids[:2], ids[2:]], "start_ms": 0, "heal_ms": 3_800}],
                   "crashes": [{"node": ids[-1], "at_ms": 0, "restart_ms": 2_100}]})
    return case


def _lagging_members_bias(case: dict[str, Any]) -> dict[str, Any]:
    """Schema commits racing over slow, lossy links to a CMS of five, without clients or
    operations: CMS members lag the log by several epochs and fetches time out, and a fetch
    retried against a CMS member (PeerLogFetcher's fallback) may reach one that is behind. That
    is the only way a fetch meets a lagging peer here: a first fetch goes to the node whose
    message revealed the epoch, which holds it."""
    case = copy.deepcopy(case)
    for key in ("clients", "operations", "cancels", "submissions"):
        case.pop(key, None)
    case["cms"] = {"size": min(5, len(case["topology"]["nodes"]))}
    faults = case.setdefault("faults", {})
    faults.update({"loss": 0.1, "reorder": 0.3, "partitions": [], "crashes": [],
                   "latency": {"dist": "exponential", "mean_ms": 40, "min_ms": 1}})
    # why a fetch timeout near the round trip: fetches time out often, so retries are many
    case.setdefault("settings", {})["fetch_timeout_ms"] = 80
    return case


def _restart_driver_bias(case: dict[str, Any]) -> dict[str, Any]:
    """One operation whose node crashes a few ms after it begins (while a step's commit may be
    in flight) and restarts a second later: a restarted node resumes from its own log, so it
    may submit a step the CMS committed while it was down, and the CMS rejects it at a newer
    epoch (the case CASSANDRA-19260's catch-up is for). The crash offset (0-57 ms) comes from
    the case itself, so that the campaign's cases spread over the window."""
    ops = case.get("operations", [])[:1]
    if not ops:
        return case
    case["operations"] = ops
    case.pop("cancels", None)
    o = ops[0]
    offset = 3 * (zlib.crc32(json.dumps(case, sort_keys=True).encode()) % 20)
    faults = case["faults"]
    faults["partitions"] = []
    faults["crashes"] = [{"node": o["node"], "at_ms": int(o["at_ms"]) + offset,
                          "restart_ms": int(o["at_ms"]) + offset + 1_000}]
    return case


def _restart_leaving_bias(case: dict[str, Any]) -> dict[str, Any]:
    """One decommission, by the highest id (rarely a CMS member), whose node crashes 300 ms after
    it begins (its PrepareLeave committed, a later step perhaps not) and restarts a second later,
    with no other fault: the restarted node finishes the leave, and trunk 6bbe85ef's Startup then
    commits UnsafeJoin (impl/node/operation.py `on_restart`)."""
    case = copy.deepcopy(case)
    node = max(n["id"] for n in case["topology"]["nodes"])
    at = 1_000
    case["operations"] = [{"op": "leave", "node": node, "at_ms": at}]
    case.pop("cancels", None)
    case.pop("submissions", None)
    faults = case.setdefault("faults", {})
    faults["partitions"] = []
    faults["crashes"] = [{"node": node, "at_ms": at + 300, "restart_ms": at + 1_300}]
    return case


def _min_token_bias(case: dict[str, Any]) -> dict[str, Any]:
    """A refine case whose lowest token becomes the minimum token (a node may own it), so that
    the ranges next to it, `(x, MIN]` and `(MIN, y]`, touch there: the only ranges the plain
    intersection test and LockedRanges' rule disagree on (CASSANDRA-19262)."""
    case = copy.deepcopy(case)
    nodes = case["topology"]["nodes"]
    lowest = min(nodes, key=lambda n: min(n["tokens"]))
    lowest["tokens"] = sorted([MIN_TOKEN, *lowest["tokens"][1:]])
    return case


def _around_key(nodes: list[dict[str, Any]]) -> tuple[int, list[tuple[int, str]], int, list[str]]:
    """The client key k0's token, the ring as sorted (token, owner) pairs, the index of the
    first ring token at or after the key's, and the owners clockwise from there, each once
    (SimpleStrategy: the first three are the key's replicas)."""
    key_token = token("k0")
    ring = sorted((t, n["id"]) for n in nodes for t in n["tokens"])
    start = next((i for i, (t, _) in enumerate(ring) if t >= key_token), 0)
    owners: list[str] = []
    for i in range(len(ring)):
        owner = ring[(start + i) % len(ring)][1]
        if owner not in owners:
            owners.append(owner)
    return key_token, ring, start, owners


def _free_id(nodes: list[dict[str, Any]]) -> str:
    """A name for a joining node that no node (nor token) of the topology has."""
    taken = {n["id"] for n in nodes} | {t for n in nodes for t in n["tokens"]}
    return next(f"j{i}" for i in range(1, 100) if f"j{i}" not in taken)


def _join_above_key(case: dict[str, Any], key_token: int, kept: str) -> tuple[str, int]:
    """The two join shapes' common part, in place: an RF 3 "kv" keyspace, `kept` the one CMS
    member, the case's first operation turned into a join (a free id, a token just above the
    key's) at the same time; no cancels, no schema workload (its commits would move the window
    the cuts aim at). The joiner and the join's time."""
    nodes = case["topology"]["nodes"]
    joiner = _free_id(nodes)
    at = int(case["operations"][0]["at_ms"])
    case["topology"]["keyspaces"] = [{"name": "kv", "replication": {
        "class": "SimpleStrategy", "replication_factor": 3}}]
    case["cms"] = {"members": [kept]}
    case["operations"] = [{"op": "join", "node": joiner, "at_ms": at, "tokens": [key_token + 1],
                           "dc": nodes[0].get("dc", "dc1"), "rack": "r1"}]
    case.pop("cancels", None)
    case.pop("workloads", None)
    return joiner, at


def stale_replicas(case: dict[str, Any]) -> dict[str, Any]:
    """The bias for a missing progress barrier (Cassandra's ProgressBarrier): a join whose
    coordinators *and* replicas on one side lag the CMS. A node joins with a token just above
    the key's, so the key's last replica (`x`) streams its data to it and then leaves the key's
    replicas; the CMS is one member, the key's second replica (`kept`), so that the join's steps
    take a steady time and a little after the join starts (after streaming, with luck: the offset is drawn
    per case) `x` and the key's first replica (`a`) are cut off until well after the join
    ends. Writes go through the other side, at the newest placements (the joined node and the
    key's second replica make a quorum); reads go through `a`, which still reads `a` and `x` by
    the placements of the START epoch — missing those writes. With the barrier, FINISH waits
    for a quorum of the key's replicas to see MID, which the cut-off pair prevents until the
    heal: the writes fail instead (the same case passes with the switch off)."""

    case = copy.deepcopy(case)
    nodes = case["topology"]["nodes"]
    rng = random.Random(json.dumps(nodes, sort_keys=True))
    key_token, _, _, owners = _around_key(nodes)
    a, kept, x = owners[:3]
    others = sorted(n["id"] for n in nodes if n["id"] not in (a, x))
    _, at = _join_above_key(case, key_token, kept)
    case["faults"] = {"latency": {"dist": "uniform", "min_ms": 1, "max_ms": 5},
                      "partitions": [{"isolate": sorted((a, x)), "start_ms": at + rng.randrange(20, 45),
                                      "heal_ms": at + 4_000}]}
    spread = {"start_ms": at, "spread_ms": 3_000, "keys": 1, "read_cl": ["QUORUM"],
              "write_cl": ["QUORUM"]}
    case["clients"] = [{"keyspace": "kv", "count": 40, "writes": 1.0, "nodes": others, **spread},
                       {"keyspace": "kv", "count": 40, "writes": 0.0, "nodes": [a], **spread}]
    return case


_STALE_COORDINATOR = ("replica-ignores-last-modified", "replica-skips-epoch-check")


def stale_coordinator(case: dict[str, Any], seed: int, *, relaxed: bool = False) -> dict[str, Any] | None:
    """(Past the 60-line guideline: the schedule is built step by step from one probe run, and
    each step says which moment of that run it aims at.)

    The bias for the replica-side epoch checks (Cassandra's replica answering
    COORDINATOR_BEHIND / INVALID_ROUTING, and the coordinator catching up only asynchronously on
    a successful response: ResponseVerbHandler.maybeFetchLogs): a coordinator `c` and a former
    replica `x` both lag a join, while the key's other old replica `a` is fresh but missed the
    newest writes. A node joins with a token just above the key's, so `x` (the key's third
    replica) streams to it and then leaves the key's replicas. `c`, far from the key on the
    ring, is cut off from before the join; `x` is cut off right after its stream (so it misses
    MID and FINISH: the barriers need only a quorum); after FINISH `a` is down while writes go
    to the new replicas (the CMS member `kept` and the joined node); then `c`, `x`, `a` and
    `kept` come back as one group cut off from the rest (so gossip is unlikely to catch `c` up)
    and `c` reads at once, by its old plan {a, kept, x}. `x` serves it (its view says nothing
    changed); `a` and `kept` must refuse (their range changed after `c`'s epoch). With either
    switch they answer: `a` and `x` agree on the value from before the join, so the read
    answers before `c`'s fetch of the newer epoch (started by `a`'s answer) returns, and it
    misses the acknowledged writes. The moment `x` is cut off comes from a first run of the
    same case without that cut and the crash (the run is identical up to that moment); None
    when that run gives no such moment or FINISH comes too late.

    `relaxed` (for coordinator-skips-revalidation): the replica checks are right, so only a
    quorum of old replicas that lag *together* can serve the stale plan, which the progress
    barrier forbids at its default level. So the barrier may relax to ONE after 200 ms
    (Cassandra's progress_barrier_min_consistency_level; finding `relaxed-progress-barrier`),
    `a` and `x` are cut off together right after the stream (FINISH commits past them once the
    barrier relaxed), and the writes after FINISH miss `a` for that reason (no crash); with
    exponential latencies. Then `c`'s read is served by `a` and `x`, and the CMS member's
    refusal makes `c` catch up (blocking fetch): when that fetch returns before the second of
    `a` and `x` answers, re-validation fails the read, and without it the read answers stale.
    When the fetch is slower the read is stale either way (the finding, so the case's control
    fails too and the campaign moves on)."""
    case = copy.deepcopy(case)
    nodes = case["topology"]["nodes"]
    key_token, ring, start, owners = _around_key(nodes)
    a, kept, x = owners[:3]
    # why far: a replica of a range the join locks would hold its barriers while cut off
    near = {ring[(start + i) % len(ring)][1] for i in range(-3, 4)}
    lowest = min(n["id"] for n in nodes)  # the first CMS member, before `kept` takes over
    rest = sorted(n["id"] for n in nodes if n["id"] not in (a, kept, x))
    far = [n for n in rest if n not in near and n != lowest]
    if not far:
        return None
    c = far[-1]
    writers = [n for n in rest if n != c]
    joiner, at = _join_above_key(case, key_token, kept)
    down, up, heal = at + 400, at + 1_400, at + 1_900
    if relaxed:
        case.setdefault("settings", {}).update({"barrier_min_consistency": "ONE",
                                                "barrier_timeout_ms": 200})
        down, up, heal = at + 1_500, at + 2_300, at + 2_600
    quorum = {"keyspace": "kv", "keys": 1, "read_cl": ["QUORUM"], "write_cl": ["QUORUM"]}
    case["clients"] = [
        # the value `a` and `x` will agree on, written before anything is cut
        {"count": 2, "writes": 1.0, "nodes": writers, "start_ms": max(0, at - 90), "spread_ms": 20,
         **quorum},
        # acknowledged by `kept` and the joined node while `a` is down (or cut off)
        {"count": 10, "writes": 1.0, "nodes": writers, "start_ms": down + 20,
         "spread_ms": up - down - 100, **quorum},
        {"count": 20, "writes": 0.0, "nodes": [c], "start_ms": heal + 0.5,
         "spread_ms": 6 if relaxed else 3, **quorum}]
    latency = ({"dist": "exponential", "mean_ms": 4, "min_ms": 1} if relaxed
               else {"dist": "uniform", "min_ms": 1, "max_ms": 5})
    case["faults"] = {"latency": latency, "crashes": [],
                      "partitions": [{"isolate": [c], "start_ms": max(0, at - 50), "heal_ms": heal},
                                     {"isolate": sorted((c, x, a, kept)), "start_ms": heal,
                                      "heal_ms": heal + 3_000}]}
    done = finish = None
    for line in run_scenario(parse_scenario(case), seed, keep_trace=True).trace:
        parts = line.split(" ", 4)
        if done is None and parts[1] == "stream" and parts[2] == joiner and "done" in line:
            done = int(parts[0])
        if parts[1] == "commit" and "FINISH_JOIN" in line:
            finish = int(parts[0])
    if done is None or (not relaxed and (finish is None or finish > (down - 50) * 1_000_000)):
        return None
    cut = sorted((a, x)) if relaxed else [x]
    case["faults"]["partitions"].insert(1, {"isolate": cut, "start_ms": round(done / 1e6 + 0.3, 3),
                                            "heal_ms": heal})
    if not relaxed:
        case["faults"]["crashes"] = [{"node": a, "at_ms": down, "restart_ms": up}]
    return case


def seed_parity(case: dict[str, Any]) -> int:
    return len(case["topology"]["nodes"]) % 2


_NO_SPLIT = ("removenode-nothing-to-stream-hangs",)


__all__ = ["CMS_POLICY_SWITCHES", "biased", "seed_parity", "stale_coordinator", "stale_replicas"]
