"""`nodetool describering KEYSPACE` output -> the ranges and endpoints Cassandra reports.

The format (tools/nodetool/DescribeRing.java; each range is `TokenRange.toString`, from the Thrift
class up to 3.11 and service/TokenRange.java since 4.0, the same text):

    Schema Version:1176b7ac-8993-395d-85fd-41b89ef49fbb
    TokenRange:
    <TAB>TokenRange(start_token:-3074457345618258603, end_token:3074457345618258602, endpoints:[10.0.0.2, 10.0.0.3], rpc_endpoints:[...], endpoint_details:[EndpointDetails(host:10.0.0.2, datacenter:dc1, rack:r1), ...])

Ranges are `(start, end]` (Cassandra's `Range`), one per pair of consecutive ring tokens, in no
particular order (a HashMap); `endpoints` are the natural replicas as addresses, with a port
under `-pp` (`[::1]:7000` for IPv6). Only the tokens and `endpoints` are read. The ranges must
tile the ring, each token once: a file cut at a line boundary loses a range, which is refused here
rather than reported as a difference.
"""

from __future__ import annotations

import re

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.nodetool_common import ERROR, TOKEN_TEXT, numbered_lines, shown, token
from spec.tokens import Range


@frozen(kw_only=True)
class DescribedRange:
    range: Range
    endpoints: tuple[str, ...]
    line: int


_RANGE = re.compile(rf"^\s*TokenRange\(start_token:(?P<start>{TOKEN_TEXT}), end_token:(?P<end>{TOKEN_TEXT}), "
                    r"endpoints:\[(?P<endpoints>.*?)\](?P<rest>, rpc_endpoints:.*|, endpoint_details:.*|)\)\s*$")
_HEAD = re.compile(r"^\s*(Schema Version:.*|TokenRange:\s*)$")


def parse_describering(text: str, where: str) -> tuple[DescribedRange, ...]:
    """Every range of a `nodetool describering` output, checked to tile the ring once."""
    out: list[DescribedRange] = []
    for n, line in numbered_lines(text):
        at = f"{where}: line {n}"
        if not line.strip() or _HEAD.match(line):
            continue
        if (m := ERROR.match(line)) is not None:
            raise BadInput(f"{at}: nodetool describering failed: {shown(m.group('what'))}")
        m = _RANGE.match(line)
        if m is None:
            raise BadInput(f"{at}: not a TokenRange(start_token:..., end_token:..., endpoints:[...], ...) line "
                           f"of nodetool describering, cut or edited? {shown(line)}")
        endpoints = tuple(e.strip() for e in m.group("endpoints").split(",")) if m.group("endpoints").strip() else ()
        if any(not e or " " in e for e in endpoints):
            raise BadInput(f"{at}: endpoints [{m.group('endpoints')}] is not a list of addresses")
        if len(set(endpoints)) != len(endpoints):
            raise BadInput(f"{at}: an endpoint is listed twice in [{m.group('endpoints')}]")
        out.append(DescribedRange(range=Range(token(m.group("start"), at), token(m.group("end"), at)),
                                  endpoints=endpoints, line=n))
    if not out:
        raise BadInput(f"{where}: no TokenRange line: is this the output of nodetool describering?")
    _check_tiling(out, where)
    return tuple(sorted(out, key=lambda d: d.range.right))


def _check_tiling(ranges: list[DescribedRange], where: str) -> None:
    """Each range ends where another starts, and the ranges go round the ring exactly once."""
    by_start: dict[int, DescribedRange] = {}
    for d in ranges:
        if d.range.left in by_start:
            raise BadInput(f"{where}: line {d.line}: two ranges start at token {d.range.left} "
                           f"(also line {by_start[d.range.left].line})")
        by_start[d.range.left] = d
    if len(ranges) == 1:
        if not ranges[0].range.is_full_ring:
            raise BadInput(f"{where}: line {ranges[0].line}: one range that is not the whole ring: the output is cut")
        return
    ends = {d.range.right for d in ranges}
    for d in ranges:
        if d.range.right not in by_start:
            raise BadInput(f"{where}: line {d.line}: no range starts at token {d.range.right}, where this one "
                           "ends: the output is cut (a range is missing)")
        if d.range.left not in ends:
            raise BadInput(f"{where}: line {d.line}: no range ends at token {d.range.left}, where this one "
                           "starts: the output is cut (a range is missing)")
    wrapping = [d for d in ranges if d.range.wraps]
    if len(wrapping) != 1:
        raise BadInput(f"{where}: the ranges go round the ring {len(wrapping)} times, not once")


__all__ = ["DescribedRange", "parse_describering"]
