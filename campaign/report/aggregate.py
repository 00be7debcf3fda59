"""What `tcmcheck report` says about one or many campaigns, computed by merging partial tallies.

`Tally.of(rows)` counts one batch of runs.parquet rows; `merge` adds two tallies. The local
report folds every row into one tally; the Spark report (campaign/report/spark_tally.py) makes a
tally per partition on the executors and merges them, so both engines give the same summary.
A failure's class is the row's `cause_class` (what the run's `Cause` said); campaigns written
before that column existed are read through `legacy_class`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from campaign.run.findings import known_finding
from campaign.run.paths import JUDGED_PATHS, PROTOCOL_PATHS

MAX_FAILURE_ROWS = 100_000
"""Failing rows kept for the listing (a campaign with more is broken in one way anyway)."""


def legacy_class(cause: str | None) -> str:
    """The class of a cause line in a campaign written before runs.parquet had `cause_class`
    (tcmcheck 0.1): the rules that version used, for reading its files only."""
    if cause is None:
        return ""
    if cause.startswith("crash: "):
        return cause.split(":", 2)[0] + ":" + cause.split(":", 2)[1]
    head = cause.split(" in ", 1)[0] if cause.startswith("quorum:") else cause
    if cause.startswith("step "):
        head = cause.split(": ", 1)[-1]
        if head.startswith("invariant "):
            head = head.split(":", 1)[0]
    elif cause.startswith("logs: "):
        head = cause.split(" at epoch", 1)[0]
    elif cause.startswith(("apply failure", "conflict", "spec replay")):
        head = cause.split(":", 1)[0]
    elif cause.startswith("stateful "):
        head = ":".join(cause.split(":", 3)[:3])
    elif cause.startswith("liveness: "):
        head = ":".join(cause.split(":", 2)[:2])
    elif cause.startswith("durability: "):
        head = "durability: replicas disagree at the end"
    elif cause.startswith("holdings: "):
        rest = cause.split(": ", 1)[1]
        head = "holdings: " + (rest.split(": ", 1)[1] if ": metadata differs" in rest
                               else "applied epoch goes backwards")
    across = cause.rsplit("(across ", 1)
    return head + (f" (across {across[1]}" if len(across) == 2 else "")


def class_of(row: dict[str, Any]) -> str:
    """A failing row's cause class."""
    return str(row.get("cause_class") or legacy_class(row.get("cause")))


def fixes_of(row: dict[str, Any]) -> list[str]:
    return [x for x in (row.get("fix") or "").split(",") if x]


def group_of(row: dict[str, Any]) -> str:
    """The impl variant a run tested: its mutant and/or fix (columns that may be absent)."""
    parts = [f"mutant {row['mutant']}" if row.get("mutant") else "", f"fix {row['fix']}" if row.get("fix") else ""]
    return " + ".join(p for p in parts if p) or "as specified"


def _add(into: dict[Any, Any], key: Any, n: float = 1) -> None:
    into[key] = into.get(key, 0) + n


