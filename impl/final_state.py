"""The end of a run as a `RunResult` (impl/run_result.py): what the nodes hold, which operations
are still in progress and whether they could finish, what each replica of every client key holds,
which hints are still stored — everything the judge compares with the spec and the histories.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impl.data.partitioner import token as token_of
from impl.node.progress_barrier import satisfied
from impl.run_result import NodeResult, RunResult, disk_applied, disk_chain

if TYPE_CHECKING:
    from impl.node.node import Node

Cluster = Any
"""impl/cluster.py's Cluster (not imported: it imports this module)."""


def run_result(c: Cluster, quiescent: bool) -> RunResult:
    unfinished = []
    for nid in c.node_ids:
        live = c.nodes.get(nid)
        if live is not None:
            c.hold(nid, live.log.metadata, live.log.applied, "end")
            st = live.operation.state
            if live.operation.busy and st is not None:
                unfinished.append((nid, str(st["op"]), could_finish(c, live, st)))
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
    replica_cells, final_cells = _cells(c)
    return RunResult(
        seed=c.seed, trace_hash=c.trace.hexdigest(), trace_events=c.trace.total,
        final_epoch=final, end_time=c.clock.now, quiescent=quiescent,
        nodes=tuple(nodes), history=tuple(c.history.ops),
        counters=tuple(sorted((k, v) for k, v in c.counters.items() if v)),
        conflicts=tuple(c.conflicts), apply_failures=tuple(c.apply_failures),
        trace=tuple(c.trace.lines), operations=tuple(c.operation_outcomes),
        holdings=tuple(c.holdings), epoch_regressions=tuple(c.epoch_regressions),
        unfinished=tuple(unfinished), replica_cells=replica_cells,
        decisions=tuple(c.decisions.taken), streams=tuple(c.stream_records),
        installs=tuple(c.installs),
        protocol=tuple(c.protocol.events), final_cells=final_cells, hints_left=_hints_left(c))


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


Cells = tuple[tuple[str, str, tuple[tuple[str, int, int], ...]], ...]
FinalCells = tuple[tuple[str, str, tuple[tuple[str, int, int, bool, bool], ...]], ...]


def _cells(c: Cluster) -> tuple[Cells, FinalCells]:
    """Per client key: what each live read replica holds (`replica_cells`), and what every write
    replica holds on its disk, up or down (`final_cells`), in the most advanced live node's
    metadata."""
    live = [n for n in c.nodes.values() if n is not None]
    if not live or not c.scenario.clients:
        return (), ()
    meta = max(live, key=lambda n: n.log.applied).log.metadata
    if not hasattr(meta, "read_replicas"):
        return (), ()
    keys = sorted({op.key for op in c.history.ops if op.key is not None})
    replica_cells = []
    final_cells = []
    for ks in sorted({cw.keyspace for cw in c.scenario.clients}):
        if ks not in getattr(meta, "keyspaces", {}):
            continue
        for key in keys:
            token = token_of(key)
            reads = meta.read_replicas(ks, token)
            cells = []
            held = []
            for r in meta.write_replicas(ks, token):
                cell = c.disks[r].data.get((ks, key)) if r in c.disks else None
                ts, value = cell if cell is not None else (-1, -1)
                up = c.nodes.get(r) is not None
                held.append((r, ts, value, up, r in reads))
                if up and r in reads:
                    cells.append((r, ts, value))
            replica_cells.append((ks, key, tuple(cells)))
            final_cells.append((ks, key, tuple(held)))
    return tuple(replica_cells), tuple(final_cells)


def _hints_left(c: Cluster) -> tuple[tuple[str, str, str, str, int, int], ...]:
    out = []
    for holder in c.node_ids:
        for target, hints in sorted(c.disks[holder].hints.items()):
            out += [(holder, target, h.keyspace, h.key, h.timestamp, h.value) for h in hints]
    return tuple(out)
