"""The Spark engine: runs as Spark tasks, on an embedded `local[N]` session or a cluster.

One SparkSession per process (`session()`), made the way a shared machine wants it: the driver
binds to 127.0.0.1 and its web UI is off (unless `ui=True` or a cluster master is named), the
Python workers run the interpreter running tcmcheck (`PYSPARK_PYTHON = sys.executable`), and the
JVM logs only errors. Under `spark-submit` (see `campaign/spark_submit.py`) the session
spark-submit configured is used as it is.

Tasks carry plain tuples and return `RunRecord`s (picklable attrs classes); every z3 or
simulator object is built inside the task, never shipped. A campaign is cut into small chunks,
each one Spark job of one task, with a few jobs in flight at once: a finished chunk is written
at once (durability), and a chunk whose Python worker died is run again run by run, so only the
run that kills its worker becomes an error row (`worker died: ...`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from campaign.errors import BadInput
from campaign.pool import Task
from campaign.runs import RunRecord, error_record

_SESSION: Any = None
_LOCK = threading.Lock()
STARTUP_SECONDS: float | None = None
"""Wall-clock seconds the last `session()` call took to start Spark (None: not started here)."""

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n
"""


def check_java() -> None:
    """Spark needs a JVM: say how to get one, in one line, before anything starts."""
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", "java").exists():
        return
    if shutil.which("java") is None:
        raise BadInput("--engine spark needs Java 17 and none was found: install it "
                       "(apt-get install openjdk-17-jre-headless) or set JAVA_HOME")


def under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def session(master: str | None = None, *, parallelism: int | None = None, ui: bool = False) -> Any:
    """The process's SparkSession, started on first use. `master` None: `local[parallelism]`
    (`local[*]` when that is None too)."""
    global _SESSION, STARTUP_SECONDS
    with _LOCK:
        if _SESSION is not None:
            return _SESSION
        if not under_spark_submit():
            check_java()
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise BadInput("--engine spark needs pyspark: pip install pyspark") from None
        started = time.monotonic()
        os.environ["PYSPARK_PYTHON"] = sys.executable
        os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
        builder = SparkSession.builder.appName("tcmcheck")
        if not under_spark_submit():
            url = master or (f"local[{parallelism}]" if parallelism else "local[*]")
            log4j = Path(tempfile.gettempdir()) / f"tcmcheck-log4j2-{os.getuid()}.properties"
            if not log4j.exists():
                log4j.write_text(_LOG4J)
            builder = (builder.master(url)
                       .config("spark.ui.enabled", "true" if ui else "false")
                       .config("spark.ui.showConsoleProgress", "false")
                       .config("spark.python.worker.reuse", "true")
                       .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log4j}"))
            if url.startswith("local"):
                # embedded: nothing listens beyond this machine
                builder = (builder.config("spark.driver.bindAddress", "127.0.0.1")
                           .config("spark.driver.host", "127.0.0.1"))
                os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        try:
            spark = _quietly(builder.getOrCreate)
        except Exception as e:  # noqa: BLE001 (py4j and the launcher raise many types)
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise BadInput(f"--engine spark: Spark did not start: {first[:160]} (JVM log: {JVM_LOG})") from None
        spark.sparkContext.setLogLevel("ERROR")
        STARTUP_SECONDS = time.monotonic() - started
        _SESSION = spark
        return spark


JVM_LOG = Path(tempfile.gettempdir()) / f"tcmcheck-spark-{os.getuid()}.log"
"""Where the embedded JVM's own stderr goes (its banner and warnings), not the user's terminal."""


def _quietly(start: Callable[[], Any]) -> Any:
    """Start the JVM with its stderr (inherited by it and its Python workers for good) pointed
    at JVM_LOG: the JVM prints banners and warnings no log setting silences."""
    if under_spark_submit():
        return start()
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        fd = os.open(JVM_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 2)
        os.close(fd)
        return start()
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def stop_session() -> None:
    global _SESSION
    with _LOCK:
        if _SESSION is not None:
            _SESSION.stop()
            _SESSION = None


# ---------------------------------------------------------------- tasks (run on executors)


def _run_chunk(tasks: Iterator[Task], run_timeout: float | None) -> Iterator[RunRecord]:
    """Executor side: run each task, with the time limit as a SIGALRM inside the Python worker
    (the task runs on its main thread)."""
    from campaign.pool import work

    for task in tasks:
        yield _limited(task, run_timeout) if run_timeout else work(task)


class _Timeout(BaseException):
    """BaseException so that `checked`'s catch-all does not turn it into a crash verdict."""


def _limited(task: Task, run_timeout: float) -> RunRecord:
    import signal

    from campaign.pool import work

    def expire(signum: int, frame: Any) -> None:
        raise _Timeout

    started = time.monotonic()
    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, run_timeout)
    try:
        return work(task)
    except _Timeout:
        run, kind, seed, mutant, fixes = task
        return error_record(run, kind, seed, mutant, f"timeout: over {run_timeout:g} s",
                            time.monotonic() - started, fixes)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ---------------------------------------------------------------- the driver


