"""`tcmcheck topology --ring RING.txt [--status STATUS.txt] [--schema SCHEMA.cql]
[--describering KS=FILE ...] [--allow-down ADDR ...]`: the TOPOLOGY.json of a live cluster.

Reads what `nodetool ring`, `nodetool status` and `cqlsh -e 'DESCRIBE SCHEMA'` print
(campaign/formats/, docs/operators.md), refuses a node that is not Up and Normal unless
`--allow-down` names a down one, and prints TOPOLOGY.json. With `--describering KS=FILE` it then
compares the ranges and endpoints Cassandra reported for KS with the spec's placement: each
difference is one line on stderr and the exit status is 1 (the TOPOLOGY.json is still printed).
Exit 0: read and (if asked) agreeing; 1: a describering differs; 2: bad input.
"""

from __future__ import annotations

import click

from campaign.errors import BadInput
from campaign.formats.describering import parse_describering
from campaign.formats.jsonio import parsing, read_text
from campaign.operator.cluster import (
    check_conditions,
    read_cluster,
    topology_doc,
    topology_of,
    topology_text,
)
from campaign.operator.describering import compare


def _text(path: str | None, what: str) -> tuple[str, str] | None:
    return None if path is None else (read_text(path, what), path)


def _describering(values: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for value in values:
        keyspace, sep, path = value.partition("=")
        if not sep or not keyspace or not path:
            raise BadInput(f"--describering: expected KEYSPACE=FILE, got {value!r}")
        out.append((keyspace, path))
    return out


@click.command(name="topology")
@click.option("--ring", "ring_path", required=True, type=click.Path(dir_okay=False),
              help="What `nodetool ring` printed (any version from 3.11 to trunk).")
@click.option("--status", "status_path", type=click.Path(dir_okay=False),
              help="What `nodetool status` printed (host IDs; checked against the ring).")
@click.option("--schema", "schema_path", type=click.Path(dir_okay=False),
              help="What `cqlsh -e 'DESCRIBE SCHEMA'` printed (CREATE KEYSPACE statements).")
@click.option("--describering", "describering", multiple=True, metavar="KS=FILE",
              help="What `nodetool describering KS` printed: compared with tcmcheck's placement (repeatable).")
@click.option("--allow-down", "allow_down", multiple=True, metavar="ADDR",
              help="Keep this Down (or ?) node as a JOINED owner of its tokens (repeatable).")
def topology(ring_path: str, status_path: str | None, schema_path: str | None, describering: tuple[str, ...],
             allow_down: tuple[str, ...]) -> int:
    """Print the TOPOLOGY.json of a live cluster from nodetool's and cqlsh's output."""
    wanted = _describering(describering)
    texts = [(ks, read_text(path, "describering"), path) for ks, path in wanted]
    ring = _text(ring_path, "ring")
    assert ring is not None
    with parsing(ring_path):
        cluster = read_cluster(ring, _text(status_path, "status"), _text(schema_path, "schema"))
    warnings = check_conditions(cluster, allow_down, ring_path)
    topo = topology_of(cluster)
    differences: list[str] = []
    for keyspace, text, path in texts:
        with parsing(path):
            described = parse_describering(text, path)
        differences += compare(topo, keyspace, described, path)
    click.echo(topology_text(topology_doc(cluster)), nl=False)
    for w in warnings:
        click.echo(f"tcmcheck: warning: {w}", err=True)
    if cluster.schema is not None and cluster.schema.skipped:
        click.echo(f"tcmcheck: note: left out Cassandra's system keyspaces {', '.join(cluster.schema.skipped)}",
                   err=True)
    for d in differences:
        click.echo(f"tcmcheck: differs: {d}", err=True)
    return 1 if differences else 0
