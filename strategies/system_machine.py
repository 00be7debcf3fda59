"""`SystemMachine`: Hypothesis's stateful testing over the simulated cluster (impl/cluster.py).

Past the 400-line guideline on purpose: a RuleBasedStateMachine is read as one piece (its rules,
preconditions and invariants side by side, as in Hypothesis's own examples); the checks it makes
are the judge's (campaign/judge/checks/), not copies.

Rules carry Cassandra's and the CEP's names: node-driven operations (`bootstrap` — join,
`decommission` — leave, `move`, `replace`, `removenode`) and the operator's `cancel_sequence`,
client reads and writes at the drawn consistency levels, schema changes racing on a node,
`crash` / `restart`, `partition` / `heal`, `drop_messages` / `delay_messages` /
`calm_network`, and `tick` / `let_time_pass` for virtual time. Each rule adds its event at
the current virtual time through the cluster's step API (`Cluster.begin_operation`, `client`,
`crash`, ...) and lets 10 ms of virtual time pass. Operations, cancels, crashes and restarts
take `pick`: an index into the nodes they can act on now, so no step is spent on a refusal.

Invariants after every step: one per incremental check of the judge (campaign/judge/checks/,
`Check.incremental`), run on what the cluster has observed so far (`Cluster.observe()`) with a
spec replay that grows with the log — the very checks a campaign's judge runs, so the machine
and the campaign cannot disagree about a run: conflicting epochs, apply failures, the log
invariants (the spec justifying every rejection), the commit history, the clients (kv model,
with Cassandra's weaker promises), the trace invariants (barrier, fencing, quorum, streaming),
the spec's refinement of the log, each node's metadata against the spec at its epoch, and
durability (stale reads with writes at ALL; lost writes whenever the cluster is quiet). Named
`judge_NN_<check>`: Hypothesis runs invariants in name order, and the number keeps the judge's
(most fundamental first). The checks that need a finished run (the final metadata's invariants,
liveness, the CMS's size) do not run here: the machine's cluster never finishes.

Swarm testing: `boot` draws which rule families and which operations are enabled, and the
preconditions keep the others off, so one example crashes nodes a lot and the next never.
`target()` steers toward epoch lag between live nodes and a CMS at its bare majority.

Known findings steered clear of (docs/stateful.md): `replace` and `removenode` stream each
range from one remaining replica (Cassandra's BootstrapAndReplace / RemoveNode), so an
acknowledged write held by the removed node and one other replica can be lost; when either is
enabled, the machine writes and reads at ALL with RF >= 2 (every acknowledged
write is on every replica), and it only replaces or removes a node that is down (as Cassandra
requires) and never restarts it. Switches (impl/bugs.py) and proposed fixes are `boot`
arguments, so a printed counterexample replays them: `SystemMachine.planted(...)` makes a
machine class that plants them.

A failing example prints as a program: `state = SystemMachine()` followed by the rules; it runs
after `from strategies.system_machine import SystemMachine`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import currently_in_test_context
from hypothesis import event as _event
from hypothesis import strategies as st
from hypothesis import target as _target
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from campaign.formats.scenario import parse_scenario
from campaign.judge.check import Check, CheckResult
from campaign.judge.checks import CHECKS
from campaign.judge.context import Context, log_entry
from campaign.judge.replay import SpecReplay, spec_start
from campaign.run.variants import engine_for
from checkers.logs import LogEntry, NodeLog
from impl.bugs import check_names
from impl.bus import Latency, NetworkFaults
from impl.client_workload import ClientOp
from impl.cluster import Cluster
from impl.data.partitioner import token as token_of
from impl.entry import Entry, canonical_json
from impl.scenario import Operation
from impl.sim.clock import ms_to_ns
from observed.run import Observed
from strategies.operations import schema_change_docs

NODES = ("n1", "n2", "n3", "n4", "n5")
SPARES = ("j1", "j2")
"""Processes that exist from the start but are not in the metadata: joining and replacing nodes."""
EVERYONE = NODES + SPARES
KEYS = ("k0", "k1", "k2")
DCS = ("dc1", "dc2")

FAMILIES = ("operations", "cancel", "schema", "crash", "partition", "loss", "delay")
"""Rule families the swarm turns on or off per example. Client reads and writes are always on:
they are how a data-path bug shows (with them in the swarm, `target()`'s epoch-lag search
pushed them out of three examples in four)."""
OPERATIONS = ("join", "leave", "move", "replace", "remove")
CL_PAIRS = (("QUORUM", "QUORUM"), ("ALL", "ONE"), ("LOCAL_QUORUM", "LOCAL_QUORUM"),
            ("EACH_QUORUM", "EACH_QUORUM"))
"""(read, write) levels whose read and write sets intersect (reads at ONE are left out: a write
that failed part way is seen by one read and not a later one — Cassandra semantics)."""
STREAMS_FROM_ONE = frozenset({"replace", "remove"})
SCHEMA_CHANGES = schema_change_docs(("ks1",), DCS, new_keyspace=False)
"""Schema changes on ks1 from the shared generator (strategies/cases.py), whose small name pools
make the CEP's race (CREATE TABLE with a user type against DROP TYPE) come up often."""

