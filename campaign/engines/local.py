"""The local engine: runs on this machine's worker processes, which may die or hang without
ending the campaign (one worker and no time limit: in this process, which tests and debuggers
want).

Why not `concurrent.futures.ProcessPoolExecutor`: when one of its workers dies (killed, out of
memory) every pending future fails with BrokenProcessPool, and it cannot stop one run that is
past its time limit. Here each worker is a process with its own pipe; the main process waits on
the pipes and the processes' sentinels, so a dead worker turns its one run into an error row
(`worker died: SIGKILL`), a run past `run_timeout` is killed and becomes a timeout row, and a
fresh worker takes the slot.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import signal
import time
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection, wait
from typing import Any

from attrs import frozen

from campaign.engines.base import EngineOptions, Keep, Task
from campaign.judge import cause as C
from campaign.kinds import error_record, run_one
from campaign.run.record import RunRecord


@frozen
class LocalEngine:
    """Worker processes on this machine (`options.workers`; in this process when that is 1 and
    there is no time limit)."""

    options: EngineOptions
    name: str = "local"

    def check(self) -> None:
        return None

    def start(self) -> str | None:
        return None

    def run(self, tasks: Iterable[Task], *, keep: Keep, stopping: Callable[[], bool]) -> None:
        if self.options.workers <= 1 and self.options.run_timeout is None:
            run_inline(tasks, keep=keep, stopping=stopping)
        else:
            run_pool(tasks, workers=self.options.workers, keep=keep, stopping=stopping,
                     run_timeout=self.options.run_timeout)


def work(task: Task) -> RunRecord:
    run, spec = task
    return run_one(spec, run=run)


RUN_GC_THRESHOLD = 200_000
"""A worker's young-generation threshold while it runs (the collector's default is 700)."""


def tune_collector() -> None:
    """Set up a worker process's cyclic garbage collector for runs; the worker then calls
    `gc.collect()` after each run.

    Why: a run makes millions of short-lived objects, which reference counting frees, and few
    cycles; at the default thresholds the collector ran about ten times a run, rescanning the
    run's growing trace, for about a tenth of its time. Tuned, it runs once between runs, over
    what the worker made since it started (what was loaded before is frozen: `gc.freeze`), and
    within a run only once 200,000 more tracked objects were made than freed, which still bounds
    the garbage a long run can hold. It decides nothing a run computes: only when unreachable
    cycles are freed."""
    gc.set_threshold(RUN_GC_THRESHOLD, 10, 10)


def _worker_main(conn: Connection) -> None:
    # Ctrl-C reaches the whole process group: the main process decides what stops, not us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    tune_collector()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the main process is gone
        try:
            conn.send(work(task))
        except (BrokenPipeError, OSError):
            return
        gc.collect()


def signal_name(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return signal.Signals(-exitcode).name
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit status {exitcode}"


class _Worker:
    def __init__(self, ctx: Any) -> None:
        # what this process has loaded (the code, the campaign) outlives every run: frozen, the
        # worker's collections never scan it (and its pages stay shared with the worker)
        gc.freeze()
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.task: Task | None = None
        self.started = 0.0

    def give(self, task: Task) -> None:
        self.task, self.started = task, time.monotonic()
        self.conn.send(task)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


def run_pool(tasks: Iterable[Task], *, workers: int, keep: Keep,
             stopping: Callable[[], bool] = lambda: False, run_timeout: float | None = None) -> None:
    """Run every task on `workers` processes, calling `keep(record)` in the main process as each
    finishes; stop giving out tasks once `keep` returns False or `stopping()` is true (runs in
    flight are then abandoned: a resumed campaign runs them again)."""
    ctx = mp.get_context("fork")  # why fork: a worker starts in milliseconds, with the code loaded
    pool = [_Worker(ctx) for _ in range(workers)]
    queue = iter(tasks)
    going = True
    try:
        while True:
            if going and not stopping():
                for w in pool:
                    if w.task is None:
                        nxt = next(queue, None)
                        if nxt is None:
                            break
                        w.give(nxt)
            busy = [w for w in pool if w.task is not None]
            if not busy or stopping():
                return
            timeout = 0.5
            if run_timeout is not None:
                first_deadline = min(w.started for w in busy) + run_timeout
                timeout = max(0.0, min(timeout, first_deadline - time.monotonic()))
            wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=timeout)
            for i, w in enumerate(pool):
                if w.task is None:
                    continue
                rec = _collect(w, run_timeout)
                if rec is None:
                    continue
                if w.task is not None:  # died or timed out: a fresh worker takes the slot
                    w.kill()
                    pool[i] = _Worker(ctx)
                going = keep(rec) and going
    finally:
        for w in pool:
            w.kill()
        # what `_Worker` froze is this process's again: a process that runs campaign after
        # campaign (`tcmcheck mutants`) frees their cycles
        gc.unfreeze()


def _collect(w: _Worker, run_timeout: float | None) -> RunRecord | None:
    """The worker's record if it has one; an error record if it died or ran out of time (and
    `w.task` stays set so the caller replaces it); None if it is still working."""
    assert w.task is not None
    run, spec = w.task
    if w.conn.poll():
        try:
            rec: RunRecord = w.conn.recv()
            w.task = None
            return rec
        except (EOFError, OSError):
            pass  # it died while answering
    elapsed = time.monotonic() - w.started
    if not w.proc.is_alive():
        w.proc.join()
        return error_record(run, spec, C.worker_died(signal_name(w.proc.exitcode)), elapsed)
    if run_timeout is not None and elapsed >= run_timeout:
        return error_record(run, spec, C.timeout(run_timeout), elapsed)
    return None


def run_inline(tasks: Iterable[Task], *, keep: Keep,
               stopping: Callable[[], bool] = lambda: False) -> None:
    """One worker, in this process (what tests and debuggers want); no time limit."""
    for task in tasks:
        if stopping() or not keep(work(task)):
            return


__all__ = ["LocalEngine", "run_inline", "run_pool", "signal_name", "tune_collector", "work"]
