"""Counts in the lines the commands print: "1 run", "2 runs"."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """`n` and the noun, plural unless `n` is 1 (nouns with a plain -s plural)."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


__all__ = ["counted"]
