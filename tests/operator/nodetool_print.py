"""Cassandra's printers, redone in Python from their format strings, for the round-trip tests:
`nodetool ring` (tools/nodetool/Ring.java), `nodetool status` (Status.java: 3.11's printf,
4.0-5.0's TableBuilder, trunk's sorted TableBuilder), `nodetool describering` (TokenRange.toString)
and cqlsh's DESCRIBE (KeyspaceMetadata.toCqlString / the Python driver's as_cql_query).

A `Cluster` is the model printed: nodes with an IP (v4, or v6 in Java's full form), a port, a
host name, DC, rack, tokens, host ID, load, liveness and state. `Flags` are nodetool's `-r`
(host names) and `-pp` (ports, 4.0 and later). What nodetool prints as a node's address is its
id in the TOPOLOGY.json read back (`printed_id`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

VERSIONS = ("3.11", "4.0", "4.1", "5.0", "trunk")


@dataclass(frozen=True)
class Node:
    ip: str
    hostname: str
    dc: str
    rack: str
    tokens: tuple[int, ...]
    host_id: str | None
    load: float | None = 1.5 * 2**30
    status: str = "Up"  # Up, Down, ?
    state: str = "Normal"  # Normal, Joining, Leaving, Moving
    port: int = 7000


@dataclass(frozen=True)
class Flags:
    resolve: bool = False
    print_port: bool = False


@dataclass
class Cluster:
    nodes: list[Node]
    keyspaces: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    """(name, replication options as Cassandra stores them: class and string factors)."""


def _with_port(ip: str, port: int) -> str:
    """InetAddressAndPort.getHostAddressAndPort: HostAndPort.fromParts (brackets for IPv6)."""
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def printed_id(n: Node, version: str, flags: Flags) -> str:
    """HostStat.ipOrDns (3.11) / HostStatWithPort.ipOrDns(printPort) (4.0 and later)."""
    if version == "3.11" or not flags.print_port:
        return n.hostname if flags.resolve else n.ip
    return f"{n.hostname}:{n.port}" if flags.resolve else _with_port(n.ip, n.port)


def _endpoint(n: Node, version: str) -> str:
    """The endpoint string of getTokenToEndpointMap (3.11: no port; 4.0+: WithPort)."""
    return n.ip if version == "3.11" else _with_port(n.ip, n.port)


def stringify_file_size(value: float, version: str) -> str:
    """FileUtils.stringifyFileSize with DecimalFormat("#.##") (units: KiB... since 3.11)."""
    units = [(2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")]
    for size, unit in units:
        if value >= size:
            return f"{_hash_format(value / size)} {unit}"
    return f"{_hash_format(value)} bytes"


def _hash_format(d: float) -> str:
    text = f"{d:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def _left(s: str, width: int) -> str:
    """Java's %-Ns."""
    return s.ljust(width)


def _ordered(cluster: Cluster) -> list[tuple[int, Node]]:
    return sorted(((t, n) for n in cluster.nodes for t in n.tokens), key=lambda p: p[0])


def print_ring(cluster: Cluster, version: str, flags: Flags = Flags(), *, owns: dict[str, float] | None = None) -> str:
    tokens = _ordered(cluster)
    endpoints: dict[str, list[int]] = {}
    have_vnodes = False
    for t, n in tokens:
        key = _endpoint(n, version)
        have_vnodes |= key in endpoints
        endpoints.setdefault(key, []).append(t)
    width = max(len(k) for k in endpoints)

    def row(*cols: str) -> str:
        a, rack, status, state, load, own, token = cols
        return (_left(a, width) + "  " + _left(rack, 12) + _left(status, 7) + _left(state, 8) + _left(load, 16)
                + _left(own, 20) + _left(token, 44) + "\n")

    out = ["\n"]
    for dc in sorted({n.dc for n in cluster.nodes}):
        stats = [(t, n) for t, n in tokens if n.dc == dc]
        out.append(f"Datacenter: {dc}\n==========\n")
        out.append(row("Address", "Rack", "Status", "State", "Load", "Owns", "Token"))
        out.append(row("", "", "", "", "", "", str(stats[-1][0])) if len(stats) > 1 else "\n")
        for t, n in stats:
            load = stringify_file_size(n.load, version) if n.load is not None else "?"
            own = f"{100 * owns[n.ip]:.2f}%" if owns is not None else "?"
            out.append(row(printed_id(n, version, flags), n.rack, n.status, n.state, load, own, str(t)))
        out.append("\n")
    if have_vnodes:
        out.append('  Warning: "nodetool ring" is used to output all the tokens of a node.\n')
        out.append('  To view status related info of a node use "nodetool status" instead.\n\n')
    note = "" if owns is not None else ("Note: Non-system keyspaces don't have the same replication settings, "
                                        "effective ownership information is meaningless\n")
    out.append("\n  " + note)
    return "".join(out)


