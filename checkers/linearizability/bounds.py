"""The bounds of a check: how often a search looks at the clock, and how big its memo may grow.

A check that runs out of either answers "unknown" with the cause (`verdict.TIMEOUT`,
`verdict.CACHE_LIMIT`), never a wrong verdict. The memo bound is a number of entries, not
bytes or seconds, so the same command on one machine reaches it, or not, every time.
"""

from __future__ import annotations

import os

SLICE = 2048
"""Search iterations between two looks at the clock and the memo size (about a millisecond)."""

BYTES_PER_ENTRY = 250
"""What a memo entry costs, rounded up: ~210 bytes measured (tracemalloc) for registers and for
kv with short values; a long kv value adds its length (states are kept, not copied, mostly)."""


def _default_max_cache() -> int:
    """A quarter of this machine's physical memory in memo entries, and at least 3,000,000
    (the limit before issue 24). Only the search's memo grows with a history's difficulty (a
    search that runs straight through stores nothing), so this bounds the memory a check can
    take; and it is a number of entries, not seconds, so the same command on one machine
    reaches it, or not, every time."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # (no sysconf: not a POSIX system)
        return 3_000_000
    return max(3_000_000, memory // 4 // BYTES_PER_ENTRY)


DEFAULT_MAX_CACHE = _default_max_cache()
"""Memo entries over all running parts at once before the answer is "unknown" (cause
"cache-limit"): see `_default_max_cache`. `tcmcheck check-history --max-states` overrides it."""

FREE_SECONDS_PER_STATE = 4e-7
"""Time to free one memo entry (measured ~0.2 us, doubled): a search stops early enough
before the deadline to give its memory back in time, so "unknown" comes within the timeout."""
