"""Whatever JSON arrives, `execute` answers Accepted or Rejected: it never raises."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from impl.metadata import KINDS, Accepted, Metadata, Rejected, execute
from tests.impl.metadata.helpers import ok, register, topology

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats(allow_nan=False) | st.sampled_from(["A", "B", "X", "ks", "t", "int", "", "dc1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["id", "dc", "rack", "op", "keyspace", "table", "type"]), inner, max_size=3),
    max_leaves=6,
)
FIELDS = ["node", "tokens", "remove", "replaced", "change", "changes", "add", "remove", "ignore"]


def base() -> Metadata:
    return ok(Metadata.from_topology(topology([("A", 100), ("B", 200), ("C", 300)])), register("X"))


BASE = base()


@given(st.sampled_from(sorted(KINDS) + ["BOGUS", 7]), st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4))
def test_any_json_gets_an_answer(kind: Any, fields: dict[str, Any]) -> None:
    r = execute(BASE, {"kind": kind, **fields})
    assert isinstance(r, Accepted | Rejected)
    if isinstance(r, Accepted):
        assert r.metadata.epoch == BASE.epoch + 1


@given(
    st.sampled_from(["CREATE_KEYSPACE", "ALTER_KEYSPACE", "DROP_KEYSPACE", "CREATE_TABLE", "ALTER_TABLE", "DROP_TABLE", "CREATE_TYPE", "DROP_TYPE"]),
    st.dictionaries(st.sampled_from(["keyspace", "table", "type", "columns", "fields", "add", "drop", "replication"]), json_values, max_size=5),
)
def test_any_schema_change_gets_an_answer(op: str, fields: dict[str, Any]) -> None:
    r = execute(BASE, {"kind": "SCHEMA_CHANGE", "change": {"op": op, **fields}})
    assert isinstance(r, Accepted | Rejected)


def test_not_an_object() -> None:
    assert execute(BASE, ["REGISTER"]).reason.startswith("malformed:")  # type: ignore[arg-type, union-attr]
