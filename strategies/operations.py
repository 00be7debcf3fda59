"""Hypothesis strategies for transformations given the current metadata: the campaign's
generator (strategies/cases.py: `next_transformation`, `schema_change`) drawn by Hypothesis.

`transformations(m)` mostly proposes steps that make sense now (the next step of a sequence, a
join of a registered node with free tokens, a leave of a joined node) and sometimes ones that
must be rejected (steps out of order, unknown nodes, taken tokens, a STARTUP mid-sequence), so
both paths are exercised.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from campaign.formats.transformations import parse_transformation
from spec import schema as S
from spec import transformations as T
from spec.metadata import ClusterMetadata
from strategies import cases
from strategies.draws import HypothesisDraw


@st.composite
def transformations(draw: st.DrawFn, m: ClusterMetadata) -> T.Transformation:
    t, _ = cases.next_transformation(HypothesisDraw(draw), m, m.epoch, cases.EXAMPLE_MIX)
    return parse_transformation(t, "generated transformation")


@st.composite
def schema_change_docs(draw: st.DrawFn, keyspaces: Sequence[str], dcs: Sequence[str], *,
                       new_keyspace: bool = True) -> dict[str, object]:
    """A schema change's wire shape (docs/transformations-json.md), as the machines submit it."""
    return cases.schema_change(HypothesisDraw(draw), keyspaces, dcs, new_keyspace=new_keyspace)


@st.composite
def schema_changes(draw: st.DrawFn, m: ClusterMetadata) -> S.SchemaChange:
    dcs = tuple(sorted({n.location.dc for n in m.directory})) or ("dc1",)
    t = parse_transformation({"kind": "SCHEMA_CHANGE", "change": draw(schema_change_docs(m.schema.names(), dcs))})
    assert isinstance(t, T.AlterSchema)
    return t.change
