"""The small interfaces a node and its parts are composed through (no part imports another).

- `World`: what a node needs from the simulated cluster around it (clock-driven queue, bus,
  decisions (impl/sim/decisions.py), trace, history, counters, the node ids, the hand-set CMS target, the apply observer).
- `Host`: what a node's parts (CMS acceptor/proposer/service/reconfiguration/election, log
  fetcher, submitter, and the data-path parts) need from the node that composes them.
  Part-to-part calls go through the narrow protocols below (`LogWants`, `Submits`, `Polls`),
  never through a concrete class, so that impl/ has no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from impl.engine import Executor
from impl.entry import Entry, Snapshot
from impl.history import History
from impl.messages import Message, SubmitResult
from impl.node.log import Disk, LocalLog
from impl.settings import Settings
from impl.sim.decisions import Decisions
from impl.sim.events import Event, EventQueue
from impl.trace import Trace
from observed.protocol import Event as ProtocolEvent
from observed.run import ApplyFailure


class Sends(Protocol):
    def send(self, src: str, dst: str, msg: Message) -> None: ...


class Simulated(Protocol):
    """What the cluster and each node both hand their parts: the run's settings, counters,
    message trace, history, decisions and metadata executor. Read-only members (properties),
    so that concrete classes match structurally."""

    @property
    def settings(self) -> Settings: ...

    @property
    def counters(self) -> dict[str, int]: ...

    @property
    def trace(self) -> Trace: ...

    @property
    def history(self) -> History: ...

    @property
    def decisions(self) -> Decisions: ...

    @property
    def executor(self) -> Executor: ...


class World(Simulated, Protocol):
    """What a node needs from the simulated cluster around it, besides `Simulated`."""

    @property
    def queue(self) -> EventQueue: ...

    @property
    def bus(self) -> Sends: ...

    @property
    def node_ids(self) -> list[str]: ...

    @property
    def protocol(self) -> Emits: ...

    @property
    def cms_target(self) -> tuple[str, ...] | None: ...

    @property
    def cms_rf(self) -> int:
        """The CMS's replication, the operator's choice (impl/cms/placement.py: POLICY, CURRENT
        or a size)."""
        ...

    def cms_target_reached(self, target: tuple[str, ...]) -> None:
        """The operator's `nodetool cms reconfigure` is done (the membership is `target`)."""

    @property
    def apply_failures(self) -> list[ApplyFailure]: ...

    def is_up(self, node_id: str) -> bool: ...

    def reachable(self, a: str, b: str) -> bool: ...


    def observe_apply(self, node_id: str, entry: Entry | None, snap: Snapshot | None) -> None: ...

    def skew_of(self, node_id: str) -> int: ...

    def operation_finished(self, node_id: str, op: str, outcome: str) -> None: ...

    def streamed(self, driver: str, op: str, sequence_node: str, excluded: str | None,
                 transfers: list[tuple[Any, str | None]]) -> None: ...


class LogWants(Protocol):
    """PeerLogFetcher's face: catch up to `epoch`, starting with `peer`."""

    def want(self, epoch: int, peer: str) -> None: ...


class Submits(Protocol):
    """Submitter's face: commit a transformation through the CMS; the entry id is returned."""

    def submit(self, transformation: str,
               callback: Callable[[SubmitResult], None] | None = None) -> str: ...


class Polls(Protocol):
    """ReconfigurationDriver's face: look again at whether the CMS needs a step."""

    def poll(self) -> None: ...


class Emits(Protocol):
    """ProtocolLog's face (impl/protocol.py)."""

    def emit(self, kind: type[ProtocolEvent], /, **fields: Any) -> None: ...


class StoresHints(Protocol):
    """HintsService's face (impl/node/hints.py)."""

    def store(self, target: str, keyspace: str, key: str, token: int, timestamp: int, value: int,
              reason: str) -> bool: ...


class Liveness(Protocol):
    """FailureDetector's face (impl/node/failure_detector.py): this node's view of its peers."""

    def is_alive(self, peer_id: str) -> bool: ...

    def heard_of(self, peer_id: str) -> bool: ...

    def downtime(self, peer_id: str) -> int: ...


class Host(Simulated, Protocol):
    """What a node's parts need from the node that composes them, besides `Simulated`."""

    @property
    def id(self) -> str: ...

    @property
    def index(self) -> int: ...

    @property
    def alive(self) -> bool: ...

    @property
    def world(self) -> World: ...

    @property
    def disk(self) -> Disk: ...

    @property
    def log(self) -> LocalLog: ...

    @property
    def fetcher(self) -> LogWants: ...

    @property
    def submitter(self) -> Submits: ...

    @property
    def reconfiguration(self) -> Polls: ...

    @property
    def failure_detector(self) -> Liveness: ...

    @property
    def hints(self) -> StoresHints: ...


    def send(self, dst: str, msg: Message) -> None: ...

    def timer(self, delay: int, fn: Callable[..., Any], *args: Any, work: bool = True) -> Event: ...

    def cancel(self, ev: object) -> None: ...

    def pick_cms_member(self, avoid: str = "") -> str: ...

    def sees_alive(self, peer: str) -> bool: ...

    def commit_and_push(self, entry: Entry) -> None: ...

    def next_request_id(self) -> int: ...