_LETTER = {"Up": "U", "Down": "D", "?": "?"}
_STATE = {"Normal": "N", "Joining": "J", "Leaving": "L", "Moving": "M"}


def print_status(cluster: Cluster, version: str, flags: Flags = Flags(), *, rng: random.Random | None = None,
                 effective: bool = False) -> str:
    rng = rng or random.Random(0)
    tokens = _ordered(cluster)
    dcs = sorted({n.dc for n in cluster.nodes})
    # trunk: hostIDMap.size() < nodesOfTokens => not per node; before: dcs.size() < tokensToEndpoints.size()
    per_node = len(cluster.nodes) >= len(tokens) if version == "trunk" else len(dcs) >= len(tokens)
    owns_header = "Owns (effective)" if effective else "Owns"

    def cells(n: Node) -> list[str]:
        status = _LETTER[n.status] + _STATE[n.state]
        load = stringify_file_size(n.load, version) if n.load is not None else "?"
        own = f"{100 / len(cluster.nodes):.1f}%" if effective else "?"
        if per_node:
            return [status, printed_id(n, version, flags), load, own, n.host_id or "", str(n.tokens[0]), n.rack]
        return [status, printed_id(n, version, flags), load, str(len(n.tokens)), own, n.host_id or "", n.rack]

    def rows_of(dc: str) -> list[Node]:
        nodes = [n for n in cluster.nodes if n.dc == dc]
        if version == "trunk":  # sorted by token (one per node) or by host ID
            return sorted(nodes, key=lambda n: n.tokens[0] if per_node else (n.host_id or ""))
        rng.shuffle(nodes)  # an ArrayListMultimap's HashMap order
        return nodes

    out: list[str] = []
    if version == "3.11":  # one printf format (Status.getFormat)
        width = max(len(printed_id(n, version, flags)) for n in cluster.nodes)

        def line(status: str, state: str, address: str, load: str, count: str, own: str, host: str, token: str,
                 rack: str) -> str:
            return (f"{status}{state}  " + _left(address, width) + "  " + _left(load, 9) + "  "
                    + ("" if per_node else _left(count, 11) + "  ") + _left(own, 16 if effective else 6) + "  "
                    + _left(host, 36) + "  " + (_left(token, 39) + "  " if per_node else "") + rack + "\n")

        for dc in dcs:
            header = f"Datacenter: {dc}\n"
            out.append(header + "=" * (len(header) - 1) + "\n")
            out.append("Status=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n")
            out.append(line("-", "-", "Address", "Load", "Tokens", owns_header, "Host ID", "Token", "Rack"))
            for n in rows_of(dc):
                own = f"{100 / len(cluster.nodes):.1f}%" if effective else "?"
                load = stringify_file_size(n.load, version) if n.load is not None else "?"
                out.append(line(_LETTER[n.status], _STATE[n.state], printed_id(n, version, flags), load,
                                str(len(n.tokens)), own, n.host_id if n.host_id is not None else "null",
                                str(n.tokens[0]), n.rack))
        out.append("\n" + ("" if effective else "Note: Non-system keyspaces don't have the same replication settings, "
                                               "effective ownership information is meaningless\n"))
        return "".join(out)
    header_row = ["--", "Address", "Load"] + (["Tokens"] if not per_node else []) + [owns_header, "Host ID"] + \
                 (["Token"] if per_node else []) + ["Rack"]
    tables = {dc: [header_row] + [cells(n) for n in rows_of(dc)] for dc in dcs}
    widths = [max(len(r[i]) if r[i] else 1 for rows in tables.values() for r in rows) for i in range(len(header_row))]
    for i, dc in enumerate(dcs):
        if i:
            out.append("\n")
        header = f"Datacenter: {dc}\n"
        out.append(header + "=" * (len(header) - 1) + "\n")
        out.append("Status=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n")
        for r in tables[dc]:
            out.append("  ".join(_left(c, w) for c, w in zip(r, widths, strict=True)) + "\n")
    out.append("\n" + ("" if effective else "Note: Non-system keyspaces don't have the same replication settings, "
                                           "effective ownership information is meaningless\n"))
    return "".join(out)