KEY_TOKENS = tuple(token_of(k) for k in KEYS)
TOKENS = st.one_of(st.sampled_from(KEY_TOKENS), st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1))
"""Where a join or a move lands: half the time on a client key's token (the node takes that key
over, so its data must move: what the data-path checks look at), else anywhere on the ring."""
DEFAULT_LATENCY = Latency(dist="uniform", a=1.0, b=5.0)
PICK = st.integers(0, 7)
STEP_MS = 10
"""Virtual time each rule lets pass after adding its event (`tick` and `let_time_pass` more)."""


def event(value: str) -> None:
    """`hypothesis.event`, and nothing when a printed program runs outside a test."""
    if currently_in_test_context():
        _event(value)


def target(observation: float, label: str) -> None:
    """`hypothesis.target`, and nothing when a printed program runs outside a test."""
    if currently_in_test_context():
        _target(observation, label=label)


class SystemMachine(RuleBasedStateMachine):
    """The simulated cluster driven step by step; see the module's docstring."""

    PLANTED: frozenset[str] = frozenset()
    """Switches (impl/bugs.py) this class plants: `boot` draws exactly this value."""
    FIXES: frozenset[str] = frozenset()
    FOCUS: tuple[frozenset[str], frozenset[str]] | None = None
    """(rule families, operations) every example has on, and no others (`focused`); None: drawn."""
    """Proposed fixes (spec/fixes.py) for spec and impl: `boot` draws exactly this value."""

    @classmethod
    def focused(cls, families: frozenset[str], operations: frozenset[str] = frozenset()) -> type[SystemMachine]:
        """A machine class whose examples all have exactly these rule families and operations on
        (the cluster, levels and steps still drawn): aimed at one part, as `tcmcheck fuzz --focus`
        aims a campaign. Its printed programs construct `SystemMachine()` (the values are
        `boot`'s)."""
        assert families and families <= frozenset(FAMILIES), families
        assert operations <= frozenset(OPERATIONS), operations
        return type("SystemMachine", (cls,), {"FOCUS": (frozenset(families), frozenset(operations)),
                                              "__module__": cls.__module__})

    @classmethod
    def planted(cls, mutants: frozenset[str] = frozenset(),
                fixes: frozenset[str] = frozenset()) -> type[SystemMachine]:
        """A machine class planting `mutants` and running with `fixes` (printed programs still
        construct `SystemMachine()`: the values are `boot` arguments)."""
        check_names(mutants)
        return type("SystemMachine", (cls,), {"PLANTED": frozenset(mutants), "FIXES": frozenset(fixes),
                                              "__module__": cls.__module__})

    def __init__(self) -> None:
        super().__init__()
        self.cluster: Cluster | None = None
        self.families: frozenset[str] = frozenset()
        self.operations: frozenset[str] = frozenset()
        self.read_cl = self.write_cl = "QUORUM"
        self.value = 0
        self.partitions: list[str] = []
        self.loss = 0.0
        self.latency = DEFAULT_LATENCY
        self.reorder = 0.0
        self.gone: set[str] = set()  # replaced or removed: down for good
        self.fixes: frozenset[str] = frozenset()
        self.dc_of: dict[str, str] = {}
        # what the invariants have seen (they only look again when something happened)
        # what the checks have seen (they only look again when something happened)
        self._seen: tuple[int, int] = (-1, -1)
        self._results: dict[str, CheckResult] = {}
        self._context: Context | None = None
        self._replay: SpecReplay | None = None
        self._log_entries: dict[Entry, LogEntry] = {}
        self._outcomes = 0
        self._clients_seen: set[int] = set()
        self._lag = 0
        self._margin = 9

    # ------------------------------------------------------------ set-up

    @initialize(
        nodes=st.integers(3, 5),
        dcs=st.integers(1, 2),
        tokens=st.lists(st.integers(-(2**60) + 1, 2**60 - 1), min_size=5, max_size=5),
        rf=st.integers(1, 3),
        cms=st.sampled_from(["auto", 1, 3]),
        snapshot_interval=st.sampled_from([100, 10, 3]),
        # (drawn, or the class's focus: flatmap so that the printed program shows the value)
        families=st.runner().flatmap(lambda m: st.frozensets(st.sampled_from(FAMILIES), min_size=1)
                                     if m.FOCUS is None else st.just(m.FOCUS[0])),
        operations=st.runner().flatmap(lambda m: st.frozensets(st.sampled_from(OPERATIONS), min_size=1)
                                       if m.FOCUS is None else st.just(m.FOCUS[1])),
        levels=st.sampled_from(CL_PAIRS),
        # why flatmap to just: the printed program shows the value, not this expression
        mutants=st.runner().flatmap(lambda m: st.just(m.PLANTED)),
        fixes=st.runner().flatmap(lambda m: st.just(m.FIXES)),
    )
    def boot(self, nodes: int, dcs: int, tokens: list[int], rf: int, cms: str | int,
             snapshot_interval: int, families: frozenset[str], operations: frozenset[str],
             levels: tuple[str, str], mutants: frozenset[str] = frozenset(),
             fixes: frozenset[str] = frozenset()) -> None:
        self.families, self.operations, self.fixes = families, operations, fixes
        ids = NODES[:nodes]
        dc_of = self.dc_of = {n: DCS[i % dcs] for i, n in enumerate(ids)}
        risky = "operations" in families and operations & STREAMS_FROM_ONE
        if risky:
            # steer clear of the single-source streaming finding (module docstring)
            levels, rf = ("ALL", "ALL"), max(rf, 2)
        elif levels[0] == "LOCAL_QUORUM" and dcs > 1:
            levels = ("QUORUM", "QUORUM")  # LOCAL_QUORUM pairs intersect only within one DC
        self.read_cl, self.write_cl = levels
        if dcs == 1:
            kv: dict[str, Any] = {"class": "SimpleStrategy", "replication_factor": rf}
        else:
            kv = {"class": "NetworkTopologyStrategy",
                  **{dc: min(rf, sum(1 for n in ids if dc_of[n] == dc)) for dc in DCS[:dcs]}}
        doc = {
            # why spread: node i owns token (i - 2) * 2**61 moved by less than 2**60, so tokens
            # never collide (a unique-list draw shrinks badly)
            "topology": {"nodes": [{"id": n, "dc": dc_of[n], "rack": "r1", "tokens": [(i - 2) * 2**61 + tokens[i]]}
                                   for i, n in enumerate(ids)],
                         "keyspaces": [{"name": "kv", "replication": kv},
                                       {"name": "ks1", "replication": {"class": "SimpleStrategy",
                                                                       "replication_factor": 1}}]},
            "cms": {"policy": "auto"} if cms == "auto" else {"size": min(int(cms), nodes)},
            "settings": {"snapshot_interval": snapshot_interval, "end_time_ms": 86_400_000},
            "mutants": sorted(mutants),
        }
        scenario = parse_scenario(doc)
        self.cluster = Cluster(scenario, 0, engine=engine_for(mutants, fixes), spares=SPARES)
        self._replay = SpecReplay(spec_start(scenario), fixes=fixes)
        for f in FAMILIES:
            event(f"family {f}: {'on' if f in families else 'off'}")
        self._run(0)

    # ------------------------------------------------------------ helpers

    @property
    def c(self) -> Cluster:
        assert self.cluster is not None
        return self.cluster

    def on(self, family: str) -> bool:
        return family in self.families

    def op_on(self, op: str) -> bool:
        return "operations" in self.families and op in self.operations

    def up(self, node: str) -> bool:
        return self.c.is_up(node)

    def exists(self, node: str) -> bool:
        """Whether `node` is a process of this cluster (n4 and n5 are not in a 3-node one)."""
        if node in self.c.disks:
            return True
        event("skipped: no such node")
        return False

    def _run(self, ms: float) -> None:
        """Run the cluster `ms` of virtual time on (0: the events of this instant)."""
        c = self.c
        c.run_until(c.clock.now + ms_to_ns(ms))
        self._steer()

    def _network(self) -> None:
        self.c.set_network(NetworkFaults(loss=self.loss, latency=self.latency, reorder=self.reorder,
                                         reorder_extra_ms=20.0))
        self._run(STEP_MS)

    def _begin(self, op: str, node: str, *, target: str | None = None,
               tokens: tuple[int, ...] = (), location: tuple[str, str] | None = None) -> None:
        if not self.up(node):
            event(f"{op} skipped: node down")
            return
        self.c.begin_operation(Operation(op=op, node=node, at=self.c.clock.now, target=target,
                                         tokens=tokens, location=location))
        self._run(STEP_MS)

    # ------------------------------------------------------------ operations (node-driven)
    # why picks: an operation is drawn among the nodes it can start on now (`pick` indexes the
    # sorted candidates, modulo their number), so no step is wasted on a refused request

    def _newest(self) -> Any:
        """The metadata of the most advanced live node (what an operator's nodetool would show)."""
        live = [n for n in self.c.nodes.values() if n is not None]
        return max(live, key=lambda n: n.log.applied).log.metadata if live else None

    def _idle(self, node: str) -> bool:
        op = self.c.disks[node].operation
        return self.up(node) and (op is None or op.get("outcome") is not None)

    def _state(self, node: str) -> str:
        meta = self._newest()
        return "" if meta is None or node not in meta.directory else str(meta.node_state(node).value)

    def joinable(self) -> list[str]:
        return [n for n in SPARES if self._idle(n) and self._state(n) in ("", "REGISTERED")]

    def joined_idle(self) -> list[str]:
        return [n for n in self.c.node_ids if self._idle(n) and self._state(n) == "JOINED"]

    def joined_down(self) -> list[str]:
        return [n for n in self.c.node_ids if not self.up(n) and self._state(n) == "JOINED"]

    def running(self) -> list[str]:
        return [n for n in self.c.node_ids if self.c.disks[n].operation is not None
                and self.c.disks[n].operation.get("outcome") is None]

    @staticmethod
    def _pick(candidates: list[str], pick: int) -> str:
        return sorted(candidates)[pick % len(candidates)]

    @precondition(lambda self: self.op_on("join") and self.joinable())
    @rule(pick=PICK, token=TOKENS, dc=st.sampled_from(DCS))
    def bootstrap(self, pick: int, token: int, dc: str) -> None:
        """A new node registers, then PREPARE_JOIN .. FINISH_JOIN (BootstrapAndJoin)."""
        self._begin("join", self._pick(self.joinable(), pick), tokens=(token,),
                    location=(dc if dc in self.dc_of.values() else DCS[0], "r1"))

    @precondition(lambda self: self.op_on("leave") and self.joined_idle())
    @rule(pick=PICK)
    def decommission(self, pick: int) -> None:
        """PREPARE_LEAVE .. FINISH_LEAVE driven by the leaving node (UnbootstrapAndLeave)."""
        self._begin("leave", self._pick(self.joined_idle(), pick))

    @precondition(lambda self: self.op_on("move") and self.joined_idle())
    @rule(pick=PICK, token=TOKENS)
    def move(self, pick: int, token: int) -> None:
        """PREPARE_MOVE .. FINISH_MOVE (Move)."""
        self._begin("move", self._pick(self.joined_idle(), pick), tokens=(token,))

    @precondition(lambda self: self.op_on("replace") and self.joinable() and self.joined_down())
    @rule(pick=PICK, replaced=PICK)
    def replace(self, pick: int, replaced: int) -> None:
        """A new node takes a down node's tokens (BootstrapAndReplace): Cassandra replaces only
        a node that is down, with a node of its DC (replace_address)."""
        target = self._pick(self.joined_down(), replaced)
        self.gone.add(target)
        dc = self._newest().node_location(target)[0] if target in self._newest().directory else DCS[0]
        self._begin("replace", self._pick(self.joinable(), pick), target=target, location=(str(dc), "r1"))

    @precondition(lambda self: self.op_on("remove") and self.joined_idle() and self.joined_down())
    @rule(pick=PICK, removed=PICK)
    def removenode(self, pick: int, removed: int) -> None:
        """`nodetool removenode` of a down node, run by a live one (RemoveNode)."""
        target = self._pick(self.joined_down(), removed)
        self.gone.add(target)
        self._begin("remove", self._pick(self.joined_idle(), pick), target=target)

    @precondition(lambda self: "operations" in self.families and self.on("cancel") and self.running())
    @rule(pick=PICK)
    def cancel_sequence(self, pick: int) -> None:
        """The operator cancels a running operation: the JMX cancel
        (CMSOperations.cancelInProgressSequences, no liveness check), from the operation's node
        when it runs, else from the first live node."""
        self.c.cancel_operation(self._pick(self.running(), pick))
        self._run(STEP_MS)

    # ------------------------------------------------------------ clients and schema

    @rule(node=st.sampled_from(EVERYONE), key=st.sampled_from(KEYS))
    def client_write(self, node: str, key: str) -> None:
        if not self.exists(node):
            return
        self.value += 1
        self.c.client(ClientOp(at=self.c.clock.now, node=node, f="write", keyspace="kv", key=key,
                               value=self.value, cl=self.write_cl))
        self._run(STEP_MS)

    @rule(node=st.sampled_from(EVERYONE), key=st.sampled_from(KEYS))
    def client_read(self, node: str, key: str) -> None:
        if not self.exists(node):
            return
        self.c.client(ClientOp(at=self.c.clock.now, node=node, f="read", keyspace="kv", key=key,
                               value=None, cl=self.read_cl))
        self._run(STEP_MS)

    @precondition(lambda self: self.on("schema"))
    @rule(node=st.sampled_from(NODES), change=SCHEMA_CHANGES)
    def schema_change(self, node: str, change: dict[str, Any]) -> None:
        """The CEP's race: CREATE TABLE using a user type against DROP TYPE, from any node."""
        if not self.exists(node):
            return
        self.c.submit(node, canonical_json({"kind": "SCHEMA_CHANGE", "change": change}))
        self._run(STEP_MS)

    # ------------------------------------------------------------ faults

    def live(self) -> list[str]:
        return [n for n in self.c.node_ids if self.up(n)]

    def restartable(self) -> list[str]:
        return [n for n in self.c.node_ids if not self.up(n) and n not in self.gone]

    @precondition(lambda self: self.on("crash") and self.live())
    @rule(pick=PICK)
    def crash(self, pick: int) -> None:
        self.c.crash(self._pick(self.live(), pick))
        self._run(STEP_MS)

    @precondition(lambda self: self.on("crash") and self.restartable())
    @rule(pick=PICK)
    def restart(self, pick: int) -> None:
        """A crashed node comes back from its disk (never one replaced or removed)."""
        self.c.restart(self._pick(self.restartable(), pick))
        self._run(STEP_MS)

    @precondition(lambda self: self.on("partition"))
    @rule(isolated=st.frozensets(st.sampled_from(EVERYONE), min_size=1, max_size=3))
    def partition(self, isolated: frozenset[str]) -> None:
        """Cut `isolated` off from the others (together they can still talk)."""
        name = f"m{len(self.partitions)}"
        self.partitions.append(name)
        self.c.partition(name, (tuple(sorted(n for n in isolated if n in self.c.disks)),))
        self._run(STEP_MS)

    @precondition(lambda self: self.on("partition"))
    @rule()
    def heal(self) -> None:
        for name in self.partitions:
            self.c.heal(name)
        self.partitions = []
        self._run(STEP_MS)

    @precondition(lambda self: self.on("loss"))
    @rule(loss=st.sampled_from([0.05, 0.2, 0.5, 1.0]))
    def drop_messages(self, loss: float) -> None:
        """From now on each message is lost with probability `loss` (1.0: all of them)."""
        self.loss = loss
        self._network()

    @precondition(lambda self: self.on("delay"))
    @rule(max_ms=st.sampled_from([20, 200, 2000]), reorder=st.sampled_from([0.0, 0.3]))
    def delay_messages(self, max_ms: int, reorder: float) -> None:
        """From now on messages take 1..`max_ms` ms (and reorder more with `reorder`)."""
        self.latency = Latency(dist="uniform", a=1.0, b=float(max_ms))
        self.reorder = reorder
        self._network()

    @precondition(lambda self: self.on("loss") or self.on("delay"))
    @rule()
    def calm_network(self) -> None:
        self.loss, self.latency, self.reorder = 0.0, DEFAULT_LATENCY, 0.0
        self._network()

    # ------------------------------------------------------------ time

    @rule(ms=st.sampled_from([1, 3, 10, 30]))
    def tick(self, ms: int) -> None:
        self._run(ms)

    @rule(ms=st.sampled_from([100, 1000, 5000, 30000]))
    def let_time_pass(self, ms: int) -> None:
        self._run(ms)

    def teardown(self) -> None:
        # why here: `target` takes one score per label per example (the worst step's)
        if self.cluster is not None:
            target(float(self._lag), label="epoch lag between live nodes")
            target(float(-self._margin), label="CMS quorum margin (0: a bare majority)")

    # ------------------------------------------------------------ invariants

    # ------------------------------------------------------------ the judge's checks

    def judged(self, check: Check) -> CheckResult:
        """What `check` finds in what the cluster has observed so far (looked at again only
        when something happened: the checks cost more than the steps)."""
        if self.cluster is None:
            return CheckResult()
        c = self.c
        seen = (c.trace.total, c.clock.now)
        if seen != self._seen:
            self._seen, self._results = seen, {}
            observed = c.observe()
            self._context = Context(c.scenario, observed, fixes=self.fixes, timeout_s=20.0, replay=self.replay,
                                    logs=self._node_logs(observed))
        if check.name not in self._results:
            assert self._context is not None
            self._results[check.name] = check(self._context)
        return self._results[check.name]

    def _node_logs(self, observed: Observed) -> tuple[NodeLog, ...]:
        memo = self._log_entries
        return tuple(NodeLog(node=n.id, entries=tuple(memo[e] if e in memo else memo.setdefault(e, log_entry(e))
                                                      for e in n.entries)) for n in observed.nodes)

    @property
    def replay(self) -> SpecReplay:
        assert self._replay is not None
        return self._replay

    def _steer(self) -> None:
        """Statistics and `target()` observations for Hypothesis (after every step)."""
        c = self.c
        for call in c.history.clients:
            if call.outcome is not None and call.process not in self._clients_seen:
                self._clients_seen.add(call.process)
                event(f"client {call.f} {call.outcome}")
        live = [n for n in c.nodes.values() if n is not None]
        if not live:
            return
        epochs = [n.log.applied for n in live]
        self._lag = max(self._lag, max(epochs) - min(epochs))
        meta = max(live, key=lambda n: n.log.applied).log.metadata
        members = sorted(meta.cms_members())
        if members:
            up = sum(1 for m in members if c.is_up(m))
            margin = up - (len(members) // 2 + 1)
            if margin >= 0:
                self._margin = min(self._margin, margin)
        for ended in c.operation_outcomes[self._outcomes:]:
            event(f"{ended.op} {ended.outcome.split(':')[0]}")
        self._outcomes = len(c.operation_outcomes)


def _invariant(check: Check) -> Any:
    """One `@invariant` that asserts `check` finds nothing, named after it (Hypothesis runs
    invariants in the order of their names: the number keeps `CHECKS`' order, most fundamental
    first)."""

    def judge_check(self: SystemMachine) -> None:
        result = self.judged(check)
        if not result.valid:
            # every other check that fails on the same observation too, as the judge would list them
            also = [r.causes[0].text for c in CHECKS if c.incremental and c is not check
                    for r in (self.judged(c),) if not r.valid]
            raise AssertionError(result.causes[0].text + "".join(f"; also failing now: {t}" for t in also))

    name = f"judge_{CHECKS.index(check):02d}_{check.name.replace('-', '_')}"
    # the code object's name too: a traceback (and so the stateful run's cause) names the check
    judge_check.__code__ = judge_check.__code__.replace(co_name=name, co_qualname=name)
    judge_check.__name__ = judge_check.__qualname__ = name
    judge_check.__doc__ = check.doc
    return invariant()(judge_check)


for _check in CHECKS:
    if _check.incremental:
        setattr(SystemMachine, _invariant(_check).__name__, _invariant(_check))


__all__ = ["SystemMachine"]  # what a printed counterexample needs
