"""Issue 34's first acceptance: clusters written in each supported nodetool format (single and
multi-DC, 1, 16 and 256 tokens per node, Simple and NetworkTopologyStrategy keyspaces) read back
to the TOPOLOGY.json they were printed from — printed with Cassandra's format strings
(tests/operator/nodetool_print.py: Ring.java, Status.java from 3.11 to trunk, DESCRIBE)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.operator.cluster import read_cluster, topology_doc, topology_of
from tests.operator.nodetool_print import (
    Cluster,
    Flags,
    print_ring,
    print_schema,
    print_status,
    printed_id,
)
from tests.operator.strategies import clusters, flags, versions


def expected(cluster: Cluster, version: str, fl: Flags) -> dict[str, Any]:
    """The TOPOLOGY.json a cluster stands for, written from the model (not from the reader)."""
    def replication(options: dict[str, str]) -> dict[str, Any]:
        if options["class"] == "SimpleStrategy":
            return {"class": "SimpleStrategy", "replication_factor": int(options["replication_factor"])}
        return {"class": "NetworkTopologyStrategy", **{dc: int(v) for dc, v in sorted(options.items()) if dc != "class"}}

    return {"nodes": sorted(({"id": printed_id(n, version, fl), "dc": n.dc, "rack": n.rack, "tokens": sorted(n.tokens)}
                             for n in cluster.nodes), key=lambda n: n["id"]),
            "keyspaces": [{"name": name, "replication": replication(o)} for name, o in cluster.keyspaces]}


def normalized(doc: dict[str, Any]) -> dict[str, Any]:
    nts = [{**k, "replication": dict(sorted(k["replication"].items()))} for k in doc["keyspaces"]]
    return {"nodes": sorted(doc["nodes"], key=lambda n: n["id"]), "keyspaces": nts}


@settings(max_examples=max(settings.default.max_examples, 60))
@given(cluster=clusters(), version=versions, fl=flags, with_status=st.booleans(), qualified=st.booleans(),
       seed=st.integers(0, 1000))
def test_a_cluster_printed_by_nodetool_and_cqlsh_reads_back_to_its_topology(
        cluster: Cluster, version: str, fl: Flags, with_status: bool, qualified: bool, seed: int) -> None:
    rng = random.Random(seed)
    ring = print_ring(cluster, version, fl)
    status = print_status(cluster, version, fl, rng=rng) if with_status else None
    schema = print_schema(cluster, version, qualified=qualified, rng=rng)
    read = read_cluster((ring, "ring.txt"), (status, "status.txt") if status is not None else None,
                        (schema, "schema.cql"))
    assert normalized(topology_doc(read)) == normalized(expected(cluster, version, fl))
    topology_of(read)  # and it is a TOPOLOGY.json every command takes
    if status is not None:
        assert {n.id: n.host_id for n in read.nodes} == {printed_id(n, version, fl): n.host_id for n in cluster.nodes}


@settings(max_examples=10)
@given(cluster=clusters(tokens_per_node=(16,), max_nodes=48, keyspaces=False), version=versions, fl=flags)
def test_a_48_node_16_token_ring_reads_back(cluster: Cluster, version: str, fl: Flags) -> None:
    read = read_cluster((print_ring(cluster, version, fl), "ring.txt"), (print_status(cluster, version, fl), "s.txt"))
    assert normalized(topology_doc(read)) == normalized(expected(cluster, version, fl))


def test_the_printers_print_what_cassandra_prints() -> None:
    """The printers themselves, against Cassandra's layout: RingTest's transcript (trunk) pads
    127.0.0.1 to the width of "127.0.0.1:7000" and prints an empty line where a DC of one row has
    no last-token line; 3.11's Status prints the Token column for one node per DC with one token
    (`dcs.size() < tokens` is false)."""
    from tests.operator.nodetool_print import Node
    cluster = Cluster(nodes=[Node(ip="127.0.0.1", hostname="localhost", dc="datacenter1", rack="rack1",
                                  tokens=(-9223372036854775808,), host_id="6d194555-f6eb-41d0-c000-000000000001",
                                  load=104.2 * 1024)])
    assert print_ring(cluster, "4.1").splitlines() == [
        "",
        "Datacenter: datacenter1",
        "==========",
        "Address         Rack        Status State   Load            Owns                Token"
        + " " * 39,
        "",
        "127.0.0.1       rack1       Up     Normal  104.2 KiB       ?                   -9223372036854775808" + " " * 24,
        "",
        "",
        "  Note: Non-system keyspaces don't have the same replication settings, effective ownership information is "
        "meaningless"]
    assert print_status(cluster, "3.11").splitlines()[4] == (
        "--  Address    Load       Owns    Host ID                               Token" + " " * 34 + "  Rack")
