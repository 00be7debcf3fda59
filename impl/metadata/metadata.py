"""`Metadata`: impl's immutable cluster metadata at one epoch.

Fields are never mutated; a transformation builds the next `Metadata` with `evolve`, sharing every
field it does not change (a schema change shares the token map and placements; a START step shares
the directory and schema). Dict-valued fields are treated as immutable by convention.

Placements are keyed by replication params (`ReplicationParams.key`), as Cassandra keys
`DataPlacements`: keyspaces with equal replication share one placement.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from attrs import evolve, field, frozen

from impl.metadata.errors import InvalidTopology
from impl.metadata.placement import Placement, Replicas
from impl.metadata.records import DEFAULT_VERSION, CMSState, NodeRecord, Sequence
from impl.metadata.replication import BadReplication, ReplicationParams, natural_replicas
from impl.metadata.ring import TokenMap
from impl.metadata.schema import Keyspace
from spec.nodes import NodeState
from spec.tokens import MAX_TOKEN, MIN_TOKEN, Range

FORMAT = 1


@frozen(kw_only=True, eq=False)
class Metadata:
    epoch: int
    directory: dict[str, NodeRecord]
    token_map: TokenMap
    placements: dict[str, Placement]
    """Placement key (replication params) -> placement."""
    keyspaces: dict[str, Keyspace]
    sequences: dict[str, Sequence]
    """In-progress sequences by node; their `locked` ranges are the `LockedRanges`."""
    cms: CMSState
    cms_initialized: bool = True
    migration_initiator: str | None = None
    last_modified: dict[str, int] = field(factory=dict)
    """Core metadata key (impl.metadata.keys) -> the epoch a transformation last modified it
    (each Cassandra MetadataValue's lastModified); absent means epoch 0. Set by `execute`."""
    _digest: list[str] = field(factory=list, repr=False, alias="_digest")

    # -- constructors ---------------------------------------------------------------------

    @classmethod
    def from_topology(cls, doc: Mapping[str, Any]) -> Metadata:
        """Epoch 0 from TOPOLOGY.json: every node JOINED, first node by id the one CMS member."""
        nodes, tm = _parse_nodes(doc, default_state=NodeState.JOINED)
        keyspaces = _parse_keyspaces(doc)
        first = sorted(nodes)[:1]
        return cls(
            epoch=0,
            directory=nodes,
            token_map=tm,
            placements=placements_for(keyspaces.values(), tm),
            keyspaces=keyspaces,
            sequences={},
            cms=CMSState(reads=frozenset(first), writes=frozenset(first)),
        )

    @classmethod
    def from_gossip(
        cls,
        doc: Mapping[str, Any],
        versions: Mapping[str, str] | None = None,
        states: Mapping[str, str] | None = None,
        initiated_by: str | None = None,
    ) -> Metadata:
        """A pre-TCM cluster as gossip describes it: no CMS yet (`cms_initialized` False).

        Node entries may carry `"version"` and `"state"`; `versions` / `states` override them.
        Only JOINED, LEAVING and MOVING nodes' tokens enter the token map. `initiated_by` is a
        node that already started the migration (a second initiator is refused).
        """
        nodes, _ = _parse_nodes(doc, default_state=NodeState.JOINED)
        raw_tokens = {str(n["id"]): list(n.get("tokens", [])) for n in doc.get("nodes", [])}
        for nid, release in (versions or {}).items():
            if nid not in nodes:
                raise InvalidTopology(f"version given for unknown node {nid}")
            nodes[nid] = evolve(nodes[nid], version=str(release))
        for nid, state in (states or {}).items():
            if nid not in nodes:
                raise InvalidTopology(f"state given for unknown node {nid}")
            try:
                nodes[nid] = evolve(nodes[nid], state=NodeState(state))
            except ValueError:
                raise InvalidTopology(f"unknown node state {state!r} for {nid}") from None
        owned = [
            (t, nid)
            for nid, rec in nodes.items()
            if rec.state in (NodeState.JOINED, NodeState.LEAVING, NodeState.MOVING)
            for t in raw_tokens[nid]
        ]
        tm = TokenMap.build(owned, {n: r.location for n, r in nodes.items()})
        keyspaces = _parse_keyspaces(doc)
        if initiated_by is not None and initiated_by not in nodes:
            raise InvalidTopology(f"migration initiator {initiated_by} is not a node")
        return cls(
            epoch=0,
            directory=nodes,
            token_map=tm,
            placements=placements_for(keyspaces.values(), tm),
            keyspaces=keyspaces,
            sequences={},
            cms=CMSState(reads=frozenset(), writes=frozenset()),
            cms_initialized=False,
            migration_initiator=initiated_by,
        )

    def next(self, **changes: Any) -> Metadata:
        """The metadata at the next epoch with `changes`; everything else is shared."""
        changes["epoch"] = self.epoch + 1
        changes["_digest"] = []
        return evolve(self, **changes)

    # -- lookups the simulator uses -------------------------------------------------------

    def placement_of(self, keyspace: str) -> Placement:
        return self.placements[self.keyspaces[keyspace].replication.key]

    def read_replicas(self, keyspace: str, token: int) -> tuple[str, ...]:
        return tuple(sorted(self.placement_of(keyspace).read_replicas(token)))

    def write_replicas(self, keyspace: str, token: int) -> tuple[str, ...]:
        return tuple(sorted(self.placement_of(keyspace).write_replicas(token)))

    def pending_replicas(self, keyspace: str, token: int) -> tuple[str, ...]:
        """Write replicas that are not read replicas (a write needs one more ack for each)."""
        p = self.placement_of(keyspace)
        return tuple(sorted(p.write_replicas(token) - p.read_replicas(token)))

    def node_location(self, node_id: str) -> tuple[str, str]:
        """(dc, rack) of a registered node; KeyError when unknown."""
        return self.directory[node_id].location

    def node_state(self, node_id: str) -> NodeState:
        return self.directory[node_id].state

    def tokens_of(self, node_id: str) -> tuple[int, ...]:
        return self.token_map.tokens_of(node_id)

    def cms_members(self) -> tuple[str, ...]:
        """Full CMS members (the read set), sorted; commits need a quorum of these."""
        return tuple(sorted(self.cms.reads))

    def cms_write_members(self) -> tuple[str, ...]:
        """Members that receive the log (the write set, a superset of the read set)."""
        return tuple(sorted(self.cms.writes))

    def keyspace_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.keyspaces))

    def locked_ranges(self) -> dict[str, dict[str, tuple[Range, ...]]]:
        """Node -> placement key -> ranges locked by its sequence."""
        return {
            n: {k: tuple(Range(lo, hi) for lo, hi in rs) for k, rs in s.locked.items()}
            for n, s in sorted(self.sequences.items())
        }

    def in_progress(self) -> dict[str, tuple[str, str]]:
        """Node -> (sequence kind, next step)."""
        return {n: (s.kind, s.next_step) for n, s in sorted(self.sequences.items())}

    def barrier_groups(self, node_id: str) -> list[tuple[str, Range, Replicas, Replicas]]:
        """For the progress barrier of `node_id`'s sequence: per keyspace and locked range,
        the read and write groups of every current range intersecting it. Cassandra's
        `ReplicaGroups.matchRange` takes the range *containing* it, but Cassandra locks the
        pieces PREPARE's split makes (`PlacementTransitionPlan`: toSplit's additions) where our
        metadata locks the range before the split (and the merged range where a leave merges,
        as Cassandra's toMerged): containment over our locks would wait for nobody on a join's
        split range, which Cassandra waits for. Intersection waits for at least what Cassandra
        does (docs/faithfulness.md)."""
        seq = self.sequences.get(node_id)
        if seq is None:
            return []
        out = []
        for ks_name, ks in sorted(self.keyspaces.items()):
            key = ks.replication.key
            p = self.placements[key]
            for lo, hi in seq.locked.get(key, ()):
                locked = Range(lo, hi)
                for left, right, r, w in p.ranges():
                    rng = Range(left, right)
                    if rng.intersects(locked):
                        out.append((ks_name, rng, r, w))
        return out

    def placements_json(self) -> dict[str, Any]:
        """DESIGN's per-epoch `placements` value: {KEYSPACE: {"reads": [...], "writes": [...]}}."""
        out: dict[str, Any] = {}
        cache: dict[str, Any] = {}
        for name in sorted(self.keyspaces):
            key = self.keyspaces[name].replication.key
            if key not in cache:
                cache[key] = self.placements[key].groups_json()
            out[name] = cache[key]
        return out

    # -- snapshots --------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "epoch": self.epoch,
            "cms_initialized": self.cms_initialized,
            "migration_initiator": self.migration_initiator,
            "directory": [self.directory[n].to_json() for n in sorted(self.directory)],
            "tokens": [[t, o] for t, o in self.token_map.items()],
            "placements": {k: self.placements[k].to_json() for k in sorted(self.placements)},
            "keyspaces": {n: self.keyspaces[n].to_json() for n in sorted(self.keyspaces)},
            "sequences": {n: self.sequences[n].to_json() for n in sorted(self.sequences)},
            "cms": self.cms.to_json(),
            "last_modified": dict(sorted(self.last_modified.items())),
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Metadata:
        if doc.get("format") != FORMAT:
            raise ValueError(f"unknown metadata snapshot format {doc.get('format')!r}")
        directory = {d["id"]: NodeRecord.from_json(d) for d in doc["directory"]}
        tm = TokenMap.build(
            [(int(t), str(o)) for t, o in doc["tokens"]],
            {n: r.location for n, r in directory.items()},
        )
        return cls(
            epoch=int(doc["epoch"]),
            directory=directory,
            token_map=tm,
            placements={k: Placement.from_json(v) for k, v in doc["placements"].items()},
            keyspaces={n: Keyspace.from_json(n, v) for n, v in doc["keyspaces"].items()},
            sequences={n: Sequence.from_json(v) for n, v in doc["sequences"].items()},
            cms=CMSState.from_json(doc["cms"]),
            cms_initialized=bool(doc["cms_initialized"]),
            migration_initiator=doc.get("migration_initiator"),
            last_modified={str(k): int(v) for k, v in doc.get("last_modified", {}).items()},
        )

    def digest(self) -> str:
        """sha256 of the canonical JSON of `to_json()`; equal metadata, equal digest."""
        if not self._digest:
            text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
            self._digest.append(hashlib.sha256(text.encode()).hexdigest())
        return self._digest[0]

    def __repr__(self) -> str:
        return (
            f"Metadata(epoch={self.epoch}, nodes={len(self.directory)}, "
            f"tokens={len(self.token_map)}, keyspaces={sorted(self.keyspaces)}, "
            f"sequences={sorted(self.sequences)})"
        )


