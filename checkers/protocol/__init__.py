"""Trace invariants: pure checkers over a simulated run's protocol trace (observed/protocol.py) and
the spec's placements per epoch — the rules that keep client histories safe, checked where they
are applied rather than only through the anomalies their breaking eventually causes.

- `check_barrier` (barrier.py): steps wait for Cassandra's ProgressBarrier;
- `check_fencing` (fencing.py): replicas serve only from coordinators their epoch checks admit;
- `check_quorum` (quorum.py): acknowledged requests met their level at the epochs they used;
- `check_streaming` (streaming.py): range movements keep acknowledged writes at their level;
- `check_durability` (durability.py): stale versus lost for acknowledged writes.
"""

from checkers.protocol.barrier import BarrierSettings, check_barrier
from checkers.protocol.durability import DurabilityReport, LostWrite, StaleRead, check_durability
from checkers.protocol.fencing import check_fencing
from checkers.protocol.placements import Placements
from checkers.protocol.quorum import check_quorum
from checkers.protocol.streaming import check_streaming
from checkers.protocol.verdict import ProtocolVerdict, Violation

__all__ = ["BarrierSettings", "DurabilityReport", "LostWrite", "Placements", "ProtocolVerdict", "StaleRead",
           "Violation", "check_barrier", "check_durability", "check_fencing", "check_quorum", "check_streaming"]
