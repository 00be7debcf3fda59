"""Rendering a prover `Verdict`: DESIGN's JSON shape and a one-paragraph explanation (no I/O)."""

from __future__ import annotations

from typing import Any

from checkers.quorum.verdict import (
    DISJOINT_ACROSS_EPOCHS,
    STALE_COORDINATOR,
    UNSAFE_BY_DESIGN,
    Counterexample,
    Verdict,
)

RESULT = {True: "proved", False: "counterexample", "unknown": "unknown"}


def counterexample_json(c: Counterexample) -> dict[str, Any]:
    return {
        "keyspace": c.keyspace,
        "range": [c.range.left, c.range.right],
        "read_epoch": c.read_epoch,
        "write_epoch": c.write_epoch,
        "read_quorum": sorted(c.read_quorum),
        "write_quorum": sorted(c.write_quorum),
    }


def verdict_json(v: Verdict) -> dict[str, Any]:
    """`{"result", "checked", "counterexamples": [...]}`, exactly DESIGN's `tcmcheck prove` shape."""
    return {
        "result": RESULT[v.valid],
        "checked": v.checked,
        "counterexamples": [counterexample_json(c) for c in v.counterexamples],
    }


def describe_cause(v: Verdict) -> str:
    """One line saying what kind of failure the verdict found ('' when proved)."""
    if v.cause == UNSAFE_BY_DESIGN:
        return ("unsafe by design: these consistency levels (and coordinator DCs) give disjoint "
                "read and write quorums even when both coordinators use the same epoch")
    if v.cause == DISJOINT_ACROSS_EPOCHS:
        return "read and write quorums taken at different epochs can be disjoint"
    if v.cause == STALE_COORDINATOR:
        return ("a lagging coordinator can complete a request whose quorum misses one taken at "
                "the newest epoch without meeting any replica that knows a newer epoch")
    if v.valid == "unknown":
        return "the solver could not decide some check"
    return ""


def describe(c: Counterexample) -> str:
    """One counterexample as a sentence, e.g. for logs."""
    where = f"{c.keyspace} ({c.range.left}, {c.range.right}]"
    dcs = ""
    if c.read_dc or c.write_dc:
        dcs = f" (read coordinator in {c.read_dc}, write coordinator in {c.write_dc})"
    text = (f"{where}: read quorum {{{', '.join(c.read_quorum)}}} at epoch {c.read_epoch} and write quorum "
            f"{{{', '.join(c.write_quorum)}}} at epoch {c.write_epoch} are disjoint{dcs}")
    if c.knowledge:
        text += "; replicas had seen epochs " + ", ".join(f"{n}:{e}" for n, e in c.knowledge)
    return text
