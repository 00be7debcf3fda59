"""Issue 34's second acceptance: `--describering` agrees on a cluster whose describering was
printed from the same model, and reports the one range that differs when one endpoint is swapped.

The describering is printed from impl's placement (impl/metadata: its own NetworkTopologyStrategy
and SimpleStrategy code), the comparison is against the spec's: two implementations of Cassandra's
replica placement agree range by range, as Cassandra's describering and tcmcheck must."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from campaign.formats.describering import parse_describering
from campaign.operator.cluster import read_cluster, topology_doc, topology_of
from campaign.operator.describering import compare
from impl.metadata import Metadata
from tests.cli.hostile import invoke
from tests.operator.nodetool_print import (
    Cluster,
    Flags,
    print_describering,
    print_ring,
    print_schema,
    printed_id,
)
from tests.operator.strategies import clusters, versions


def described_by_impl(cluster: Cluster, version: str, fl: Flags, keyspace: str) -> dict[tuple[int, int], list[str]]:
    """Each range's natural replicas as impl computes them, as addresses (nodetool's endpoints)."""
    read = read_cluster((print_ring(cluster, version, fl), "ring.txt"),
                        schema=(print_schema(cluster, version), "schema.cql"))
    ip_of = {printed_id(n, version, fl): n.ip for n in cluster.nodes}
    groups = Metadata.from_topology(topology_doc(read)).placements_json()[keyspace]["reads"]
    return {(g["range"][0], g["range"][1]): [ip_of[r] for r in g["replicas"]] for g in groups}


@given(cluster=clusters(max_nodes=8), version=versions, print_port=st.booleans(), seed=st.integers(0, 99))
def test_describering_printed_from_the_same_model_agrees_and_one_swapped_endpoint_is_one_line(
        cluster: Cluster, version: str, print_port: bool, seed: int) -> None:
    assume(cluster.keyspaces)
    fl = Flags(resolve=False, print_port=print_port)
    keyspace = cluster.keyspaces[0][0]
    replicas = described_by_impl(cluster, version, fl, keyspace)
    read = read_cluster((print_ring(cluster, version, fl), "ring.txt"),
                        schema=(print_schema(cluster, version), "schema.cql"))
    topo = topology_of(read)
    rng = random.Random(seed)
    text = print_describering(cluster, replicas, version, fl, rng=rng)
    assert compare(topo, keyspace, parse_describering(text, "d.txt"), "d.txt") == ()

    # swap one endpoint of one range for a node that is not its replica
    outsiders = {(lr, n.ip) for lr, eps in replicas.items() for n in cluster.nodes if n.ip not in eps}
    assume(outsiders)
    (left, right), newcomer = rng.choice(sorted(outsiders))
    swapped = dict(replicas)
    swapped[(left, right)] = [newcomer, *replicas[(left, right)][1:]]
    lines = compare(topo, keyspace, parse_describering(print_describering(cluster, swapped, version, fl, rng=rng),
                                                       "d.txt"), "d.txt")
    assert len(lines) == 1
    assert f"{keyspace} ({left}, {right}]" in lines[0] and "Cassandra lists" in lines[0]


RING = """
Datacenter: dc1
==========
Address    Rack        Status State   Load            Owns                Token
                                                                          3074457345618258602
10.0.0.1   r1          Up     Normal  1.02 GiB        ?                   -9223372036854775808
10.0.0.2   r1          Up     Normal  1.01 GiB        ?                   -3074457345618258603
10.0.0.3   r1          Up     Normal  1.03 GiB        ?                   3074457345618258602

"""
SCHEMA = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '2'};\n"
DESCRIBED = """Schema Version:59adb24e-f3cd-3e02-97f0-5b395827453f
TokenRange:\x20
\tTokenRange(start_token:-9223372036854775808, end_token:-3074457345618258603, endpoints:[10.0.0.2, 10.0.0.3], rpc_endpoints:[10.0.0.2, 10.0.0.3], endpoint_details:[EndpointDetails(host:10.0.0.2, datacenter:dc1, rack:r1), EndpointDetails(host:10.0.0.3, datacenter:dc1, rack:r1)])
\tTokenRange(start_token:-3074457345618258603, end_token:3074457345618258602, endpoints:[10.0.0.3, 10.0.0.1], rpc_endpoints:[10.0.0.3, 10.0.0.1], endpoint_details:[EndpointDetails(host:10.0.0.3, datacenter:dc1, rack:r1), EndpointDetails(host:10.0.0.1, datacenter:dc1, rack:r1)])
\tTokenRange(start_token:3074457345618258602, end_token:-9223372036854775808, endpoints:[10.0.0.1, 10.0.0.2], rpc_endpoints:[10.0.0.1, 10.0.0.2], endpoint_details:[EndpointDetails(host:10.0.0.1, datacenter:dc1, rack:r1), EndpointDetails(host:10.0.0.2, datacenter:dc1, rack:r1)])
"""  # noqa: E501  # nodetool prints each range on one line


def test_the_topology_command_exits_0_when_describering_agrees_and_1_with_one_line_per_range(tmp_path: Path) -> None:
    (tmp_path / "ring.txt").write_text(RING)
    (tmp_path / "schema.cql").write_text(SCHEMA)
    (tmp_path / "d.txt").write_text(DESCRIBED)
    args = ["topology", "--ring", str(tmp_path / "ring.txt"), "--schema", str(tmp_path / "schema.cql"),
            "--describering", f"ks={tmp_path / 'd.txt'}"]
    code, out, err = invoke(args)
    assert (code, err) == (0, "")
    assert '"id": "10.0.0.1"' in out
    (tmp_path / "d.txt").write_text(DESCRIBED.replace("endpoints:[10.0.0.3, 10.0.0.1]", "endpoints:[10.0.0.3, 10.0.0.2]"))
    code, out, err = invoke(args)
    assert code == 1
    assert err.splitlines() == [
        f"tcmcheck: differs: ks (-3074457345618258603, 3074457345618258602] ({tmp_path / 'd.txt'} line 4): "
        "Cassandra lists {10.0.0.2, 10.0.0.3}, tcmcheck computes {10.0.0.1, 10.0.0.3}"]
