"""A campaign's folder, written as runs finish so that a killed campaign loses only runs in flight.

    OUT/campaign.json      what the campaign is (runs, seed, kinds, mutant) and the failure files
                           it wrote: written first, before any run, so a bad --out fails at once
    OUT/runs.log.jsonl     one JSON row per finished run, appended and flushed as each finishes
    OUT/failures/*.json    one failure file per failing run, written as it finishes
    OUT/runs.parquet       the table, compacted from the log (and an earlier runs.parquet when
                           resuming) at the end; the log is then removed

Files the user put in OUT (or OUT/failures) are never deleted or overwritten: a new campaign
removes only what `campaign.json` says an earlier one wrote, a failure file whose name is taken
gets a numbered name instead, and a symlinked runs.parquet, log or failures/ is refused.

An I/O error once runs are being written (the disk full, a folder that vanished) is an
`IOFailure` naming the path: what was written stays (a run's failure file is written before its
log line, the log is removed only after runs.parquet and campaign.json are in place), so
`--resume` finishes the campaign once the cause is mended.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from campaign.errors import DEVICE_ERRORS, BadInput, IOFailure
from campaign.outputs import atomic_write
from campaign.run.record import RunRecord

MANIFEST = "campaign.json"
LOG = "runs.log.jsonl"
TABLE = "runs.parquet"
FAILURES = "failures"

COLUMNS = ("run", "kind", "seed", "valid", "cause", "cause_class", "final_epoch", "steps", "counters_json",
           "coverage_json", "mutant", "fix", "focus", "replay", "failure_file", "duration_s", "finished_at")
TIMING_COLUMNS = ("duration_s", "finished_at")
"""The only columns that differ between two campaigns of the same command (wall clock)."""


def schema() -> Any:
    return pa.schema([("run", pa.int64()), ("kind", pa.string()), ("seed", pa.int64()),
                      ("valid", pa.bool_()), ("cause", pa.string()), ("cause_class", pa.string()),
                      ("final_epoch", pa.int64()),
                      ("steps", pa.int64()), ("counters_json", pa.string()),
                      ("coverage_json", pa.string()), ("mutant", pa.string()),
                      ("fix", pa.string()), ("focus", pa.string()), ("replay", pa.string()), ("failure_file", pa.string()),
                      ("duration_s", pa.float64()), ("finished_at", pa.float64())])


def _atomic_write(path: Path, data: bytes) -> None:
    """`atomic_write` (a temporary file and a rename), an OSError becoming an `IOFailure`."""
    try:
        atomic_write(path, data)
    except OSError as e:
        raise IOFailure(path, e) from None


def _append(f: Any, path: Path, data: bytes) -> None:
    """Append `data` to the unbuffered log: nothing waits in a buffer to be written later, so
    after an error the file holds at most a cut last line, which reading drops."""
    try:
        view = memoryview(data)
        while view:
            view = view[f.write(view):]
    except OSError as e:
        raise IOFailure(path, e) from None


class CampaignDir:
    """One campaign's output folder (see the module doc)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.failures = out / FAILURES
        self.log_path = out / LOG
        self.table_path = out / TABLE
        self.manifest_path = out / MANIFEST
        self.params: dict[str, Any] = {}
        self.failure_files: list[str] = []
        self.stopped_by: str | None = None
        """What stopped the campaign before its last run, recorded in campaign.json: a limit it
        was given (`FINISHED_STOPS`: finished for what it asked; a new campaign may replace it,
        `--resume` runs the rest), or a signal's name or `io-error` (unfinished: a new campaign
        here needs `--resume` or another folder)."""
        self._log: Any = None

    # ------------------------------------------------------------ opening

    def prepare(self, params: dict[str, Any], *, resume: bool) -> dict[int, dict[str, Any]]:
        """Check and create the folder before any run; return the rows already recorded (by run)
        when resuming, else remove what an earlier campaign here wrote and return {}.

        Every problem is a `BadInput` naming the path: not a folder, not writable, a symlink where
        a campaign file goes, someone else's runs.parquet, an unfinished campaign without
        `--resume`, or `--resume` with other parameters."""
        out = self.out
        if resume and not (self.manifest_path.is_file() or self.manifest_path.is_symlink()):
            raise BadInput(f"--resume: {out} holds no campaign to resume (no {MANIFEST})")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise BadInput(f"--out: {out} exists and is not a directory") from None
        except NotADirectoryError:
            raise BadInput(f"--out: {out}: a parent of it is a file, not a directory") from None
        except OSError as e:
            raise BadInput(f"--out: cannot create {out}: {e.strerror}") from None
        if not out.is_dir():
            raise BadInput(f"--out: {out} is not a directory")
        for p in (self.table_path, self.failures, self.log_path, self.manifest_path):
            if p.is_symlink():
                raise BadInput(f"--out: {p} is a symlink; tcmcheck writes only real files there "
                               "(remove it or choose another --out)")
        if self.failures.exists() and not self.failures.is_dir():
            raise BadInput(f"--out: {self.failures} exists and is not a directory")
        previous = self._read_manifest()
        if resume:
            if previous is None:
                raise BadInput(f"--resume: {out} holds no campaign to resume (no {MANIFEST})")
            self._check_same(previous.get("params", {}), params)
            self.params = dict(previous["params"])
            self.params["runs"] = params["runs"]
            self.failure_files = [str(f) for f in previous.get("failure_files", [])]
            rows = self._recorded_rows()
            self.failure_files = sorted(set(self.failure_files)
                                        | {r["failure_file"].split("/", 1)[1] for r in rows.values()
                                           if r.get("failure_file")})
        else:
            if previous is None and self.table_path.exists():
                raise BadInput(f"--out: {self.table_path} was not written by a tcmcheck campaign "
                               "(no campaign.json beside it); remove it or choose another --out")
            if previous is not None and (self.log_path.exists() or _unfinished(previous)):
                raise BadInput(f"--out: {out} holds an unfinished campaign (killed or stopped); "
                               "continue it with --resume, or choose another --out")
            if previous is not None:
                self._remove_previous(previous)
            self.params = dict(params)
            self.failure_files = []
            rows = {}
        self._open()
        return rows

    def _open(self) -> None:
        """Create failures/, write campaign.json, open the log. A folder that refuses is bad
        input (`--out`), a full or failing device an `IOFailure`."""
        try:
            self.failures.mkdir(exist_ok=True)
            self._write_manifest()
            self._log = open(self.log_path, "ab", buffering=0)  # noqa: SIM115 (kept open for the campaign)
        except IOFailure as e:
            if e.errno not in DEVICE_ERRORS:  # the folder named, not the device: bad input
                raise BadInput(f"--out: cannot write in {self.out}: {e.error}") from None
            raise
        except OSError as e:
            if e.errno in DEVICE_ERRORS:
                raise IOFailure(e.filename or self.out, e) from None
            raise BadInput(f"--out: cannot write in {self.out}: {e.strerror}") from None

    def _read_manifest(self) -> dict[str, Any] | None:
        if not self.manifest_path.exists():
            return None
        try:
            doc = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            raise BadInput(f"--out: {self.manifest_path} is not a campaign file tcmcheck wrote; "
                           "remove it or choose another --out") from None
        if not isinstance(doc, dict) or doc.get("tcmcheck_campaign") != 1 or not isinstance(doc.get("params"), dict):
            raise BadInput(f"--out: {self.manifest_path} is not a campaign file tcmcheck wrote; "
                           "remove it or choose another --out")
        return doc

    @staticmethod
    def _check_same(before: dict[str, Any], now: dict[str, Any]) -> None:
        for key in sorted(set(before) | set(now)):
            if key == "runs":
                continue
            if before.get(key) != now.get(key):
                raise BadInput(f"--resume: the campaign was started with {key} {before.get(key)!r}, "
                               f"not {now.get(key)!r}; run the same command with --resume")

    def _remove_previous(self, previous: dict[str, Any]) -> None:
        """Remove exactly the files an earlier campaign here says it wrote (never a user's)."""
        names = {str(f) for f in previous.get("failure_files", [])}
        for name in names:
            path = self.failures / name
            if path.parent == self.failures and path.is_file() and not path.is_symlink():
                path.unlink()
        for path in (self.table_path, self.log_path):
            if path.is_file():
                path.unlink()

    def _write_manifest(self) -> None:
        doc = {"tcmcheck_campaign": 1, "params": self.params, "failure_files": sorted(self.failure_files),
               "stopped": self.stopped_by is not None, "stopped_by": self.stopped_by}
        _atomic_write(self.manifest_path, (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode())

    # ------------------------------------------------------------ reading what is recorded

    def _log_rows(self) -> Iterable[dict[str, Any]]:
        if not self.log_path.exists():
            return
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.endswith("\n"):
                    return  # the last line of a killed campaign, cut mid-write: not recorded
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict) and isinstance(row.get("run"), int):
                    yield row

    def _recorded_rows(self) -> dict[int, dict[str, Any]]:
        rows: dict[int, dict[str, Any]] = {}
        if self.table_path.exists():
            try:
                for row in pq.read_table(self.table_path).to_pylist():
                    rows[int(row["run"])] = row
            except Exception as e:  # noqa: BLE001 (pyarrow raises several types for a damaged file)
                raise BadInput(f"--resume: {self.table_path} is not readable ({type(e).__name__})") from None
        for row in self._log_rows():
            rows.setdefault(row["run"], row)
        if self.log_path.exists():
            self._drop_torn_tail()
        return rows

    def _drop_torn_tail(self) -> None:
        """Cut a half-written last line so that appending starts on a fresh line."""
        data = self.log_path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.log_path, "r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)

    # ------------------------------------------------------------ writing

    def record(self, rec: RunRecord, finished_at: float) -> dict[str, Any]:
        """Write the run's failure file (if it failed), then append its row to the log (a row
        is only ever logged with its failure file in place). `IOFailure` if either fails: the
        run is then not recorded, and `--resume` runs it again."""
        failure_file = None
        if rec.failure is not None:
            data = (rec.failure + "\n").encode()
            name = self._failure_name(rec, data)
            _atomic_write(self.failures / name, data)
            if name not in self.failure_files:
                self.failure_files.append(name)
            failure_file = f"{FAILURES}/{name}"
        row = rec.row()
        row["failure_file"] = failure_file
        row["finished_at"] = round(finished_at, 3)
        # unbuffered: in the OS's hands at once, so a SIGKILL of this process no longer loses it
        _append(self._log, self.log_path, (json.dumps(row, sort_keys=True) + "\n").encode())
        return row

    def _failure_name(self, rec: RunRecord, data: bytes) -> str:
        base = f"{rec.spec.kind}-{rec.spec.seed}"
        name = f"{base}.json"
        n = 0
        taken = set(self.failure_files)
        while (self.failures / name).exists() or (self.failures / name).is_symlink():
            if name in taken or _holds(self.failures / name, data):
                # ours from an earlier session of this campaign (listed, or written just before
                # that session was interrupted and with this very run's content): rewrite
                break
            n += 1
            name = f"{base}.{n}.json"
        return name

    def compact(self, rows: dict[int, dict[str, Any]]) -> Path:
        """Write runs.parquet from every recorded row (sorted by run), then campaign.json, then
        drop the log; `IOFailure` if a write fails (the log then stays, for `--resume`)."""

        self.close()
        for row in self._log_rows():
            rows.setdefault(row["run"], row)
        # a column a run record gained that this module does not know yet (e.g. `fix`) is kept,
        # as text, rather than dropped
        extra = sorted({k for row in rows.values() for k in row} - set(COLUMNS) - {"dir"})
        full = schema()
        for name in extra:
            full = full.append(pa.field(name, pa.string()))
        ordered = [{**{c: rows[r].get(c) for c in COLUMNS},
                    **{c: None if rows[r].get(c) is None else str(rows[r][c]) for c in extra}}
                   for r in sorted(rows)]
        table = pa.Table.from_pylist(ordered, schema=full)
        tmp = self.out / f".{TABLE}.{os.getpid()}.tmp"
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, self.table_path)
        except OSError as e:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise IOFailure(self.table_path, e) from None
        self._write_manifest()
        if self.log_path.is_file():
            self.log_path.unlink()
        return self.table_path

    def close(self) -> None:
        if self._log is not None:
            with contextlib.suppress(OSError):  # unbuffered: nothing is left to write
                self._log.close()
            self._log = None