class Tally:
    def __init__(self) -> None:
        self.kinds: dict[str, list[float]] = {}  # kind -> [runs, failed, seconds]
        self.causes: dict[str, int] = {}
        self.groups: dict[str, list[int]] = {}  # mutant/fix -> [runs, failed]
        self.group_causes: dict[tuple[str, str], int] = {}
        self.transformations: dict[tuple[str, str], int] = {}  # (run kind, transformation kind)
        self.faults: dict[str, int] = {}  # fault kind -> runs with it
        self.operations: dict[tuple[str, str], int] = {}  # (run kind, operation kind) -> started
        self.ended: dict[str, int] = {}  # "OP OUTCOME" (sim: how the nodes' operations ended) -> n
        self.focus: dict[str, int] = {}  # the focus a run was aimed by (`Focus.text`) -> runs
        self.paths: dict[str, list[int]] = {}  # protocol path -> [runs that took it, times taken]
        self.judged: dict[str, list[int]] = {}  # a promise's path -> [runs that judged it, times]
        self.steps: dict[tuple[str, int], int] = {}  # (run kind, steps) -> runs
        self.per_second: dict[int, int] = {}  # unix second a run finished -> runs
        self.failures: list[dict[str, Any]] = []

    @classmethod
    def of(cls, rows: Iterable[dict[str, Any]]) -> Tally:
        t = cls()
        for r in rows:
            t.add(r)
        return t

    def add(self, r: dict[str, Any]) -> None:
        failed = not r["valid"]
        k = self.kinds.setdefault(r["kind"], [0, 0, 0.0])
        k[0] += 1
        k[1] += failed
        k[2] += r.get("duration_s") or 0.0
        group = group_of(r)
        g = self.groups.setdefault(group, [0, 0])
        g[0] += 1
        g[1] += failed
        _add(self.steps, (r["kind"], int(r.get("steps") or 0)))
        _add(self.focus, r.get("focus") or "none")
        if r.get("finished_at") is not None:
            _add(self.per_second, int(r["finished_at"]))
        try:
            cov = json.loads(r.get("coverage_json") or "{}")
        except ValueError:
            cov = {}
        if isinstance(cov, dict):
            for name, n in (cov.get("transformations") or {}).items():
                _add(self.transformations, (r["kind"], str(name)), int(n))
            for name in cov.get("faults") or {}:
                _add(self.faults, str(name))
            for name, n in (cov.get("operations") or {}).items():
                _add(self.operations, (r["kind"], str(name)), int(n))
            for name, n in (cov.get("operations_ended") or {}).items():
                _add(self.ended, str(name), int(n))
            for into, part in ((self.paths, "paths"), (self.judged, "judged")):
                for name, n in (cov.get(part) or {}).items():
                    p = into.setdefault(str(name), [0, 0])
                    p[0] += 1
                    p[1] += int(n)
        if failed:
            cls = class_of(r)
            _add(self.causes, cls)
            _add(self.group_causes, (group, cls))
            if len(self.failures) < MAX_FAILURE_ROWS:
                self.failures.append({**{c: r.get(c) for c in ("dir", "run", "kind", "seed", "cause", "replay",
                                                               "failure_file", "mutant", "fix")},
                                      "cause_class": cls})

    def merge(self, other: Tally) -> Tally:
        for kind, (runs, failed, seconds) in other.kinds.items():
            k = self.kinds.setdefault(kind, [0, 0, 0.0])
            k[0] += runs
            k[1] += failed
            k[2] += seconds
        for group, (runs, failed) in other.groups.items():
            g = self.groups.setdefault(group, [0, 0])
            g[0] += runs
            g[1] += failed
        for mine_paths, theirs_paths in ((self.paths, other.paths), (self.judged, other.judged)):
            for name, (runs, times) in theirs_paths.items():
                p = mine_paths.setdefault(name, [0, 0])
                p[0] += runs
                p[1] += times
        for mine, theirs in ((self.causes, other.causes), (self.group_causes, other.group_causes),
                             (self.transformations, other.transformations), (self.faults, other.faults),
                             (self.operations, other.operations), (self.ended, other.ended),
                             (self.focus, other.focus),
                             (self.steps, other.steps), (self.per_second, other.per_second)):
            for key, n in theirs.items():
                _add(mine, key, n)
        self.failures.extend(other.failures[:MAX_FAILURE_ROWS - len(self.failures)])
        return self

    def summary(self) -> dict[str, Any]:
        """Plain JSON data, the same whatever order the rows were tallied in."""
        failures = sorted(self.failures, key=lambda f: (f.get("dir") or "", f["run"]))
        for f in failures:
            finding = known_finding(f["cause_class"], fixes_of(f))
            f["known"] = finding.id if finding else None
            f["known_class"] = finding.klass if finding else None
        runs = sum(int(k[0]) for k in self.kinds.values())
        return {
            "runs": runs,
            "failed": sum(int(k[1]) for k in self.kinds.values()),
            "kinds": {kind: {"runs": int(k[0]), "failed": int(k[1]), "seconds": round(k[2], 3)}
                      for kind, k in sorted(self.kinds.items())},
            "causes": dict(sorted(self.causes.items(), key=lambda kv: (-kv[1], kv[0]))),
            "focus": dict(sorted(self.focus.items())),
            "groups": {g: {"runs": v[0], "failed": v[1],
                           "causes": {c: n for (gg, c), n in sorted(self.group_causes.items()) if gg == g}}
                       for g, v in sorted(self.groups.items())},
            "coverage": {
                "transformations": {kind: {t: n for (k, t), n in sorted(self.transformations.items()) if k == kind}
                                    for kind in sorted(self.kinds)},
                "faults": dict(sorted(self.faults.items())),
                "operations": {kind: {o: n for (k, o), n in sorted(self.operations.items()) if k == kind}
                               for kind in sorted(self.kinds)},
                "operations_ended": dict(sorted(self.ended.items())),
                "paths": {name: {"runs": self.paths[name][0], "times": self.paths[name][1]}
                          for name in PROTOCOL_PATHS if name in self.paths},
                "paths_never_reached": [name for name in PROTOCOL_PATHS if name not in self.paths]
                if self.kinds.get("sim") else [],
                "judged": {name: {"runs": self.judged[name][0], "times": self.judged[name][1]}
                           for name in JUDGED_PATHS if name in self.judged},
                "judged_never": [name for name in JUDGED_PATHS if name not in self.judged]
                if self.kinds.get("sim") else [],
                "steps": {kind: {str(s): n for (k, s), n in sorted(self.steps.items()) if k == kind}
                          for kind in sorted(self.kinds)},
            },
            "per_second": {str(s): n for s, n in sorted(self.per_second.items())},
            "failures": failures,
        }


def operation_shares(operations: dict[str, dict[str, int]]) -> dict[str, tuple[int, float]]:
    """Operations started over every run kind (a summary's `coverage.operations`): kind ->
    (count, share of all started), most started first."""
    total: dict[str, int] = {}
    for per_kind in operations.values():
        for op, n in per_kind.items():
            _add(total, op, n)
    whole = sum(total.values())
    return {op: (n, n / whole) for op, n in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))}


def operations_line(rows: Iterable[dict[str, Any]]) -> str:
    """`operations started: replace 412 (83%), join 40 (8%), ...` for rows of runs.parquet."""
    shares = operation_shares(Tally.of(rows).summary()["coverage"]["operations"])
    if not shares:
        return "no operation started"
    return "operations started: " + ", ".join(f"{op} {n} ({share:.0%})" for op, (n, share) in shares.items())


__all__ = ["MAX_FAILURE_ROWS", "Tally", "operation_shares", "operations_line", "class_of", "fixes_of", "group_of", "legacy_class"]
