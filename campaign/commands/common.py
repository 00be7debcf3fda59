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


def rejection(run: OperationRun, ops_path: str | None) -> BadInput | None:
    """The BadInput for a run the spec stopped, or None when every step committed."""
    if run.rejection is None:
        return None
    kind = run.rejected.kind if run.rejected is not None else "?"
    return BadInput(f"{ops_path}: the spec rejected {kind} after epoch {run.final.epoch}: {run.rejection}")


__all__ = ["load_inputs", "rejection"]