FINISHED_STOPS = ("max-seconds", "fail-fast")
"""Stops a campaign asked for: it is finished, though not every run was made."""


def _unfinished(manifest: dict[str, Any]) -> bool:
    """Stopped by a signal or an I/O error (a manifest from before `stopped_by`: a signal)."""
    return bool(manifest.get("stopped")) and manifest.get("stopped_by") not in FINISHED_STOPS


def _holds(path: Path, data: bytes) -> bool:
    """Whether the file at `path` holds exactly `data` (a run's failure file is a pure function
    of the run, so an identical one is that run's)."""
    try:
        return path.is_file() and not path.is_symlink() and path.stat().st_size == len(data) \
            and path.read_bytes() == data
    except OSError:
        return False



OPTIONAL_COLUMNS = ("cause_class", "coverage_json", "mutant", "fix", "focus", "failure_file", "finished_at")
"""Columns older campaigns lack (before durable campaigns; `cause_class` before 0.2; `focus`
before issue 23); a report does without them."""


def check_schema(path: Path) -> None:
    """BadInput naming the problem in one line unless `path` is a runs.parquet with every column
    of the right type: not Parquet, a missing column, a column of the wrong type (a table
    written by something else). Reads the footer only."""

    try:
        got = pq.read_schema(path)
    except Exception as e:  # noqa: BLE001 (pyarrow raises several types for a damaged file)
        raise BadInput(f"{path}: not a readable Parquet file ({type(e).__name__})") from None
    missing = [c for c in COLUMNS if c not in got.names and c not in OPTIONAL_COLUMNS]
    if missing:
        raise BadInput(f"{path}: missing columns {missing}")
    for field in schema():
        if field.name in got.names:
            t = got.field(field.name).type
            # a column of nulls only (e.g. no run failed) may have the null type: nothing wrong
            if t != field.type and not pa.types.is_null(t):
                raise BadInput(f"{path}: column {field.name} has type {t}, expected {field.type}")


def read_table(path: Path) -> Any:
    """A checked runs.parquet as a pyarrow Table (BadInput if it is not one)."""

    check_schema(path)
    try:
        return pq.read_table(path)
    except Exception as e:  # noqa: BLE001 (a damaged body behind a good footer)
        raise BadInput(f"{path}: not a readable Parquet file ({type(e).__name__})") from None
