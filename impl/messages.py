"""Every message nodes exchange. Each is a frozen value carrying its sender and the sender's
epoch (the highest epoch it has applied when it sent the message): a receiver that sees a
higher epoch catches up (impl/node/fetcher.py).

Ballots are `(round, node index)` tuples: totally ordered, and unique per proposer.
"""

from __future__ import annotations

from attrs import frozen

from impl.entry import Entry, Snapshot

Ballot = tuple[int, int]
NO_BALLOT: Ballot = (-1, -1)


@frozen(kw_only=True)
class Message:
    sender: str
    epoch: int

    def brief(self) -> str:
        return type(self).__name__


# --- Paxos for one log position (slot = epoch), between a proposer and the CMS acceptors ---


@frozen(kw_only=True)
class Prepare(Message):
    slot: int
    ballot: Ballot

    def brief(self) -> str:
        return f"Prepare s{self.slot} b{self.ballot[0]}.{self.ballot[1]}"


@frozen(kw_only=True)
class Promise(Message):
    """The acceptor promised `ballot` for `slot`; it reports what it accepted there, or the
    committed entry if `slot` is already committed in its log."""

    slot: int
    ballot: Ballot
    accepted_ballot: Ballot
    accepted: Entry | None
    committed: Entry | None

    def brief(self) -> str:
        return f"Promise s{self.slot} b{self.ballot[0]}.{self.ballot[1]}"


@frozen(kw_only=True)
class Accept(Message):
    slot: int
    ballot: Ballot
    value: Entry

    def brief(self) -> str:
        return f"Accept s{self.slot} b{self.ballot[0]}.{self.ballot[1]} {self.value.entry_id}"


@frozen(kw_only=True)
class Accepted(Message):
    slot: int
    ballot: Ballot

    def brief(self) -> str:
        return f"Accepted s{self.slot} b{self.ballot[0]}.{self.ballot[1]}"


@frozen(kw_only=True)
class Nack(Message):
    """Refusal of a Prepare or Accept: the acceptor promised a higher ballot, or the slot is
    already committed (`committed` then carries the entry)."""

    slot: int
    ballot: Ballot
    promised: Ballot
    committed: Entry | None

    def brief(self) -> str:
        return f"Nack s{self.slot} p{self.promised[0]}.{self.promised[1]}"


@frozen(kw_only=True)
class Commit(Message):
    """A committed entry: to the CMS acceptors, and pushed (best effort) to every node."""

    entry: Entry

    def brief(self) -> str:
        return f"Commit {self.entry.brief()}"


# --- Event submission ---


@frozen(kw_only=True)
class Submit(Message):
    """A commit request from `origin` (forwarded by a non-CMS node, or sent directly)."""

    origin: str
    entry_id: str
    transformation: str
    hops: int = 0  # times forwarded by a node that was not a CMS member

    def brief(self) -> str:
        return f"Submit {self.entry_id}"


@frozen(kw_only=True)
class SubmitResult(Message):
    """`outcome`: "committed" (at `committed_epoch`), "rejected" (`reason`, decided against the
    metadata at `decided_epoch`), or "not_cms" (ask another member)."""

    entry_id: str
    outcome: str
    committed_epoch: int = -1
    reason: str = ""
    decided_epoch: int = -1

    def brief(self) -> str:
        return f"SubmitResult {self.entry_id} {self.outcome}"


# --- Catching up ---


@frozen(kw_only=True)
class FetchLog(Message):
    """Entries with epoch > `after`, please (TCM_FETCH_CMS_LOG / TCM_FETCH_PEER_LOG)."""

    request_id: int
    after: int

    def brief(self) -> str:
        return f"FetchLog r{self.request_id} after {self.after}"


@frozen(kw_only=True)
class LogEntries(Message):
    """The reply: optionally a snapshot, then consecutive entries after it (or after `after`)."""

    request_id: int
    snapshot: Snapshot | None
    entries: tuple[Entry, ...]

    def brief(self) -> str:
        s = f" snap{self.snapshot.epoch}" if self.snapshot else ""
        return f"LogEntries r{self.request_id}{s} n{len(self.entries)}"


@frozen(kw_only=True)
class Gossip(Message):
    """Periodic status to a random live peer (Cassandra's GossipDigestSyn): the sender's epoch
    and every heartbeat `(node, generation, version)` it knows (impl/node/failure_detector.py)."""

    heartbeats: tuple[tuple[str, int, int], ...] = ()


