"""Run many (scenario, seed) jobs: in this process for one job, else in a process
pool. Results come back in job order whatever order they finish in, so a batch is
as deterministic as each run. A progress bar (on stderr) appears once a batch has
taken longer than :data:`PROGRESS_AFTER_S`.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cellcc import _core
from cellcc.result import Result
from cellcc.scenario import Scenario

__all__ = ["PROGRESS_AFTER_S", "SPAWNING", "Job", "run_jobs", "run_one"]

#: A batch shorter than this shows no progress bar (the issue: "anything longer than a second").
PROGRESS_AFTER_S = 1.0
#: How often the parent wakes to update the bar, seconds.
_POLL_S = 0.1


class SpawnGuard:
    """Marks the moments the pool spawns its workers, when a signal handler must not unwind.

    A worker is started by writing its preparation data down a pipe; a handler that raises
    in the middle (Ctrl-C) leaves a child the parent neither finished starting nor knows to
    terminate, and it dies printing ``EOFError`` over the ``interrupted`` line.
    :mod:`cellcc.cli.signals` so stores its action in :attr:`pending` while :attr:`active`,
    and :meth:`hold` runs it as the block ends, when every worker is known.
    """

    def __init__(self) -> None:
        self.active = False
        self.pending: Callable[[], None] | None = None

    @contextmanager
    def hold(self) -> Iterator[None]:
        self.active = True
        try:
            yield
        finally:
            self.active = False
            pending, self.pending = self.pending, None
            if pending is not None:
                pending()


#: The process's one guard (signal handlers run in the main thread, which runs the pool).
SPAWNING = SpawnGuard()


@dataclass(frozen=True)
class Job:
    """One simulation: a validated scenario and the seed to run it with."""

    scenario: Scenario
    seed: int


def run_one(scenario: Scenario, seed: int) -> Result:
    """Simulate ``scenario`` with ``seed`` in this process (the engine releases the GIL)."""
    return Result.from_core(scenario, seed, _core.run(scenario.json, seed))


def _work(scenario_json: str, source: str, seed: int, reduce: Callable[[Result], Any] | None) -> Any:
    """Pool entry point: rebuild the scenario, run it, reduce it before it is pickled back."""
    result = run_one(Scenario(scenario_json, source), seed)
    return reduce(result) if reduce is not None else result


def _default_workers(n_jobs: int) -> int:
    return max(1, min(n_jobs, os.cpu_count() or 1))


def run_jobs(
    jobs: Sequence[Job],
    *,
    reduce: Callable[[Result], Any] | None = None,
    workers: int | None = None,
    progress: bool = True,
    description: str = "simulating",
) -> list[Any]:
    """Run ``jobs``; return ``reduce(result)`` (or the Result) for each, in job order.

    ``reduce`` runs in the worker and must be a module-level function (it is pickled),
    so only what the caller needs crosses the process boundary.
    """
    workers = _default_workers(len(jobs)) if workers is None else max(1, workers)
    tracker = _LazyProgress(len(jobs), description, enabled=progress)
    try:
        if workers == 1 or len(jobs) <= 1:
            return _run_inline(jobs, reduce, tracker)
        return _run_pool(jobs, reduce, workers, tracker)
    finally:
        tracker.stop()


def _run_inline(jobs: Sequence[Job], reduce: Callable[[Result], Any] | None, tracker: _LazyProgress) -> list[Any]:
    # One worker thread runs the jobs (the engine releases the GIL) so this thread can show progress
    # during a long single run too.
    out = []
    with ThreadPoolExecutor(max_workers=1) as thread:
        for job in jobs:
            future = thread.submit(run_one, job.scenario, job.seed)
            while not wait([future], timeout=_POLL_S).done:
                tracker.advance(0)
            result = future.result()
            out.append(reduce(result) if reduce is not None else result)
            tracker.advance()
    return out


def _run_pool(
    jobs: Sequence[Job], reduce: Callable[[Result], Any] | None, workers: int, tracker: _LazyProgress
) -> list[Any]:
    # spawn, not fork: the parent may be running the progress bar's thread.
    context = multiprocessing.get_context("spawn")
    results: list[Any] = [None] * len(jobs)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        with SPAWNING.hold():
            pending: dict[Future[Any], int] = {
                pool.submit(_work, job.scenario.json, job.scenario.source, job.seed, reduce): i
                for i, job in enumerate(jobs)
            }
        while pending:
            done, _ = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
            for future in done:
                results[pending.pop(future)] = future.result()
            tracker.advance(len(done))
    except BaseException:
        _abandon(pool)
        raise
    pool.shutdown(wait=True)
    return results


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Shut a pool down after a failure or a signal, without waiting for it.

    Not ``with pool``: its exit joins the pool's manager thread, and a signal that arrives
    while ``submit`` starts that thread leaves it unstarted, so the join raises RuntimeError
    over the exception that is unwinding (a traceback instead of ``interrupted``). Errors
    of the shutdown itself are dropped for the same reason: the exception being raised is
    the one to report, and the workers are already terminated or will exit with the pool.
    """
    try:
        pool.shutdown(wait=False, cancel_futures=True)
    except (OSError, RuntimeError, ValueError):
        return


class _LazyProgress:
    """A rich progress bar that only appears once the batch has run for PROGRESS_AFTER_S."""

    def __init__(self, total: int, description: str, enabled: bool) -> None:
        self._total = total
        self._description = description
        self._enabled = enabled
        self._started_at = time.monotonic()
        self._done = 0
        self._bar: Progress | None = None
        self._task = None

    def advance(self, n: int = 1) -> None:
        self._done += n
        if self._bar is None and self._enabled and time.monotonic() - self._started_at > PROGRESS_AFTER_S:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self._description, total=self._total)
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self._done)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
