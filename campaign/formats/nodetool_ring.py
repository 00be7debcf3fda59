"""`nodetool ring` output -> one `RingNode` per endpoint (its DC, rack, liveness, state, tokens).

The format (tools/nodetool/Ring.java; the same from 3.11 through 4.0, 4.1, 5.0 and trunk, where
only the address may carry a port):

    (blank)
    Datacenter: dc1                                   one section per DC, sorted by name
    ==========
    Address    Rack        Status State   Load            Owns                Token
                                                                              <last token of the DC>
    10.0.0.1   r1          Up     Normal  1.5 GiB         33.33%              -9223372036854775808
    ...                                                   one row per token, ascending
    (blank)
      Warning: "nodetool ring" is used to output all the tokens of a node.     only with vnodes
      To view status related info of a node use "nodetool status" instead.
      Note: ...                                                                 optional

Each row is printed with `"%-<max address>s  %-12s%-7s%-8s%-16s%-20s%-44s%n"`: a rack of 12
characters or more runs into the Status column, a Load has a space ("1.5 GiB"), and with `-r` a
host name may be longer than the address column. So a row is read from both ends: the address is
its first word, the token its last, and Status, State, Load and Owns are found between them from
the right; what remains is the rack. The per-DC line that repeats the DC's last token (printed when
the DC has more than one row) and the vnode warning (printed after the last DC when some node has
several tokens) are Cassandra's own checksums: a file cut off loses one of them, and is refused.
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
class RingNode:
    """One endpoint of `nodetool ring`: `address` exactly as printed (with `-r` a host name,
    with `-pp` a port)."""

    address: str
    dc: str
    rack: str
    liveness: NodeLiveness
    mode: Mode
    tokens: tuple[int, ...]
    line: int
    """The line of its first row."""


_DC = re.compile(r"^Datacenter: ?(?P<dc>.*)$")
_RULE = re.compile(r"^=+\s*$")
_HEADER = re.compile(r"^Address\s+Rack\s+Status\s+State\s+Load\s+Owns\s+Token\s*$")
_LAST_TOKEN = re.compile(rf"^\s+(?P<token>{TOKEN_TEXT})\s*$")
_ROW = re.compile(
    rf"^(?P<address>\S+)\s+(?P<rack>\S.*?)\s*(?P<status>Up|Down|\?)\s+(?P<state>Normal|Joining|Leaving|Moving)"
    rf"\s+(?P<load>{LOAD})\s+(?P<owns>{OWNS})\s+(?P<token>{TOKEN_TEXT})\s*$")
_VNODE_WARNING = ('Warning: "nodetool ring" is used to output all the tokens of a node.',
                  'To view status related info of a node use "nodetool status" instead.')
COLUMNS = "Address Rack Status State Load Owns Token"


@frozen(kw_only=True)
class _Section:
    dc: str
    line: int
    last_token: int | None
    rows: tuple[tuple[int, str, str, NodeLiveness, Mode, int], ...]  # line, address, rack, status, state, token


def parse_ring(text: str, where: str) -> tuple[RingNode, ...]:
    """The endpoints of a `nodetool ring` output, in the order printed (DC by DC, by first token)."""
    sections: list[_Section] = []
    dc: tuple[str, int] | None = None
    header = False
    last: int | None = None
    rows: list[tuple[int, str, str, NodeLiveness, Mode, int]] = []
    warning: list[str] = []

    def close() -> None:
        if dc is not None:
            sections.append(_Section(dc=dc[0], line=dc[1], last_token=last, rows=tuple(rows)))

    for n, line in numbered_lines(text):
        at = f"{where}: line {n}"
        stripped = line.strip()
        if not stripped:
            continue
        if (m := ERROR.match(line)) is not None:
            raise BadInput(f"{at}: nodetool ring failed: {shown(m.group('what'))}")
        if stripped in _VNODE_WARNING:
            warning.append(stripped)
            continue
        if NOTE.match(line):
            continue
        if (m := _DC.match(line)) is not None:
            close()
            name = m.group("dc").strip()
            if not name:
                raise BadInput(f"{at}: a 'Datacenter:' line with no name")
            dc, header, last, rows = (name, n), False, None, []
            continue
        if _RULE.match(line):
            continue
        if _HEADER.match(line):
            if dc is None:
                raise BadInput(f"{at}: the column header comes before any 'Datacenter:' line")
            header = True
            continue
        if (m := _LAST_TOKEN.match(line)) is not None and header and not rows and last is None:
            last = token(m.group("token"), at)
            continue
        m = _ROW.match(line)
        if m is None:
            raise BadInput(f"{at}: not a row of nodetool ring ({COLUMNS}), cut or edited? {shown(line)}")
        if dc is None or not header:
            raise BadInput(f"{at}: a ring row before the {'column header' if dc else 'Datacenter: line'} "
                           f"({COLUMNS}): the header is missing")
        rows.append((n, m.group("address"), m.group("rack").strip(), NodeLiveness(m.group("status")),
                     Mode(m.group("state")), token(m.group("token"), at)))
    close()
    return _nodes(sections, warning, where)


def _nodes(sections: list[_Section], warning: list[str], where: str) -> tuple[RingNode, ...]:
    if not sections:
        raise BadInput(f"{where}: no 'Datacenter:' section: is this the output of nodetool ring?")
    seen_dcs: set[str] = set()
    by_address: dict[str, list[tuple[int, str, str, NodeLiveness, Mode, int]]] = {}
    dc_of: dict[str, str] = {}
    owner: dict[int, str] = {}
    for s in sections:
        at = f"{where}: line {s.line}"
        if s.dc in seen_dcs:
            raise BadInput(f"{at}: datacenter {s.dc} is listed twice")
        seen_dcs.add(s.dc)
        if not s.rows:
            raise BadInput(f"{at}: datacenter {s.dc} has no rows: the output is cut")
        # Ring.printDc prints the DC's last token first when the DC has more than one row
        if len(s.rows) > 1 and s.last_token is None:
            raise BadInput(f"{at}: datacenter {s.dc} lacks the line nodetool prints before its rows "
                           "(the DC's last token): edited or cut?")
        if s.last_token is not None and s.last_token != s.rows[-1][5]:
            raise BadInput(f"{where}: line {s.rows[-1][0]}: datacenter {s.dc}'s rows end at token "
                           f"{s.rows[-1][5]}, but nodetool printed its last token as {s.last_token}: "
                           "the output is cut")
        previous: int | None = None
        for n, address, rack, status, state, t in s.rows:
            if previous is not None and t <= previous:
                raise BadInput(f"{where}: line {n}: token {t} after {previous}: nodetool ring lists a "
                               "datacenter's tokens in ascending order (edited?)")
            previous = t
            if t in owner:
                raise BadInput(f"{where}: line {n}: token {t} is listed for {owner[t]} and {address}")
            owner[t] = address
            if dc_of.setdefault(address, s.dc) != s.dc:
                raise BadInput(f"{where}: line {n}: {address} is listed in datacenters {dc_of[address]} and {s.dc}")
            by_address.setdefault(address, []).append((n, address, rack, status, state, t))
    nodes = []
    for address, node_rows in by_address.items():
        first = node_rows[0]
        for n, _, rack, status, state, _ in node_rows[1:]:
            if (rack, status, state) != first[2:5]:
                raise BadInput(f"{where}: line {n}: {address} is shown as {rack}/{status.value}/{state.value} "
                               f"here and {first[2]}/{first[3].value}/{first[4].value} on line {first[0]}")
        nodes.append(RingNode(address=address, dc=dc_of[address], rack=first[2], liveness=first[3],
                              mode=first[4], tokens=tuple(r[5] for r in node_rows), line=first[0]))
    vnodes = any(len(n.tokens) > 1 for n in nodes)
    if vnodes and not warning:
        raise BadInput(f"{where}: some node holds several tokens, but the vnode warning nodetool ring prints "
                       "after the last datacenter is missing: the output is cut")
    if warning and not vnodes:
        raise BadInput(f"{where}: nodetool's vnode warning says some node holds several tokens, but every "
                       "node listed here holds one: rows are missing")
    return tuple(nodes)


__all__ = ["COLUMNS", "RingNode", "parse_ring"]
