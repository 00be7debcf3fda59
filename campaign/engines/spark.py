"""The Spark engine: runs as Spark tasks, on an embedded `local[N]` session or a cluster.

Tasks carry `RunSpec`s and return `RunRecord`s (picklable attrs classes); every z3 or simulator
object is built inside the task, never shipped. A campaign is cut into small chunks, each one
Spark job of one task, with a few jobs in flight at once: a finished chunk is written at once
(durability), and a chunk whose Python worker died is run again run by run, so only the run
that kills its worker becomes an error row (`worker died: ...`).
"""

from __future__ import annotations

import gc
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from attrs import frozen

from campaign import spark_session
from campaign.engines.base import EngineOptions, Keep, Task
from campaign.engines.local import tune_collector, work
from campaign.judge import cause as C
from campaign.kinds import error_record
from campaign.run.record import RunRecord


@frozen
class SparkEngine:
    """Each run a Spark task, on `options.master` (default: an embedded `local[workers]`)."""

    options: EngineOptions
    name: str = "spark"

    def check(self) -> None:
        spark_session.check_spark()

    def start(self) -> str | None:
        spark_session.session(self.options.master, parallelism=self.options.workers, ui=self.options.ui)
        return f"Spark started in {spark_session.STARTUP_SECONDS or 0:.1f} s"

    def run(self, tasks: Iterable[Task], *, keep: Keep, stopping: Callable[[], bool]) -> None:
        run_spark(tasks, master=self.options.master, parallelism=self.options.workers, keep=keep,
                  stopping=stopping, run_timeout=self.options.run_timeout)


def _run_chunk(tasks: Iterator[Task], run_timeout: float | None) -> Iterator[RunRecord]:
    """Executor side: run each task, with the time limit as a SIGALRM inside the Python worker
    (the task runs on its main thread); the collector tuned as in a local worker."""
    gc.collect()
    gc.freeze()  # pyspark's worker and the code loaded so far: never scanned again
    tune_collector()
    for task in tasks:
        yield _limited(task, run_timeout) if run_timeout else work(task)
        gc.collect()


class _Timeout(BaseException):
    """BaseException so that `checked`'s catch-all does not turn it into a crash verdict."""


def _limited(task: Task, run_timeout: float) -> RunRecord:
    def expire(signum: int, frame: Any) -> None:
        raise _Timeout

    started = time.monotonic()
    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, run_timeout)
    try:
        return work(task)
    except _Timeout:
        run, spec = task
        return error_record(run, spec, C.timeout(run_timeout), time.monotonic() - started)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ---------------------------------------------------------------- the driver


def run_spark(tasks: Iterable[Task], *, master: str | None, parallelism: int,
              keep: Keep, stopping: Callable[[], bool] = lambda: False,
              run_timeout: float | None = None, chunk: int = 8) -> None:
    """Run every task as part of a Spark task, calling `keep(record)` here as each chunk comes
    back; stop submitting once `keep` returns False or `stopping()` is true."""
    spark = spark_session.session(master, parallelism=parallelism)
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
            run, spec = task
            return error_record(run, spec, C.worker_died(_spark_reason(e)), time.monotonic() - started)

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


__all__ = ["SparkEngine", "run_spark"]