def run_spark(tasks: Iterable[Task], *, master: str | None, parallelism: int,
              keep: Callable[[RunRecord], bool], stopping: Callable[[], bool] = lambda: False,
              run_timeout: float | None = None, chunk: int = 8) -> None:
    """Run every task as part of a Spark task, calling `keep(record)` here as each chunk comes
    back; stop submitting once `keep` returns False or `stopping()` is true."""
    spark = session(master, parallelism=parallelism)
    sc = spark.sparkContext
    slots = max(1, sc.defaultParallelism)
    def chunked() -> Iterator[list[Task]]:
        part: list[Task] = []
        for t in tasks:
            part.append(t)
            if len(part) == chunk:
                yield part
                part = []
        if part:
            yield part


    def job(part: list[Task]) -> list[RunRecord]:
        limit = run_timeout
        result: list[RunRecord] = sc.parallelize([part], 1).flatMap(lambda ts: _run_chunk(iter(ts), limit)).collect()
        return result

    def alone(task: Task) -> RunRecord:
        started = time.monotonic()
        try:
            return job([task])[0]
        except Exception as e:  # noqa: BLE001 (py4j wraps the executor's failure)
            run, kind, seed, mutant, fixes = task
            return error_record(run, kind, seed, mutant, f"worker died: {_spark_reason(e)}",
                                time.monotonic() - started, fixes)

    going = True
    queue = chunked()
    # why two jobs per slot: the next chunk is queued while one finishes, so slots stay busy
    with ThreadPoolExecutor(max_workers=2 * slots) as pool:
        pending: dict[Future[list[RunRecord]], list[Task]] = {}
        try:
            while True:
                while going and not stopping() and len(pending) < 2 * slots:
                    part = next(queue, None)
                    if part is None:
                        break
                    pending[pool.submit(job, part)] = part
                if not pending or stopping():
                    break
                done, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: pending[f][0][0]):
                    part = pending.pop(fut)
                    try:
                        records = fut.result()
                    except Exception:  # noqa: BLE001 (a worker died: find which run killed it)
                        records = [alone(t) for t in part]
                    for rec in records:
                        going = keep(rec) and going
        finally:
            if pending:
                sc.cancelAllJobs()


def _spark_reason(e: BaseException) -> str:
    text = str(e)
    for marker in ("Python worker exited unexpectedly", "crashed", "killed", "SIGKILL", "OutOfMemory"):
        if marker in text:
            line = next((ln for ln in text.splitlines() if marker in ln), marker)
            return line.strip()[:160]
    return (text.strip().splitlines() or [type(e).__name__])[0][:160]


# ---------------------------------------------------------------- report


def tally_spark(paths: list[str], dirs: list[str], *, master: str | None = None) -> dict[str, Any]:
    """`report --engine spark`: read the runs.parquet files with Spark, tally each partition on
    an executor (campaign.aggregate.Tally) and merge the tallies here."""
    from pyspark.sql import functions as sf

    from campaign.aggregate import Tally

    spark = session(master)
    frames = [spark.read.parquet(p).withColumn("dir", sf.lit(d)) for p, d in zip(paths, dirs, strict=True)]
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other, allowMissingColumns=True)

    def part(rows: Iterator[Any]) -> Iterator[Tally]:
        yield Tally.of(r.asDict() for r in rows)

    tallies = df.rdd.mapPartitions(part).collect()
    total = Tally()
    for t in tallies:
        total.merge(t)
    return total.summary()


# ---------------------------------------------------------------- check-history


def _history_model(name: str, has_initial: bool, initial: Any) -> Any:
    from checkers.linearizability.model import MODELS, with_initial

    model = MODELS[name]
    return with_initial(model, initial) if has_initial else model


def _check_part(name: str, has_initial: bool, initial: Any, ops: Any, timeout: float, max_states: int) -> Any:
    """Executor side: the WGL search of one part (one key), with its own deadline."""
    from checkers.linearizability.wgl import check_operations

    model = _history_model(name, has_initial, initial)
    return check_operations(model, ops, deadline=time.monotonic() + timeout, max_cache=max_states)


def check_history_spark(name: str, has_initial: bool, initial: Any, operations: Any, *, timeout: float,
                        max_states: int, master: str | None = None) -> Any:
    """`check-history --engine spark`: split the history into the model's independent parts (one
    per key for kv), search each as a Spark task, and put the verdicts together the way the local
    checker reports them: not linearizable if a part is not (that part's evidence: key, failing
    op, minimal window), unknown if a part ran out of time or memory, else linearizable. Unlike the
    local search, every part is searched to its end, so with several failing keys the first in
    the history is the one reported."""
    from attrs import evolve

    from checkers.linearizability.verdict import LINEARIZABLE, LinearizabilityEvidence, Verdict
    from checkers.linearizability.wgl import partition

    model = _history_model(name, has_initial, initial)
    parts = partition(model, operations)
    spark = session(master)
    sc = spark.sparkContext
    if not parts:
        return Verdict(valid=True, cause=LINEARIZABLE, evidence=LinearizabilityEvidence(model=model.name))
    indexed = [(i, ops) for i, (_, ops) in enumerate(parts)]
    slices = max(1, min(len(indexed), 4 * sc.defaultParallelism))
    verdicts = dict(sc.parallelize(indexed, slices)
                    .map(lambda iv: (iv[0], _check_part(name, has_initial, initial, iv[1], timeout, max_states)))
                    .collect())
    ordered = [verdicts[i] for i in range(len(parts))]
    results = tuple(p for v in ordered for p in v.evidence.partitions)
    bad = next((v for v in ordered if v.valid is False), None)
    if bad is not None:
        return evolve(bad, evidence=evolve(bad.evidence, partitions=results))
    unknown = next((v for v in ordered if v.valid == "unknown"), None)
    evidence = LinearizabilityEvidence(model=model.name, partitions=results)
    if unknown is not None:
        return Verdict(valid="unknown", cause=unknown.cause, evidence=evidence)
    return Verdict(valid=True, cause=LINEARIZABLE, evidence=evidence)
