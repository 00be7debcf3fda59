"""What nodetool prints that the round trip does not draw on purpose: a rack that runs into
Status, 3.11's "null" host ID, IPv6 with a port, Cassandra's own checksums of a complete output
(the DC's last token, the vnode warning), and its error lines."""

from __future__ import annotations

import pytest

from campaign.errors import BadInput
from campaign.formats.nodetool_common import Mode, NodeLiveness
from campaign.formats.nodetool_ring import parse_ring
from campaign.formats.nodetool_status import parse_status

RING = """
Datacenter: eu west
==========
Address                            Rack        Status State   Load            Owns                Token
                                                                                                  200
[2001:db8:1:0:0:0:1:1]:7000        rack-us-east-1aUp     Normal  1023.5 bytes    50.00%              100
[2001:db8:1:0:0:0:1:2]:7000        zone b      Down   Leaving ?               50,00%              200

"""


def test_a_long_rack_a_rack_with_a_space_ipv6_with_a_port_and_a_decimal_comma() -> None:
    a, b = parse_ring(RING, "r.txt")
    assert (a.address, a.dc, a.rack, a.liveness, a.mode, a.tokens) == (
        "[2001:db8:1:0:0:0:1:1]:7000", "eu west", "rack-us-east-1a", NodeLiveness.UP, Mode.NORMAL, (100,))
    assert (b.rack, b.liveness, b.mode) == ("zone b", NodeLiveness.DOWN, Mode.LEAVING)


def test_status_in_3_11s_one_token_layout_with_a_null_host_id() -> None:
    text = ("Datacenter: dc1\n===============\nStatus=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n"
            "--  Address    Load       Owns    Host ID                               Token"
            + " " * 34 + "  Rack\n"
            "UN  127.0.0.1  104.2 KB   ?       null                                  -9223372036854775808"
            + " " * 19 + "  rack1\n")
    (n,) = parse_status(text, "s.txt")
    assert (n.address, n.host_id, n.token, n.token_count, n.rack) == ("127.0.0.1", None, -(2**63), 1, "rack1")


@pytest.mark.parametrize("text, needle", [
    (RING.replace("                                                                                                  200\n", ""),
     "lacks the line nodetool prints before its rows"),
    (RING.replace("100\n", "300\n"), "token 200 after 300"),
    ("\nDatacenter: dc1\n==========\nAddress  Rack  Status State   Load  Owns  Token\n"
     "                                    5\n10.0.0.1  r1  Up     Normal  ?  ?  1\n10.0.0.1  r1  Up     Normal  ?  ?  5\n",
     "the vnode warning nodetool ring prints after the last datacenter is missing"),
    ("\nDatacenter: dc1\n==========\nAddress  Rack  Status State   Load  Owns  Token\n\n10.0.0.1  r1  Up     Normal  ?  ?  1\n"
     '  Warning: "nodetool ring" is used to output all the tokens of a node.\n',
     "every node listed here holds one: rows are missing"),
    ("nodetool: Failed to connect to '127.0.0.1:7199'\n", "not a row of nodetool ring"),
    ("\nError: The keyspace ks, does not exist\n", "nodetool ring failed: 'The keyspace ks, does not exist'"),
    ("", "no 'Datacenter:' section"),
    ("\nDatacenter: dc1\n==========\n10.0.0.1  r1  Up     Normal  ?  ?  1\n", "the header is missing"),
])
def test_a_ring_that_is_not_whole_is_refused(text: str, needle: str) -> None:
    with pytest.raises(BadInput) as e:
        parse_ring(text, "r.txt")
    assert str(e.value).startswith("r.txt") and needle in str(e.value), str(e.value)
