"""What `execute` returns, and the field readers every transformation uses to parse its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from attrs import frozen

from spec.tokens import MAX_TOKEN, MIN_TOKEN

if TYPE_CHECKING:
    from impl.metadata.metadata import Metadata


@frozen(kw_only=True)
class Accepted:
    """The transformation committed: `metadata` is the next metadata, at epoch + 1."""

    metadata: Metadata
    kind: str


@frozen
class Rejected:
    """The transformation is refused at this epoch; `reason` is stable and human-readable."""

    reason: str


Result = Accepted | Rejected


class Malformed(Exception):
    """Raised by the field readers; `execute` turns it into `Rejected("malformed: ...")`."""


def node_field(t: Mapping[str, Any], name: str = "node") -> str:
    value = t.get(name)
    if not isinstance(value, str) or not value:
        raise Malformed(f"{t.get('kind')}: field {name!r} must be a non-empty node id")
    return value


def id_list(t: Mapping[str, Any], name: str, *, default: list[str] | None = None) -> list[str]:
    value = t.get(name, default)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise Malformed(f"{t.get('kind')}: field {name!r} must be a list of node ids")
    if len(set(value)) != len(value):
        raise Malformed(f"{t.get('kind')}: field {name!r} repeats a node id")
    return value


def token_list(t: Mapping[str, Any], name: str = "tokens") -> tuple[int, ...]:
    value = t.get(name)
    if not isinstance(value, list) or not value:
        raise Malformed(f"{t.get('kind')}: field {name!r} must be a non-empty list of tokens")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int) or not (MIN_TOKEN <= v <= MAX_TOKEN):
            raise Malformed(f"{t.get('kind')}: bad token {v!r} (integers in (-2**63, 2**63-1])")
    if len(set(value)) != len(value):
        raise Malformed(f"{t.get('kind')}: field {name!r} repeats a token")
    return tuple(sorted(value))


def string_field(t: Mapping[str, Any], name: str) -> str:
    value = t.get(name)
    if not isinstance(value, str) or not value:
        raise Malformed(f"{t.get('kind', t.get('op'))}: field {name!r} must be a non-empty string")
    return value
