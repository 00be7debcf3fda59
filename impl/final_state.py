"""A run's observations (observed/run.py's `Observed`), read off the cluster: what the nodes
hold, which operations are still in progress and whether they could finish, what each write
replica of every client key holds, which hints are still stored — at the end of a run, or at any
moment of it (the stateful machine judges what has been observed so far after every step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impl.data.partitioner import token as token_of
from impl.node.progress_barrier import satisfied
from impl.views import disk_applied, disk_chain
from observed.cells import KeyCells, ReplicaCell, StoredHint
from observed.run import Holding, NodeResult, Observed, Unfinished

if TYPE_CHECKING:
    from impl.node.node import Node

Cluster = Any
"""impl/cluster.py's Cluster (not imported: it imports this module)."""


def observed(c: Cluster, quiescent: bool, *, end: bool = True) -> Observed:
    """What the run observed. `end`: the run is over, and each live node's metadata is recorded
    as held at the end (`Cluster.hold`); else the live nodes' views are read without recording
    anything, so that observing a running cluster never changes it."""
    unfinished = []
    now: list[Holding] = []
    regressions: list[str] = []
    for nid in c.node_ids:
        live = c.nodes.get(nid)
        if live is None:
            continue
        if end:
            c.hold(nid, live.log.metadata, live.log.applied, "end")
        else:
            held = c.view(nid, live.log.metadata, live.log.applied, "now")
            now += held[0]
            regressions += held[1]
        st = live.operation.state
        if live.operation.busy and st is not None:
            unfinished.append(Unfinished(node=nid, op=str(st["op"]), could_finish=could_finish(c, live, st)))
    nodes = []
    final = 0
    for nid in c.node_ids:
        disk = c.disks[nid]
        live = c.nodes.get(nid)
        applied = live.log.applied if live is not None else disk_applied(disk)
        chain = live.log.chain if live is not None else disk_chain(disk)
        final = max(final, applied)
        nodes.append(NodeResult(
            id=nid, up=live is not None, applied_epoch=applied, log_hash=chain,
            first_epoch=disk.base.epoch + 1,
            entries=tuple(disk.entries[e] for e in sorted(disk.entries)),
            snapshot_epochs=tuple(s.epoch for s in disk.snapshots)))
    return Observed(
        seed=c.seed, trace_hash=c.trace.hexdigest(), trace_events=c.trace.total,
        final_epoch=final, end_time=c.clock.now, quiescent=quiescent,
        nodes=tuple(nodes), clients=c.history.clients, commits=c.history.commits,
        counters=tuple(sorted((k, v) for k, v in c.counters.items() if v)),
        conflicts=tuple(c.conflicts), apply_failures=tuple(c.apply_failures),
        trace=tuple(c.trace.lines), operations=tuple(c.operation_outcomes),
        holdings=(*c.holdings, *now), epoch_regressions=(*c.epoch_regressions, *regressions),
        unfinished=tuple(unfinished), decisions=tuple(c.decisions.taken), streams=tuple(c.stream_records),
        installs=tuple(c.installs), protocol=tuple(c.protocol.events), cells=_cells(c), hints=_hints(c))


def could_finish(c: Cluster, node: Node, st: dict[str, Any]) -> bool:
    """Whether the live nodes meet the operation's barrier at the lowest level it may relax to."""
    meta = node.log.metadata
    if not hasattr(meta, "barrier_groups"):
        return False
    excluded = st["target"] if st["op"] in ("replace", "remove") else None
    groups = [(frozenset(r) | frozenset(w)) - {excluded}
              for _, _, r, w in meta.barrier_groups(st["seq_node"])]
    up = {n for n in c.node_ids if c.is_up(n)}

    def dc_of(n: str) -> str:
        return str(meta.node_location(n)[0]) if n in meta.directory else ""

    return satisfied(c.settings.barrier_min_consistency, groups, up, dc_of, dc_of(st["seq_node"]))


def _cells(c: Cluster) -> tuple[KeyCells, ...]:
    """Per client key, what every write replica holds on its disk, up or down, in the most
    advanced live node's metadata."""
    live = [n for n in c.nodes.values() if n is not None]
    # (the keyspaces the clients used: a scenario's workloads, or what a driver's step API sent)
    keyspaces = sorted({cw.keyspace for cw in c.scenario.clients} | {call.keyspace for call in c.history.clients})
    if not live or not keyspaces:
        return ()
    meta = max(live, key=lambda n: n.log.applied).log.metadata
    if not hasattr(meta, "read_replicas"):
        return ()
    keys = c.history.client_keys()
    out = []
    for ks in keyspaces:
        if ks not in getattr(meta, "keyspaces", {}):
            continue
        for key in keys:
            token = token_of(key)
            reads = meta.read_replicas(ks, token)
            held = []
            for r in meta.write_replicas(ks, token):
                cell = c.disks[r].data.get((ks, key)) if r in c.disks else None
                ts, value = cell if cell is not None else (-1, -1)
                held.append(ReplicaCell(replica=r, timestamp=ts, value=value, up=c.nodes.get(r) is not None,
                                        read_replica=r in reads))
            out.append(KeyCells(keyspace=ks, key=key, cells=tuple(held)))
    return tuple(out)


def _hints(c: Cluster) -> tuple[StoredHint, ...]:
    out = []
    for holder in c.node_ids:
        for target, hints in sorted(c.disks[holder].hints.items()):
            out += [StoredHint(holder=holder, target=target, keyspace=h.keyspace, key=h.key, timestamp=h.timestamp,
                         value=h.value) for h in hints]
    return tuple(out)


__all__ = ["could_finish", "observed"]
