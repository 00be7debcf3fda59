"""What `placements` and `prove` share: reading TOPOLOGY.json and OPS.json, and what a
rejected operation means.

A step the spec rejects means the operations cannot be run as written: that is bad input for
every command (exit 2, one line naming the OPS file, the step, its epoch and the spec's
reason), never a verdict — `prove` does not prove a prefix, `placements` prints the epochs
committed before the rejection and still exits 2.
"""

from __future__ import annotations

from campaign.errors import BadInput
from campaign.formats.jsonio import in_file, parsing
from campaign.formats.ops import load_operations
from campaign.formats.topology import load_topology
from spec.operations import Operation, OperationRun
from spec.topology import Topology


def load_inputs(topology_path: str, ops_path: str | None) -> tuple[Topology, tuple[Operation, ...]]:
    topo = load_topology(topology_path)
    if ops_path is None:
        return topo, ()
    try:
        with parsing(ops_path):
            return topo, load_operations(ops_path, topo)
    except BadInput as e:
        raise in_file(e, ops_path) from None


def check_replicas(run: OperationRun, ops_path: str | None) -> None:
    """Refuse a run in which some keyspace has a range with no replica at all.

    why: only a NetworkTopologyStrategy naming datacenters without nodes gives that (a
    TOPOLOGY.json refuses it; a CREATE/ALTER KEYSPACE in OPS.json reaches the spec, which
    accepts it where Cassandra's `validateExpectedOptions` would not). Quorums over no replicas
    are vacuous, so placements would show empty groups and prove would say "proved" for them."""
    for m, t in zip(run.states, run.transformations, strict=True):
        for keyspace, placement in m.placements.items():
            for groups in (placement.reads, placement.writes):
                for r, replicas in groups:
                    if not replicas:
                        what = f"after {t.kind} " if t is not None else ""
                        raise BadInput(f"{ops_path or 'topology'}: keyspace {keyspace!r} has no replica for "
                                       f"range ({r.left}, {r.right}] at epoch {m.epoch} {what}(its replication "
                                       "names no datacenter that holds a node; Cassandra refuses such a keyspace)")


def rejection(run: OperationRun, ops_path: str | None) -> BadInput | None:
    """The BadInput for a run the spec stopped, or None when every step committed."""
    if run.rejection is None:
        return None
    kind = run.rejected.kind if run.rejected is not None else "?"
    return BadInput(f"{ops_path}: the spec rejected {kind} after epoch {run.final.epoch}: {run.rejection}")


__all__ = ["check_replicas", "load_inputs", "rejection"]
