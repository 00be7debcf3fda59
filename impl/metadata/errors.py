"""Errors raised by impl's metadata engine (a rejected transformation is a value, not an error)."""

from __future__ import annotations


class InvalidTopology(ValueError):
    """A topology document that cannot describe a cluster; the message is one line."""
