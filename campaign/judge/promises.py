"""What a scenario's client workloads let a check hold them to, by the levels they write and read
at: with every write at ALL (W + R > RF for any read level), acknowledged writes must be on
every replica at a quiet end and seen by every later read; writes at ANY on keys of their own
promise nothing a read could check; reads at ONE with writes at ALL promise a regular register,
not linearizability.
"""

from __future__ import annotations

from typing import Any

from impl.scenario import Scenario


def reading(scenario: Scenario) -> list[Any]:
    """The client workloads but those writing at ANY only, on keys no other workload uses."""
    def apart(c: Any) -> bool:
        return c.write_cl == ("ANY",) and c.writes == 1.0 and sum(
            1 for o in scenario.clients if o.key_prefix == c.key_prefix) == 1

    return [c for c in scenario.clients if not apart(c)]


def writes_at_all(scenario: Scenario) -> bool:
    """Every client write at ALL — leaving out write-only workloads at ANY on keys of their own
    (a write at ANY promises nothing a read could check)."""
    return bool(reading(scenario)) and all(c.write_cl == ("ALL",) for c in reading(scenario))


def judged_keys(scenario: Scenario) -> frozenset[str]:
    """The keys of the workloads `reading` keeps."""
    return frozenset(f"{c.key_prefix}{i}" for c in reading(scenario) for i in range(c.keys))


def reads_at_one_writes_at_all(scenario: Scenario) -> bool:
    return writes_at_all(scenario) and all(c.read_cl == ("ONE",) for c in reading(scenario))


__all__ = ["judged_keys", "reading", "reads_at_one_writes_at_all", "writes_at_all"]
