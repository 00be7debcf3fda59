"""Hostile input to the operator commands (issue 34): `tcmcheck topology` on what nodetool and
cqlsh print, `tcmcheck plan` on a TOPOLOGY.json and the operator's words.

Malformed text — a ring cut mid-row, a status header missing, a keyspace with an unknown DC, a
CREATE KEYSPACE with no replication, huge or non-finite numbers, deep nesting, a missing file —
gets one line naming the file and the line, exit 2, and no traceback; so do bad options. The
property tests damage valid outputs (cut anywhere, invalid bytes, a 5000-digit number, deep
brackets) and assert the one-line rule and the exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cli.hostile import RING, assert_bad_input, invoke
from tests.cli.test_hostile_property import CHEAP, COSTLY, damaged, json_file, option, run_in_tmp

NODETOOL_RING = """
Datacenter: dc1
==========
Address    Rack        Status State   Load            Owns                Token
                                                                          3074457345618258602
10.0.0.1   r1          Up     Normal  1.02 GiB        33.33%              -9223372036854775808
10.0.0.2   r2          Up     Normal  1.01 GiB        33.33%              -3074457345618258603
10.0.0.3   r3          Up     Normal  1.03 GiB        33.33%              3074457345618258602

"""
NODETOOL_STATUS = """Datacenter: dc1
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address   Load      Tokens  Owns (effective)  Host ID                               Rack
UN  10.0.0.1  1.02 GiB  1       100.0%            6d194555-f6eb-41d0-c000-000000000001  r1
UN  10.0.0.2  1.01 GiB  1       100.0%            6d194555-f6eb-41d0-c000-000000000002  r2
UN  10.0.0.3  1.03 GiB  1       100.0%            6d194555-f6eb-41d0-c000-000000000003  r3
"""
SCHEMA = ("CREATE KEYSPACE ks WITH replication = {'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', "
          "'dc1': '3'}  AND durable_writes = true;\n"
          "CREATE TABLE ks.t (id int PRIMARY KEY) WITH comment = 'x';\n")


def put(tmp_path: Path, name: str, text: str | bytes) -> str:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return str(p)


def topology(tmp_path: Path, ring: str = NODETOOL_RING, status: str | None = NODETOOL_STATUS,
             schema: str | None = SCHEMA, *extra: str) -> tuple[int, str, str]:
    args = ["topology", "--ring", put(tmp_path, "ring.txt", ring)]
    if status is not None:
        args += ["--status", put(tmp_path, "status.txt", status)]
    if schema is not None:
        args += ["--schema", put(tmp_path, "schema.cql", schema)]
    return invoke(args + list(extra))


def test_the_valid_outputs_read(tmp_path: Path) -> None:
    code, out, err = topology(tmp_path)
    assert (code, err) == (0, "")
    assert json.loads(out)["keyspaces"] == [{"name": "ks", "replication": {"class": "NetworkTopologyStrategy", "dc1": 3}}]


# --- the four ----------------------------------------------------------------------------


def test_a_ring_cut_mid_row_names_the_file_and_the_line(tmp_path: Path) -> None:
    cut = NODETOOL_RING[: NODETOOL_RING.index("Normal  1.03")]
    assert_bad_input(topology(tmp_path, cut), "ring.txt: line 8", "not a row of nodetool ring")


def test_a_ring_cut_between_rows_is_caught_by_the_dcs_last_token(tmp_path: Path) -> None:
    cut = NODETOOL_RING[: NODETOOL_RING.index("10.0.0.3")]
    assert_bad_input(topology(tmp_path, cut, None), "ring.txt: line 7", "rows end at token -3074457345618258603",
                     "the output is cut")


def test_a_status_header_missing_names_the_file_and_the_line(tmp_path: Path) -> None:
    headless = "\n".join(line for line in NODETOOL_STATUS.splitlines() if not line.startswith("--"))
    assert_bad_input(topology(tmp_path, status=headless), "status.txt: line 5", "the header is missing")


def test_a_keyspace_with_an_unknown_dc_names_the_file_and_the_line(tmp_path: Path) -> None:
    schema = SCHEMA + "\nCREATE KEYSPACE other WITH replication = {'class': 'NetworkTopologyStrategy', 'dc9': '3'};\n"
    assert_bad_input(topology(tmp_path, schema=schema), "schema.cql: line 4", "keyspace other",
                     "datacenter 'dc9'", "Cassandra refuses an unknown datacenter")


def test_a_create_keyspace_with_no_replication_names_the_file_and_the_line(tmp_path: Path) -> None:
    schema = "-- a comment\nCREATE KEYSPACE ks\n  WITH durable_writes = true;\n"
    assert_bad_input(topology(tmp_path, schema=schema), "schema.cql: line 2", "CREATE KEYSPACE ks has no replication")


# --- numbers, nesting, files, nodes not Up/Normal -------------------------------------------------


@pytest.mark.parametrize("token, needle", [
    ("9" * 5000, "(5000 digits) is outside the Murmur3 range"),
    ("NaN", "is not a Murmur3 token"),
    ("Infinity", "is not a Murmur3 token"),
    ("170141183460469231731687303715884105727", "outside the Murmur3 range"),
])
def test_a_huge_or_non_finite_token_is_one_line(tmp_path: Path, token: str, needle: str) -> None:
    ring = NODETOOL_RING.replace("3074457345618258602\n10.0.0.1", f"{token}\n10.0.0.1").replace(
        "33.33%              3074457345618258602", f"33.33%              {token}")
    assert_bad_input(topology(tmp_path, ring, None), "ring.txt: line", needle)


@pytest.mark.parametrize("factor, needle", [("'1e400'", "is not an integer"), ("'" + "9" * 5000 + "'", "is not an integer"),
                                            ("NaN", "is not an integer"), ("'3/1'", "transient replication")])
def test_a_huge_or_non_finite_replication_factor_is_one_line(tmp_path: Path, factor: str, needle: str) -> None:
    schema = f"CREATE KEYSPACE ks WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': {factor}}};"
    assert_bad_input(topology(tmp_path, schema=schema), "schema.cql: line 1", needle)


def test_deep_nesting_in_a_schema_is_one_line(tmp_path: Path) -> None:
    schema = "CREATE KEYSPACE ks WITH replication = " + "{" * 100_000 + "}" * 100_000 + ";"
    assert_bad_input(topology(tmp_path, schema=schema), "schema.cql: line 1")


def test_deep_nesting_and_huge_numbers_in_a_topology_given_to_plan_are_one_line(tmp_path: Path) -> None:
    deep = put(tmp_path, "t.json", "[" * 100_000 + "]" * 100_000)
    assert_bad_input(invoke(["plan", deep, "decommission", "A"]), "t.json", "nested more than 100 levels deep")
    big = put(tmp_path, "b.json", json.dumps(RING).replace("[100]", "[" + "9" * 5000 + "]"))
    assert_bad_input(invoke(["plan", big, "decommission", "A"]), "b.json", "integer with 5000 digits")
    inf = put(tmp_path, "i.json", json.dumps(RING).replace("[100]", "[1e400]"))
    assert_bad_input(invoke(["plan", inf, "decommission", "A"]), "i.json", "out of range")


@pytest.mark.parametrize("which", ["--ring", "--status", "--schema"])
def test_a_missing_file_is_one_line(tmp_path: Path, which: str) -> None:
    args = ["topology", "--ring", put(tmp_path, "ring.txt", NODETOOL_RING), which, str(tmp_path / "nope.txt")]
    assert_bad_input(invoke(args), "not found", "nope.txt")
    assert_bad_input(invoke(["plan", str(tmp_path / "nope.json"), "decommission", "A"]), "not found")


def test_describering_files_are_checked_as_the_others(tmp_path: Path) -> None:
    base = ["--describering", f"ks={tmp_path / 'missing.txt'}"]
    assert_bad_input(topology(tmp_path, NODETOOL_RING, None, SCHEMA, *base), "missing.txt")
    assert_bad_input(topology(tmp_path, NODETOOL_RING, None, SCHEMA, "--describering", "ks"), "KEYSPACE=FILE")
    cut = "TokenRange: \n\tTokenRange(start_token:-9223372036854775808, end_token:-3074457345618258603, endp\n"
    d = put(tmp_path, "d.txt", cut)
    assert_bad_input(topology(tmp_path, NODETOOL_RING, None, SCHEMA, "--describering", f"ks={d}"), "d.txt: line 2")
    d = put(tmp_path, "d2.txt", "TokenRange(start_token:1, end_token:2, endpoints:[10.0.0.1], rpc_endpoints:[])\n")
    assert_bad_input(topology(tmp_path, NODETOOL_RING, None, SCHEMA, "--describering", f"ks={d}"),
                     "d2.txt: line 1", "the output is cut")


@pytest.mark.parametrize("row, needle", [
    ("UJ", "10.0.0.2 is Joining: a bootstrap or a replacement is in flight"),
    ("UL", "10.0.0.2 is Leaving: a decommission or a removenode is in flight"),
    ("UM", "10.0.0.2 is Moving: a move is in flight"),
    ("DN", "10.0.0.2 is Down: it still owns its tokens (JOINED); give --allow-down 10.0.0.2"),
    ("?N", "10.0.0.2 has status ?"),
])
def test_a_node_not_up_and_normal_is_one_line_naming_it_and_what_it_means(tmp_path: Path, row: str, needle: str) -> None:
    state = {"J": "Joining", "L": "Leaving", "M": "Moving", "N": "Normal"}[row[1]]
    status = {"U": "Up", "D": "Down", "?": "?"}[row[0]]
    ring = NODETOOL_RING.replace("10.0.0.2   r2          Up     Normal",
                                 f"10.0.0.2   r2          {status:<7}{state:<8}")
    st_text = NODETOOL_STATUS.replace("UN  10.0.0.2", f"{row}  10.0.0.2")
    assert_bad_input(topology(tmp_path, ring, st_text), "ring.txt: line 7", needle)


def test_allow_down_keeps_a_down_node_and_says_so(tmp_path: Path) -> None:
    ring = NODETOOL_RING.replace("10.0.0.2   r2          Up    ", "10.0.0.2   r2          Down  ")
    code, out, err = topology(tmp_path, ring, None, SCHEMA, "--allow-down", "10.0.0.2")
    assert code == 0 and '"id": "10.0.0.2"' in out
    assert err == "tcmcheck: warning: 10.0.0.2 is Down: kept as a JOINED owner of its tokens (--allow-down)\n"
    assert_bad_input(topology(tmp_path, NODETOOL_RING, None, SCHEMA, "--allow-down", "10.0.0.2"),
                     "--allow-down 10.0.0.2: that node is Up")
    assert_bad_input(topology(tmp_path, NODETOOL_RING, None, SCHEMA, "--allow-down", "10.9.9.9"), "not a node")


def test_ring_and_status_that_disagree_are_one_line(tmp_path: Path) -> None:
    assert_bad_input(topology(tmp_path, status=NODETOOL_STATUS.replace("  r3", "  r9")),
                     "status.txt: line 8: 10.0.0.3 is in dc1/r9, but in dc1/r3")
    assert_bad_input(topology(tmp_path, status=NODETOOL_STATUS.replace("1       100.0%            6d194555-f6eb-41d0-c000-000000000003",
                                                                       "16      100.0%            6d194555-f6eb-41d0-c000-000000000003")),
                     "status.txt: line 8: 10.0.0.3 has 16 tokens, but 1 in")
    assert_bad_input(topology(tmp_path, status=NODETOOL_STATUS.replace("10.0.0.3", "cass-3.example.com")),
                     "no row for 10.0.0.3", "-r/-pp")


# --- plan's words and options ---------------------------------------------------------------------


@pytest.mark.parametrize("words, needle", [
    ([], "expected an OPERATION"),
    (["decommission"], "expected an OPERATION"),
    (["shrink", "A"], "unknown operation 'shrink'"),
    (["decommission", "Z"], "unknown node 'Z'"),
    (["move", "B"], "move: expected `move ADDR TOKEN`"),
    (["move", "B", "nan"], "'nan' is not a token"),
    (["move", "B", "9" * 5000], "is outside the Murmur3 range"),
    (["move", "B", "170141183460469231731687303715884105727"], "outside the Murmur3 range"),
    (["replace", "B"], "--by NEW"),
    (["bootstrap", "X", "--dc", "dc1", "--rack", "r1"], "one of --tokens LIST or --num-tokens N"),
    (["bootstrap", "X", "--dc", "dc1", "--rack", "r1", "--num-tokens", "0"], "--num-tokens: expected 1 to"),
    (["bootstrap", "X", "--dc", "dc1", "--rack", "r1", "--num-tokens", "1000000000000"], "--num-tokens"),
    (["bootstrap", "X", "--dc", "dc1", "--rack", "r1", "--tokens", "1,x"], "'x' is not a token"),
    (["decommission", "B", "--by", "X"], "--by does not apply"),
    (["decommission", "B", "--read-cl", "bogus"], "--read-cl"),
    (["decommission", "B", "--window", "-1"], "--window must not be negative"),
    (["decommission", "B", "--local-dc", "dc9"], "unknown datacenter 'dc9'"),
    (["decommission", "B", "--cms", "Q"], "--cms: 'Q' is not a node"),
    (["decommission", "B", "--progress-barrier-min-cl", "ALL"], "--progress-barrier-min-cl"),
    (["decommission", "B", "--bogus"], "no such option: --bogus"),
])
def test_plan_refuses_bad_words_and_options_in_one_line(tmp_path: Path, words: list[str], needle: str) -> None:
    topo = put(tmp_path, "t.json", json.dumps(RING))
    assert_bad_input(invoke(["plan", topo, *words]), needle)


def test_plan_refuses_an_unwritable_html_before_any_work(tmp_path: Path) -> None:
    topo = put(tmp_path, "t.json", json.dumps(RING))
    assert_bad_input(invoke(["plan", topo, "decommission", "B", "--html", str(tmp_path / "no" / "x.html")]),
                     "--html", "does not exist")
    assert_bad_input(invoke(["plan", topo, "decommission", "B", "--html", topo]), "--html", "also an input")


# --- properties ------------------------------------------------------------------------------------


@CHEAP
@given(ring=damaged(NODETOOL_RING), status=st.one_of(st.none(), damaged(NODETOOL_STATUS)),
       schema=st.one_of(st.none(), damaged(SCHEMA)),
       allow=option("--allow-down", ["10.0.0.1", "10.9.9.9", ""]))
def test_topology_survives_damaged_nodetool_and_cqlsh_output(ring: bytes, status: bytes | None, schema: bytes | None,
                                                             allow: list[str]) -> None:
    inputs = {"ring.txt": ring} | ({"status.txt": status} if status is not None else {}) | \
             ({"schema.cql": schema} if schema is not None else {})
    code, out, _ = run_in_tmp(lambda r: ["topology", "--ring", "ring.txt",
                                         *(["--status", "status.txt"] if status is not None else []),
                                         *(["--schema", "schema.cql"] if schema is not None else []), *allow], inputs)
    assert code in (0, 2)
    if code == 2:
        assert out == ""
    else:
        json.loads(out)


@COSTLY
@given(topo=json_file(RING),
       words=st.sampled_from([["decommission", "B"], ["removenode", "C"], ["replace", "C", "--by", "X"],
                              ["move", "B", "250"], ["bootstrap", "X", "--dc", "dc1", "--rack", "r1", "--num-tokens", "2"],
                              ["bootstrap", "X", "--dc", "dc1", "--rack", "r1", "--tokens", "150"], ["bogus"]]),
       cl=option("--read-cl", ["ONE", "LOCAL_QUORUM", "EACH_QUORUM", "bogus", ""]),
       as_json=st.sampled_from([[], ["--json"]]))
def test_plan_survives_hostile_input(topo: bytes, words: list[str], cl: list[str], as_json: list[str]) -> None:
    code, out, _ = run_in_tmp(lambda r: ["plan", "t.json", *words, *cl, *as_json], {"t.json": topo})
    assert code in (0, 1, 2, 3)
    if code == 2:
        assert out == ""
    elif as_json:
        assert json.loads(out)["outcome"] in ("proved", "refused", "halts", "counterexample", "unknown")