@frozen(kw_only=True)
class GossipReply(Message):
    """The answer to every Gossip (Cassandra's GossipDigestAck, with the Ack2 folded in: the
    receiver's epoch and every heartbeat it knows)."""

    heartbeats: tuple[tuple[str, int, int], ...] = ()


@frozen(kw_only=True)
class Echo(Message):
    """ECHO_REQ: a peer whose newer heartbeat arrived is marked UP only when this is answered
    (Gossiper.markAlive); the answer proves a working channel."""


@frozen(kw_only=True)
class EchoReply(Message):
    """The answer to an Echo (Gossiper.realMarkAlive on receipt)."""


# --- CMS reconfiguration: streaming the log to a joining member ---


@frozen(kw_only=True)
class StreamLog(Message):
    """To a node added to the CMS write set: catch up to at least `upto`, then reply."""

    upto: int


@frozen(kw_only=True)
class Streamed(Message):
    upto: int


# --- Initialization from a gossip-era cluster (Election) ---


@frozen(kw_only=True)
class ElectionPrepare(Message):
    """The initiator's view of the cluster metadata (its digest), to be compared by the peer."""

    digest: str


@frozen(kw_only=True)
class ElectionAck(Message):
    matches: bool


@frozen(kw_only=True)
class DiscoverRequest(Message):
    """TCM_DISCOVER_REQ: who do you know (or, once there is one, who is the CMS)?"""


@frozen(kw_only=True)
class DiscoverResponse(Message):
    nodes: tuple[str, ...]
    cms: tuple[str, ...] = ()
    """Non-empty: the CMS exists (Cassandra's CMS_ONLY answer), and these are its members."""


# --- The data path: coordinator <-> replica (Cassandra's MUTATION_REQ / READ_REQ verbs) ---

# replica errors a coordinator can get back (Cassandra's exceptions of the same names)
INVALID_ROUTING = "InvalidRouting"
COORDINATOR_BEHIND = "CoordinatorBehind"
UNKNOWN_KEYSPACE = "UnknownKeyspace"


@frozen(kw_only=True)
class Mutation(Message):
    """Write `value` at `timestamp` for (keyspace, key); `repair` marks a read repair."""

    request_id: int
    keyspace: str
    key: str
    token: int
    timestamp: int
    value: int
    repair: bool = False

    def brief(self) -> str:
        kind = "ReadRepair" if self.repair else "Mutation"
        return f"{kind} q{self.request_id} {self.keyspace}.{self.key}={self.value}@{self.timestamp}"


@frozen(kw_only=True)
class MutationAck(Message):
    request_id: int
    error: str = ""

    def brief(self) -> str:
        return f"MutationAck q{self.request_id}{' ' + self.error if self.error else ''}"


@frozen(kw_only=True)
class Read(Message):
    request_id: int
    keyspace: str
    key: str
    token: int

    def brief(self) -> str:
        return f"Read q{self.request_id} {self.keyspace}.{self.key}"


@frozen(kw_only=True)
class ReadResponse(Message):
    """The replica's newest (timestamp, value) for the key (-1, None: never written)."""

    request_id: int
    timestamp: int = -1
    value: int | None = None
    error: str = ""

    def brief(self) -> str:
        if self.error:
            return f"ReadResponse q{self.request_id} {self.error}"
        return f"ReadResponse q{self.request_id} {self.value}@{self.timestamp}"


# --- Topology operations: progress barrier and streaming ---


@frozen(kw_only=True)
class WatermarkRequest(Message):
    """Progress barrier: what epoch have you applied? (Cassandra's TCM_CURRENT_EPOCH_REQ)"""

    request_id: int


@frozen(kw_only=True)
class WatermarkResponse(Message):
    request_id: int


@frozen(kw_only=True)
class StreamRequest(Message):
    """To a source replica: send `destination` every key of `keyspace` whose token lies in
    one of `ranges` ((left, right] pairs)."""

    request_id: int
    keyspace: str
    ranges: tuple[tuple[int, int], ...]
    destination: str
    driver: str

    def brief(self) -> str:
        return f"StreamRequest s{self.request_id} {self.keyspace} -> {self.destination}"


@frozen(kw_only=True)
class StreamData(Message):
    request_id: int
    keyspace: str
    rows: tuple[tuple[str, int, int], ...]  # (key, timestamp, value)
    driver: str

    def brief(self) -> str:
        return f"StreamData s{self.request_id} {self.keyspace} rows{len(self.rows)}"


@frozen(kw_only=True)
class StreamComplete(Message):
    """The destination stored a stream: tell the operation's driver."""

    request_id: int

    def brief(self) -> str:
        return f"StreamComplete s{self.request_id}"
