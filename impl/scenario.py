"""A simulation scenario as frozen values (parsed from JSON by campaign/formats/scenario.py).

Times are virtual nanoseconds. Topology and transformations are kept as canonical JSON text:
the metadata engine reads them, the simulator only carries them.
"""

from __future__ import annotations

from attrs import frozen

from impl.bus import NetworkFaults
from impl.settings import Settings


@frozen(kw_only=True)
class Submission:
    node: str
    at: int
    transformation: str


@frozen(kw_only=True)
class Workload:
    """Generated submissions: `count` transformations of `kind` ("schema" — keyspaces, tables
    and types with racing names, plus REGISTERs of new node ids), from `nodes` (all when
    empty), at times uniform in [start, start + spread)."""

    kind: str = "schema"
    count: int = 100
    start: int = 0
    spread: int = 1_000_000_000
    nodes: tuple[str, ...] = ()
    names: int = 4  # size of each name pool: smaller pools race more
    only: tuple[int, ...] | None = None
    """Submit only the generated transformations with these indices (a shrunk workload)."""


@frozen(kw_only=True)
class ClientWorkload:
    """Generated client operations (impl/client_workload.py): `count` reads and writes of
    `keys` keys of `keyspace` at times uniform in [start, start + spread), each sent to a
    random node of `nodes` (all when empty), a write with probability `writes`, at a
    consistency level drawn from `read_cl` / `write_cl`."""

    keyspace: str
    count: int = 200
    start: int = 0
    spread: int = 10_000_000_000
    keys: int = 5
    writes: float = 0.5
    read_cl: tuple[str, ...] = ("QUORUM",)
    write_cl: tuple[str, ...] = ("QUORUM",)
    nodes: tuple[str, ...] = ()
    only: tuple[int, ...] | None = None
    """Issue only the generated operations with these indices (a shrunk workload)."""
    key_prefix: str = "k"
    """Keys are `{key_prefix}0 .. {key_prefix}{keys-1}` (a workload on keys of its own)."""


@frozen(kw_only=True)
class Operation:
    """A topology operation the node itself drives (impl/node/operation.py): `op` one of
    join, leave, move, replace, remove, assassinate, started at `at`. `node` is the node that runs it (the
    joining or replacing node, the leaving or moving node, or for remove and assassinate the
    node that asks for it); `target` the replaced, removed or assassinated node; `tokens` for join and move; `location`
    (dc, rack) of a joining or replacing node, which exists as a process from the start but
    is not in the metadata until it registers."""

    op: str
    node: str
    at: int
    target: str | None = None
    tokens: tuple[int, ...] = ()
    location: tuple[str, str] | None = None


@frozen(kw_only=True)
class Cancel:
    """An operator cancels `node`'s in-progress operation at `at` (impl/node/operator.py):
    `how` "jmx" (CMSOperations.cancelInProgressSequences; `kind` the sequence kind expected,
    None: whatever it is) or "abortbootstrap" (`nodetool abortbootstrap`: cancel, then
    unregister); `by` the node the command runs on (None: the operation's node for jmx when it
    runs, else the first live node; for abortbootstrap the first live node other than it)."""

    node: str
    at: int
    how: str = "jmx"
    by: str | None = None
    kind: str | None = None


@frozen(kw_only=True)
class Repair:
    """`nodetool repair -full KEYSPACE` at `at` (impl/node/repair.py): on `node`, or on every
    range's lowest-id live read replica; `range` a sub-range (-st/-et)."""

    at: int
    keyspace: str
    node: str | None = None
    range: tuple[int, int] | None = None


@frozen(kw_only=True)
class Crash:
    node: str
    at: int
    restart: int | None = None


@frozen(kw_only=True)
class Partition:
    groups: tuple[tuple[str, ...], ...]
    start: int
    heal: int | None = None


@frozen(kw_only=True)
class CmsChange:
    """Set the CMS membership target by hand at time `at` (the driver moves towards it)."""

    at: int
    members: tuple[str, ...]


@frozen(kw_only=True)
class Initialize:
    """Start from a gossip-era cluster (no CMS) and initialize the CMS from `initiator`.

    `versions` / `states` feed `Metadata.from_gossip` for every node; `views` give some nodes
    a different gossip view (a different TOPOLOGY.json), to make peers disagree."""

    initiator: str
    at: int = 0
    ignore: tuple[str, ...] = ()
    versions: tuple[tuple[str, str], ...] = ()
    states: tuple[tuple[str, str], ...] = ()
    views: tuple[tuple[str, str], ...] = ()
    seeds: tuple[str, ...] = ()
    discovery_rounds: int = 0
    """> 0: no scripted initiator; every node runs Cassandra's Discovery from `at` (rounds of
    TCM_DISCOVER_REQ to the seeds and the nodes it knows, for at least `discovery_timeout`
    and until the discovered set is unchanged for this many rounds), and the lowest id it
    discovered nominates itself (Election over the discovered peers)."""
    discovery_timeout: int = 0


@frozen(kw_only=True)
class Scenario:
    topology: str
    cms_size: int | None = None  # None: the CEP's sizing policy; 0: leave the CMS as it starts
    cms_members: tuple[str, ...] | None = None  # by hand; overrides cms_size
    cms_reconfigure_at: int = 0
    """With the sizing policy: when the operator runs the first `nodetool cms reconfigure` (the
    CMS starts with one member)."""
    submissions: tuple[Submission, ...] = ()
    workloads: tuple[Workload, ...] = ()
    crashes: tuple[Crash, ...] = ()
    partitions: tuple[Partition, ...] = ()
    cms_changes: tuple[CmsChange, ...] = ()
    initialize: Initialize | None = None
    network: NetworkFaults = NetworkFaults()
    settings: Settings = Settings()
    clients: tuple[ClientWorkload, ...] = ()
    operations: tuple[Operation, ...] = ()
    cancels: tuple[Cancel, ...] = ()
    clock_skew: tuple[tuple[str, int], ...] = ()  # node -> ns added to its write timestamps
    repairs: tuple[Repair, ...] = ()
    decisions: tuple[tuple[str, int, int], ...] | None = None
    """A decision list (impl/sim/decisions.py): when given, the run draws every decision from
    it (the default where it has none) instead of from the seed, which then only generates
    the workloads."""
    decision_seed: int | None = None
    """With a decision list: the seed of the RNG that draws the decisions the list has no entry
    for (instead of their defaults). Schedule shrinking tries other schedules this way while
    the workloads, generated from the run's seed, stay the same."""
