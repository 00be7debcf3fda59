"""The spec as referee: its replay of a run's committed log (`SpecReplay`: the spec's metadata
after each epoch, and the first entry it refuses), the metadata it starts from (`spec_start`),
and its view of a metadata to compare a node's with (`spec_view`).

The judge's checks read a run through the replay; the stateful system machine keeps one that
grows with the log, step by step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from campaign.errors import BadInput
from campaign.formats.topology import parse_topology
from campaign.formats.transformations import parse_transformation
from checkers.linearizability.frozen import thaw
from checkers.logs import LogEntry
from impl.scenario import Scenario
from observed.frozen import FrozenMap, freeze, frozen_entries, frozen_ranges
from spec.fixes import execute as spec_execute
from spec.metadata import ClusterMetadata
from spec.nodes import NodeVersion
from spec.topology import NodeSpec, Topology
from spec.transformations import Rejected


def spec_start(scenario: Scenario) -> ClusterMetadata:
    """The spec's metadata before the first entry: the scenario's topology, or its gossip-era
    cluster (versions applied) when the scenario initializes the CMS. BadInput when the spec
    cannot take the scenario."""
    try:
        topology = parse_topology(json.loads(scenario.topology), "scenario topology")
    except BadInput as e:
        raise BadInput(f"cannot judge this scenario with the spec: {e}") from None
    init = scenario.initialize
    if init is None:
        return ClusterMetadata.initial(topology)
    versions = dict(init.versions)
    nodes = tuple(NodeSpec(id=n.id, location=n.location, tokens=n.tokens,
                           version=NodeVersion(release=versions.get(n.id, n.version.release)))
                  for n in topology.nodes)
    return ClusterMetadata.initial(Topology(nodes=nodes, keyspaces=topology.keyspaces), cms_initialized=False)


class SpecReplay:
    """The spec's metadata after each epoch of one committed log, computed once and kept;
    `extend` replays further entries (the stateful machine replays the log as it grows)."""

    def __init__(self, start: ClusterMetadata, log: Sequence[LogEntry] = (),
                 fixes: frozenset[str] = frozenset()) -> None:
        self.fixes = fixes
        """The proposed fixes (spec/fixes.py) the run had, if any."""
        self.start = start
        self.states: dict[int, ClusterMetadata] = {start.epoch: start}
        self.refused: list[str] = []
        self.final = start
        self.extend(log)

    def extend(self, log: Iterable[LogEntry]) -> None:
        """Replay entries after `final` (nothing more once one was refused)."""
        m = self.final
        for entry in log:
            if self.refused:
                break
            if entry.epoch != m.epoch + 1:
                self.refused.append(f"epoch {entry.epoch}: log skips from {m.epoch}")
                break
            result = spec_execute(parse_transformation(thaw(entry.transformation), f"epoch {entry.epoch}"), m,
                                  self.fixes)
            if isinstance(result, Rejected):
                self.refused.append(f"epoch {entry.epoch}: impl committed {entry.kind} ({entry.entry_id}) "
                                    f"that the spec rejects: {result.reason}")
                break
            m = result.metadata
            self.states[m.epoch] = m
        self.final = m

    def justify(self, upto: tuple[LogEntry, ...], transformation: Any, reason: str) -> bool:
        """A rejection decided at the metadata of `upto` is right iff the spec rejects it too."""
        epoch = upto[-1].epoch if upto else self.start.epoch
        state = self.states.get(epoch)
        if state is None:  # past a refused entry: the refinement already reports it
            return True
        return isinstance(spec_execute(parse_transformation(thaw(transformation)), state, self.fixes), Rejected)


def spec_view(m: ClusterMetadata) -> FrozenMap:
    """The spec's counterpart of impl's `metadata_view` (the same frozen JSON value)."""
    nodes = {n.id: [n.state.value, list(m.token_map.tokens_of(n.id))] for n in m.directory}
    placements = frozen_entries({  # freeze(placements_json(m.placements)), built directly
        ks: frozen_entries({"reads": frozen_ranges((r.left, r.right, g) for r, g in p.reads),
                            "writes": frozen_ranges((r.left, r.right, g) for r, g in p.writes)})
        for ks, p in m.placements.items()})
    view: FrozenMap = freeze({"epoch": m.epoch, "placements": placements,
                              "nodes": nodes, "cms": [sorted(m.cms.reads), sorted(m.cms.writes)]})
    return view


__all__ = ["SpecReplay", "spec_start", "spec_view"]
