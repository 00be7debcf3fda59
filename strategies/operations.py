"""Hypothesis strategies for transformations given the current metadata.

`transformations(m)` mostly proposes steps that make sense now (the next step of a sequence, a
join of a registered node with free tokens, a leave of a joined node) and sometimes ones that
must be rejected (steps out of order, unknown nodes, taken tokens), so both paths are exercised.
"""

from __future__ import annotations

from hypothesis import strategies as st

from spec import schema as S
from spec import transformations as T
from spec.metadata import ClusterMetadata
from spec.nodes import NodeId, NodeState, NodeVersion
from spec.sequences import OperationKind, Step
from strategies.topologies import locations, replication, small_tokens

_ANY_STEP = sorted({type(T.step_of(k, s, NodeId("?"))) for k in OperationKind for s in (Step.START, Step.MID, Step.FINISH)},
                   key=lambda cls: cls.kind)


def _ids(m: ClusterMetadata, *states: NodeState) -> list[NodeId]:
    return [n.id for n in m.directory.in_state(*states)]


@st.composite
def transformations(draw: st.DrawFn, m: ClusterMetadata) -> T.Transformation:
    choices: list[st.SearchStrategy[T.Transformation]] = []
    sequences = list(m.in_progress.sequences())
    if sequences:
        seq = draw(st.sampled_from(sequences))
        choices.append(st.just(T.step_of(seq.kind, seq.next_step, seq.node)))
        choices.append(st.just(T.CancelSequence(node=seq.node)))
    registered = _ids(m, NodeState.REGISTERED)
    joined = _ids(m, NodeState.JOINED)
    fresh = NodeId(f"x{m.epoch}")
    choices.append(st.builds(T.Register, node=st.just(fresh), location=locations()))
    tokens = st.lists(small_tokens, min_size=1, max_size=4, unique=True).map(tuple)
    if registered:
        choices.append(st.builds(T.PrepareJoin, node=st.sampled_from(registered), tokens=tokens))
        if joined:
            choices.append(st.builds(T.PrepareReplace, node=st.sampled_from(registered), replaced=st.sampled_from(joined)))
    leftover = registered + _ids(m, NodeState.LEFT)
    if leftover:  # Cassandra's Unregister: REGISTERED or LEFT, even with a join prepared
        choices.append(st.builds(T.Unregister, node=st.sampled_from(leftover)))
    if joined:
        choices.append(st.builds(T.PrepareLeave, node=st.sampled_from(joined), remove=st.booleans(),
                                 force=st.booleans()))
        choices.append(st.builds(T.PrepareMove, node=st.sampled_from(joined), tokens=tokens))
    # Likely rejections: a step out of order, an unknown node, a schema race.
    everyone = [n.id for n in m.directory] + [NodeId("ghost")]
    choices.append(st.builds(T.Startup, node=st.sampled_from(everyone),  # refused mid-sequence
                             address=st.sampled_from([None, "10.0.0.1", *everyone[:2]]),
                             version=st.sampled_from([None, NodeVersion(release="6.1")])))
    choices.append(st.builds(lambda cls, n: cls(node=n), st.sampled_from(_ANY_STEP), st.sampled_from(everyone)))
    choices.append(schema_changes(m).map(lambda c: T.AlterSchema(change=c)))
    return draw(st.one_of(choices))


@st.composite
def schema_changes(draw: st.DrawFn, m: ClusterMetadata) -> S.SchemaChange:
    names = list(m.schema.names()) + ["ks_new"]
    ks = draw(st.sampled_from(names))
    dcs = tuple(sorted({n.location.dc for n in m.directory})) or ("dc1",)
    table = draw(st.sampled_from(["t1", "t2"]))
    utype = draw(st.sampled_from(["addr", "point"]))
    col_type = draw(st.sampled_from(["int", "text", "frozen<addr>", "list<point>"]))
    changes: list[S.SchemaChange] = [
        S.CreateKeyspace(keyspace=ks, replication=draw(replication(dcs))),
        S.DropKeyspace(keyspace=ks),
        S.CreateTable(keyspace=ks, table=table, columns=(("id", "int"), ("v", col_type))),
        S.DropTable(keyspace=ks, table=table),
        S.CreateType(keyspace=ks, type=utype, fields=(("x", "int"),)),
        S.DropType(keyspace=ks, type=utype),
        S.AlterTable(keyspace=ks, table=table, add=(("w", col_type),)),
    ]
    return draw(st.sampled_from(changes))