# -- helpers ---------------------------------------------------------------------------------


def placement_from_scratch(params: ReplicationParams, tm: TokenMap) -> Placement:
    return Placement.at_rest(tm.tokens, natural_replicas(params, tm))


def placements_for(keyspaces: Iterable[Keyspace], tm: TokenMap) -> dict[str, Placement]:
    out: dict[str, Placement] = {}
    for ks in keyspaces:
        key = ks.replication.key
        if key not in out:
            out[key] = placement_from_scratch(ks.replication, tm)
    return out


def _is_token(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and MIN_TOKEN <= value <= MAX_TOKEN


def _parse_nodes(
    doc: Mapping[str, Any], *, default_state: NodeState
) -> tuple[dict[str, NodeRecord], TokenMap]:
    if not isinstance(doc, Mapping):
        raise InvalidTopology("topology must be a JSON object")
    raw = doc.get("nodes", [])
    if not isinstance(raw, list):
        raise InvalidTopology("topology 'nodes' must be a list")
    nodes: dict[str, NodeRecord] = {}
    owner_of: dict[int, str] = {}
    for entry in raw:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str) or not entry["id"]:
            raise InvalidTopology(f"node entry needs a non-empty string id: {entry!r}")
        nid = entry["id"]
        if nid in nodes:
            raise InvalidTopology(f"duplicate node id {nid}")
        dc, rack = entry.get("dc", "dc1"), entry.get("rack", "r1")
        if not isinstance(dc, str) or not dc or not isinstance(rack, str) or not rack:
            raise InvalidTopology(f"node {nid}: dc and rack must be non-empty strings")
        tokens = entry.get("tokens", [])
        if not isinstance(tokens, list):
            raise InvalidTopology(f"node {nid}: tokens must be a list")
        for t in tokens:
            if not _is_token(t):
                raise InvalidTopology(
                    f"node {nid}: bad token {t!r} (tokens are integers in (-2**63, 2**63-1])"
                )
            if t in owner_of:
                raise InvalidTopology(f"duplicate token {t} (nodes {owner_of[t]} and {nid})")
            owner_of[t] = nid
        version = entry.get("version", DEFAULT_VERSION)
        state = default_state
        if "state" in entry:
            try:
                state = NodeState(entry["state"])
            except ValueError:
                raise InvalidTopology(f"node {nid}: unknown state {entry['state']!r}") from None
        if state is NodeState.JOINED and not tokens and default_state is NodeState.JOINED:
            raise InvalidTopology(f"node {nid}: a JOINED node needs at least one token")
        nodes[nid] = NodeRecord(id=nid, dc=dc, rack=rack, state=state, version=str(version))
    tm = TokenMap.build(
        [(t, o) for t, o in owner_of.items()], {n: r.location for n, r in nodes.items()}
    )
    return nodes, tm


def _parse_keyspaces(doc: Mapping[str, Any]) -> dict[str, Keyspace]:
    raw = doc.get("keyspaces", [])
    if not isinstance(raw, list):
        raise InvalidTopology("topology 'keyspaces' must be a list")
    out: dict[str, Keyspace] = {}
    for entry in raw:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise InvalidTopology(f"keyspace entry needs a string name: {entry!r}")
        name = entry["name"]
        if name in out:
            raise InvalidTopology(f"duplicate keyspace {name}")
        try:
            params = ReplicationParams.parse(entry.get("replication"))
        except BadReplication as e:
            raise InvalidTopology(f"keyspace {name}: {e}") from None
        out[name] = Keyspace(name=name, replication=params, tables={}, types={})
    return out
