"""Trace invariants: pure checkers over a simulated run's protocol trace (observed/protocol.py) and
the spec's placements per epoch — the rules that keep client histories safe, checked where they
are applied rather than only through the anomalies their breaking eventually causes.

- `check_barrier` (barrier.py): steps wait for Cassandra's ProgressBarrier;
- `check_fencing` (fencing.py): replicas serve only from coordinators their epoch checks admit;
- `check_quorum` (quorum.py): acknowledged requests met their level at the epochs they used;
- `check_streaming` (streaming.py): range movements keep acknowledged writes at their level;
- `check_durability` (durability.py): stale versus lost for acknowledged writes;

and the data-path components' own promises, over the events in the order the simulation took
them (each a check of the judge of its own, `promise: COMPONENT`):
- `check_repair` (repair.py): a completed repair session leaves its participants agreeing;
- `check_hints` (hints.py): a replayed hint applies its write where it belongs, and is deleted
  only once acknowledged;
- `check_read_repair` (read_repair.py): a blocking read repair writes the resolved cell to its
  plan before the read answers;
- `check_failure_detector` (failure_detector.py): convictions follow phi, revivals an echo.
"""

from checkers.protocol.barrier import BarrierSettings, check_barrier
from checkers.protocol.durability import DurabilityReport, LostWrite, StaleRead, check_durability
from checkers.protocol.failure_detector import DetectorSettings, check_failure_detector
from checkers.protocol.fencing import check_fencing
from checkers.protocol.hints import check_hints
from checkers.protocol.placements import Placements
from checkers.protocol.quorum import check_quorum
from checkers.protocol.read_repair import check_read_repair
from checkers.protocol.repair import check_repair
from checkers.protocol.streaming import check_streaming
from checkers.protocol.verdict import ProtocolVerdict, Violation

__all__ = ["BarrierSettings", "DetectorSettings", "DurabilityReport", "LostWrite", "Placements", "ProtocolVerdict",
           "StaleRead", "Violation", "check_barrier", "check_durability", "check_failure_detector", "check_fencing",
           "check_hints", "check_quorum", "check_read_repair", "check_repair", "check_streaming"]
