"""`nodetool status` output -> one `StatusNode` per endpoint (liveness, state, host ID, rack and
its token count or token).

The format (tools/nodetool/Status.java):

    Datacenter: dc1
    ===============                                   as long as the line above
    Status=Up/Down
    |/ State=Normal/Leaving/Joining/Moving
    --  Address    Load       Tokens  Owns (effective)  Host ID                               Rack
    UN  10.0.0.1   1.5 GiB    16      33.3%             6d1a...                               r1

3.11 prints each row with a printf format (`"%s%s  %-<max>s  %-9s  %-11s  %-16s  %-36s  %s%n"`,
a null host ID as "null"); 4.0 to 5.0 and trunk use a TableBuilder with two-space columns shared
by all DCs (a null host ID as an empty column), a blank line between DCs, and trunk sorts the rows
(by host ID, or by token with one token per node; `-s/--sort`, `-o/--order` in trunk). When
Status decides there is one token per node it prints a `Token` column (the token) in place of
`Tokens` (the count): 3.11 to 5.0 decide that as "fewer DCs than tokens" (so only a one-node-per-DC
cluster qualifies), trunk as "fewer host IDs than tokens". Both layouts are read; the header says
which one a DC uses. A Load has a space ("1.5 GiB"); the rack is the rest of the line.
"""

from __future__ import annotations

import re

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.nodetool_common import (
    ERROR,
    LOAD,
    NOTE,
    OWNS,
    TOKEN_TEXT,
    Mode,
    NodeLiveness,
    numbered_lines,
    shown,
    token,
)


@frozen(kw_only=True)
class StatusNode:
    address: str
    dc: str
    rack: str
    liveness: NodeLiveness
    mode: Mode
    host_id: str | None
    token_count: int
    token: int | None
    """The node's token when Status printed the one-token-per-node layout."""
    line: int


_DC = re.compile(r"^Datacenter: ?(?P<dc>.*)$")
_RULE = re.compile(r"^=+\s*$")
_LEGEND = re.compile(r"^(Status=Up/Down|\|/ State=\S*)\s*$")
_HEADER = re.compile(r"^--\s+Address\s+Load\s+(?P<tokens>Tokens\s+)?Owns( \(effective\))?\s+Host ID\s+"
                     r"(?P<token>Token\s+)?Rack\s*$")
_HOST_ID = r"(?:(?P<host_id>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|null)\s+)?"
_HEAD = rf"^(?P<status>[UD?])(?P<state>[NLJM])\s+(?P<address>\S+)\s+(?P<load>{LOAD})\s+"
_COUNT_ROW = re.compile(rf"{_HEAD}(?P<count>[0-9]+)\s+(?P<owns>{OWNS})\s+{_HOST_ID}(?P<rack>\S.*?)\s*$")
_TOKEN_ROW = re.compile(rf"{_HEAD}(?P<owns>{OWNS})\s+{_HOST_ID}(?P<token>{TOKEN_TEXT})\s+(?P<rack>\S.*?)\s*$")
_ROW_START = re.compile(r"^[UD?][NLJM]\s")
COLUMNS = "--  Address  Load  Tokens  Owns  Host ID  Rack"


def parse_status(text: str, where: str) -> tuple[StatusNode, ...]:
    """The endpoints of a `nodetool status` output, in the order printed."""
    nodes: list[StatusNode] = []
    dc: str | None = None
    layout: re.Pattern[str] | None = None
    seen_dcs: dict[str, int] = {}
    rows_in_dc = 0
    for n, line in numbered_lines(text):
        at = f"{where}: line {n}"
        if not line.strip() or _RULE.match(line) or _LEGEND.match(line) or NOTE.match(line):
            continue
        if (m := ERROR.match(line)) is not None:
            raise BadInput(f"{at}: nodetool status failed: {shown(m.group('what'))}")
        if (m := _DC.match(line)) is not None:
            if dc is not None and rows_in_dc == 0:
                raise BadInput(f"{where}: line {seen_dcs[dc]}: datacenter {dc} has no node rows: is its table missing?")
            dc = m.group("dc").strip()
            if not dc:
                raise BadInput(f"{at}: a 'Datacenter:' line with no name")
            if dc in seen_dcs:
                raise BadInput(f"{at}: datacenter {dc} is listed twice")
            seen_dcs[dc], layout, rows_in_dc = n, None, 0
            continue
        if (m := _HEADER.match(line)) is not None:
            if dc is None:
                raise BadInput(f"{at}: the table header comes before any 'Datacenter:' line")
            layout = _TOKEN_ROW if m.group("token") else _COUNT_ROW
            continue
        if not _ROW_START.match(line):
            raise BadInput(f"{at}: not a line of nodetool status: {shown(line)}")
        if dc is None or layout is None:
            raise BadInput(f"{at}: a node row before the {'table header' if dc else 'Datacenter: line'} "
                           f"({COLUMNS}): the header is missing")
        m = layout.match(line)
        if m is None:
            raise BadInput(f"{at}: not a row of nodetool status "
                           f"({'Token' if layout is _TOKEN_ROW else 'Tokens'} layout), cut or edited? {shown(line)}")
        rows_in_dc += 1
        host_id = m.group("host_id")
        single = token(m.group("token"), at) if layout is _TOKEN_ROW else None
        nodes.append(StatusNode(
            address=m.group("address"), dc=dc, rack=m.group("rack").strip(),
            liveness=NodeLiveness.from_letter(m.group("status")), mode=Mode.from_letter(m.group("state")),
            host_id=None if host_id in (None, "null") else host_id.lower(),
            token_count=1 if single is not None else int(m.group("count")), token=single, line=n))
    if dc is None:
        raise BadInput(f"{where}: no 'Datacenter:' section: is this the output of nodetool status?")
    if rows_in_dc == 0:
        raise BadInput(f"{where}: line {seen_dcs[dc]}: datacenter {dc} has no node rows: the output is cut")
    addresses: dict[str, int] = {}
    for node in nodes:
        if node.address in addresses:
            raise BadInput(f"{where}: line {node.line}: {node.address} is listed twice (also line {addresses[node.address]})")
        addresses[node.address] = node.line
    return tuple(nodes)


__all__ = ["COLUMNS", "StatusNode", "parse_status"]
