"""The keyspaces of a schema as cqlsh's DESCRIBE prints it (4.0+ server side, 3.11's driver) or as
a person wrote it, with Cassandra's own settling of NetworkTopologyStrategy options."""

from __future__ import annotations

import pytest

from campaign.errors import BadInput
from campaign.formats.cql_schema import parse_schema
from spec.replication import NetworkTopologyStrategy, SimpleStrategy

DCS = {"dc1", "dc2"}


def keyspaces(text: str) -> dict[str, object]:
    return dict(parse_schema(text, "s.cql", DCS).keyspaces)


def test_describe_schema_as_cassandra_prints_it() -> None:
    text = """CREATE KEYSPACE system_auth WITH replication = {'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '1'}  AND durable_writes = true;

/*
Warning: Keyspace system_views is a virtual keyspace and cannot be recreated with CQL.
Structure, for reference:
VIRTUAL KEYSPACE system_views;
*/

CREATE KEYSPACE app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '2'}  AND durable_writes = true;

CREATE TABLE app.t (
    id int PRIMARY KEY,
    v text
) WITH additional_write_policy = '99p'
    AND comment = 'it''s; fine'
    AND compaction = {'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy'};

CREATE KEYSPACE "MixedCase" WITH replication = {'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '2'}  AND durable_writes = false;
"""  # noqa: E501  # DESCRIBE prints each statement on one line
    parsed = parse_schema(text, "s.cql", DCS)
    assert dict(parsed.keyspaces) == {"app": NetworkTopologyStrategy.of({"dc1": 3, "dc2": 2}),
                                      "MixedCase": SimpleStrategy(replication_factor=2)}
    assert parsed.skipped == ("system_auth",)


def test_hand_written_cql_unquoted_factors_keywords_in_any_case_and_comments() -> None:
    text = """-- made by hand
create keyspace if not exists Shop with REPLICATION = { 'class' : 'SimpleStrategy', 'replication_factor' : 3 } ;
// again, ignored
CREATE KEYSPACE IF NOT EXISTS shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE FUNCTION shop.f(x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return x; $$;
"""
    assert keyspaces(text) == {"shop": SimpleStrategy(replication_factor=3)}


def test_alter_and_drop_apply_in_order() -> None:
    text = ("CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"
            "CREATE KEYSPACE b WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"
            "ALTER KEYSPACE a WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2};\n"
            "ALTER KEYSPACE a WITH durable_writes = false;\n"
            "DROP KEYSPACE IF EXISTS b;\n")
    assert keyspaces(text) == {"a": NetworkTopologyStrategy.of({"dc1": 2})}


def test_network_topology_strategys_replication_factor_expands_to_every_dc_and_zero_drops_one() -> None:
    """NetworkTopologyStrategy.prepareOptions (CASSANDRA-14303)."""
    assert keyspaces("CREATE KEYSPACE a WITH replication = {'class': 'NetworkTopologyStrategy', "
                     "'replication_factor': 3, 'dc2': '1'};") == {"a": NetworkTopologyStrategy.of({"dc1": 3, "dc2": 1})}
    assert keyspaces("CREATE KEYSPACE a WITH replication = {'class': 'NetworkTopologyStrategy', "
                     "'dc1': '3', 'dc2': '0'};") == {"a": NetworkTopologyStrategy.of({"dc1": 3})}


@pytest.mark.parametrize("text, needle", [
    ("CREATE KEYSPACE a WITH replication = {'class': 'NetworkTopologyStrategy', 'dc9': 3};",
     "line 1: keyspace a: NetworkTopologyStrategy names datacenter 'dc9'"),
    ("CREATE KEYSPACE a WITH durable_writes = true;", "line 1: CREATE KEYSPACE a has no replication"),
    ("CREATE KEYSPACE a WITH replication = {'class': 'EverywhereStrategy'};", "unknown replication class"),
    ("CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '2/1'};",
     "transient replication"),
    ("CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 'x'};", "not an integer"),
    ("CREATE KEYSPACE a WITH replication = 'SimpleStrategy';", "replication must be a map"),
    ("CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; "
     "CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};", "created twice"),
    ("CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy'\n 'replication_factor': 1};",
     "line 2: expected ',' or '}'"),
    ("CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1", "never closed"),
    ("/* cut", "line 1: a /* comment is never closed"),
    ("ALTER KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};",
     "ALTER KEYSPACE a before any CREATE"),
    ("ks1  ks2  system_auth", "no CREATE KEYSPACE statement"),
])
def test_malformed_schema_is_one_line_naming_the_file_and_line(text: str, needle: str) -> None:
    with pytest.raises(BadInput) as e:
        parse_schema(text, "s.cql", DCS)
    assert str(e.value).startswith("s.cql: ") and needle in str(e.value), str(e.value)
