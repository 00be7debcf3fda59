"""`execute(metadata, transformation)`: the one entry point a CMS member calls to commit an entry.

Pure: it reads the JSON transformation (docs/transformations-json.md), runs the guards of its
kind against `metadata`, and returns `Accepted(next metadata at epoch + 1, kind)` or
`Rejected(reason)`. Malformed input is `Rejected("malformed: ...")`, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import evolve

from impl.metadata import cms_changes, directory_changes, schema_changes, sequences
from impl.metadata.keys import stamp
from impl.metadata.metadata import Metadata
from impl.metadata.results import Accepted, Malformed, Rejected, Result


def _trigger_snapshot(m: Metadata, t: Mapping[str, Any]) -> Result:
    return Accepted(metadata=m.next(), kind="TRIGGER_SNAPSHOT")


Handler = Callable[[Metadata, Mapping[str, Any]], Result]

HANDLERS: dict[str, Handler] = {
    "REGISTER": directory_changes.register,
    "UNREGISTER": directory_changes.unregister,
    "STARTUP": directory_changes.startup,
    "ALTER_TOPOLOGY": directory_changes.alter_topology,
    "PREPARE_JOIN": sequences.prepare_join,
    "PREPARE_LEAVE": sequences.prepare_leave,
    "PREPARE_MOVE": sequences.prepare_move,
    "PREPARE_REPLACE": sequences.prepare_replace,
    "CANCEL_SEQUENCE": sequences.cancel_sequence,
    "UNSAFE_JOIN": sequences.unsafe_join,
    "ASSASSINATE": sequences.assassinate,
    "SCHEMA_CHANGE": schema_changes.schema_change,
    "PREPARE_CMS_RECONFIGURATION": cms_changes.prepare_cms_reconfiguration,
    "ADVANCE_CMS_RECONFIGURATION": cms_changes.advance_cms_reconfiguration,
    "CANCEL_CMS_RECONFIGURATION": cms_changes.cancel_cms_reconfiguration,
    "TRIGGER_SNAPSHOT": _trigger_snapshot,
    "INITIALIZE_CMS": cms_changes.initialize_cms,
}
for _step in ("START", "MID", "FINISH"):
    for _op in ("JOIN", "LEAVE", "MOVE", "REPLACE"):
        HANDLERS[f"{_step}_{_op}"] = sequences.step

KINDS = frozenset(HANDLERS)


def execute(metadata: Metadata, transformation: Mapping[str, Any]) -> Accepted | Rejected:
    if not isinstance(transformation, Mapping):
        return Rejected("malformed: a transformation must be a JSON object")
    kind = transformation.get("kind")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        return Rejected(f"malformed: unknown transformation kind {kind!r}")
    if not metadata.cms_initialized and kind != "INITIALIZE_CMS":
        return Rejected(f"{kind}: the CMS is not initialized (cluster still on gossip)")
    try:
        result = handler(metadata, transformation)
    except Malformed as e:
        return Rejected(f"malformed: {e}")
    if isinstance(result, Accepted):
        # ClusterMetadata.Transformer.build: each component the transformation modified gets
        # the new epoch as its lastModified (what MetadataKeys.diffKeys compares)
        after = result.metadata
        result = Accepted(metadata=evolve(after, last_modified=stamp(metadata, after), _digest=[]),
                          kind=result.kind)
    return result
