"""The compiled module (`cwgl.c`), or None: built at install where there is a C compiler, kept
out by `TCMCHECK_PURE_PYTHON=1` (not even imported then; read once, at import).

A module of its own so that witness.py, below compiled.py, can check an order in C
(`witness.lined_up`); compiled.py's `cwgl` is this one, under the name its tests switch off.
"""

from __future__ import annotations

import os
from types import ModuleType

PURE_PYTHON = "TCMCHECK_PURE_PYTHON"
"""The switch that keeps the compiled search out: `TCMCHECK_PURE_PYTHON=1` (any value but empty
or 0) and cwgl is not even imported; every part is decided in Python, with the same verdicts
(for a suspected fault in the C code, or to compare). Read once, when this module is imported."""


def pure_python() -> bool:
    """Is the compiled search switched off (`TCMCHECK_PURE_PYTHON`)?"""
    return os.environ.get(PURE_PYTHON, "") not in ("", "0")


cwgl: ModuleType | None = None
if not pure_python():
    try:
        from checkers.linearizability import cwgl
    except ImportError:  # built without a C compiler: the Python search decides every part
        cwgl = None
