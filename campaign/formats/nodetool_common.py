"""What `nodetool ring`, `nodetool status` and `nodetool describering` share: the node's liveness
and state as nodetool words them, the Load and Owns columns, tokens, and reading a text file line
by line with one-line errors that name the file and the line.

The words are Cassandra's (tools/nodetool/Ring.java and Status.java, unchanged from 3.11 to trunk):
a node is "Up" / "U" when the asking node's gossip counts it live (`getLiveNodes`), "Down" / "D"
when unreachable, "?" when neither; its state is "Joining" / "J" (BOOTSTRAPPING or BOOT_REPLACING
under TCM: StorageService.getJoiningNodes), "Leaving" / "L", "Moving" / "M", else "Normal" / "N".
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator

from campaign.errors import BadInput
from campaign.formats.fields import describe
from spec.tokens import MAX_TOKEN, MIN_TOKEN


class NodeLiveness(enum.Enum):
    UP = "Up"
    DOWN = "Down"
    UNKNOWN = "?"

    @classmethod
    def from_letter(cls, letter: str) -> NodeLiveness:
        return {"U": cls.UP, "D": cls.DOWN, "?": cls.UNKNOWN}[letter]


class Mode(enum.Enum):
    """The State column: what the node is doing in the ring."""

    NORMAL = "Normal"
    JOINING = "Joining"
    LEAVING = "Leaving"
    MOVING = "Moving"

    @classmethod
    def from_letter(cls, letter: str) -> Mode:
        return {"N": cls.NORMAL, "J": cls.JOINING, "L": cls.LEAVING, "M": cls.MOVING}[letter]


LOAD = r"(?:\?|[0-9][0-9.,\u00a0']*\s+[A-Za-z]+)"
"""Load: "?" or FileUtils.stringifyFileSize — DecimalFormat("#.##") (the locale's decimal mark)
and a unit: "bytes", KB/MB/GB/TB up to 3.0, KiB/MiB/GiB/TiB since 3.11; any unit is accepted."""
OWNS = r"(?:\?|\S+%)"
"""Owns: "?" or DecimalFormat("##0.00%") (ring) / ("##0.0%") (status), locale-dependent."""
TOKEN_TEXT = r"\S+"
"""A token as printed (validated by `token`, so that a non-Murmur3 token gets its own message)."""

_INTEGER = re.compile(r"-?[0-9]+")
_DIGITS = 20
"""Digits a token may have (2**63 has 19); longer ones are refused before conversion."""


def token(text: str, where: str) -> int:
    """A Murmur3 token as nodetool prints it (`Long.toString`)."""
    if not _INTEGER.fullmatch(text):
        raise BadInput(f"{where}: token {describe(text)} is not a Murmur3 token (an integer): "
                       "tcmcheck models Murmur3Partitioner only")
    if len(text.lstrip("-")) > _DIGITS:
        raise BadInput(f"{where}: token {describe(text)} ({len(text.lstrip('-'))} digits) is outside the Murmur3 "
                       "range [-2**63, 2**63-1] (RandomPartitioner's tokens are not modelled)")
    value = int(text)
    if not MIN_TOKEN <= value <= MAX_TOKEN:
        raise BadInput(f"{where}: token {value} is outside the Murmur3 range [-2**63, 2**63-1] "
                       "(RandomPartitioner's tokens are not modelled)")
    return value


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line without its end) for every line of `text`; tabs kept."""
    for n, line in enumerate(text.splitlines(), start=1):
        yield n, line.rstrip("\r")


def shown(line: str) -> str:
    """A line of a user's file, short and quoted, for an error message."""
    return describe(line.strip())


NOTE = re.compile(r"^\s*(Note|Warning): ")
"""Ring's and status's closing remarks ("Note: Non-system keyspaces don't have the same
replication settings, effective ownership information is meaningless"), and the vnode warning."""
ERROR = re.compile(r"^\s*(Error|error): (?P<what>.*)$")
"""nodetool's own failure ("Error: ..."), printed instead of a table."""


__all__ = ["ERROR", "LOAD", "NOTE", "OWNS", "TOKEN_TEXT", "NodeLiveness", "Mode", "numbered_lines", "shown", "token"]