def print_describering(cluster: Cluster, replicas: dict[tuple[int, int], list[str]], version: str,
                       flags: Flags = Flags(), *, rng: random.Random | None = None) -> str:
    """`replicas`: (left, right) -> endpoints as Cassandra lists them (addresses; ports with -pp)."""
    rng = rng or random.Random(0)
    by_address = {n.ip: n for n in cluster.nodes}
    items = list(replicas.items())
    rng.shuffle(items)  # a HashMap's order
    out = ["Schema Version:59adb24e-f3cd-3e02-97f0-5b395827453f\n", "TokenRange: \n"]
    for (left, right), endpoints in items:
        hosts = [_with_port(e, by_address[e].port) if flags.print_port and version != "3.11" else e for e in endpoints]
        details = [f"EndpointDetails(host:{h}, datacenter:{by_address[e].dc}, rack:{by_address[e].rack})"
                   for h, e in zip(hosts, endpoints, strict=True)]
        out.append(f"\tTokenRange(start_token:{left}, end_token:{right}, endpoints:[{', '.join(hosts)}], "
                   f"rpc_endpoints:[{', '.join(endpoints)}], endpoint_details:[{', '.join(details)}])\n")
    return "".join(out)


def _quote(name: str) -> str:
    """ColumnIdentifier.maybeQuote: unquoted only for lower-case identifiers."""
    return name if name.isidentifier() and name == name.lower() else '"' + name.replace('"', '""') + '"'


def print_schema(cluster: Cluster, version: str, *, qualified: bool = False, rng: random.Random | None = None) -> str:
    """DESCRIBE SCHEMA: each keyspace's CREATE KEYSPACE and a table, system keyspaces first."""
    rng = rng or random.Random(0)
    out = ["CREATE KEYSPACE system_auth WITH replication = {'class': 'org.apache.cassandra.locator.SimpleStrategy', "
           "'replication_factor': '1'}  AND durable_writes = true;\n\n",
           "/*\nWarning: Keyspace system_views is a virtual keyspace and cannot be recreated with CQL.\n"
           "Structure, for reference:\nVIRTUAL KEYSPACE system_views;\n*/\n\n"]
    for name, options in cluster.keyspaces:
        cls = options["class"]
        shown = f"org.apache.cassandra.locator.{cls}" if qualified else cls
        rest = "".join(f", '{k}': '{v}'" for k, v in sorted(options.items()) if k != "class")
        gap = "  " if version != "3.11" else " "
        out.append(f"CREATE KEYSPACE {_quote(name)} WITH replication = {{'class': '{shown}'{rest}}}{gap}AND "
                   f"durable_writes = {rng.choice(['true', 'false'])};\n\n")
        out.append(f"CREATE TABLE {_quote(name)}.t (\n    id int PRIMARY KEY,\n    v text\n) WITH comment = 'a ''quoted''; "
                   "comment'\n    AND gc_grace_seconds = 864000;\n\n")
    return "".join(out)


__all__ = ["VERSIONS", "Cluster", "Flags", "Node", "print_describering", "print_ring", "print_schema",
           "print_status", "printed_id", "stringify_file_size"]
