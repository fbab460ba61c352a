"""Run many (scenario, seed) jobs, and whole sweeps into a store.

Jobs: in this process for one job, else in a process
pool. Results come back in job order whatever order they finish in, so a batch is
as deterministic as each run. A progress bar (on stderr) appears once a batch has
taken longer than :data:`PROGRESS_AFTER_S`.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cellcc import _core
from cellcc.catalogue import Store, missing
from cellcc.errors import UserError
from cellcc.result import Result
from cellcc.scenario import Scenario
from cellcc.store import run_files
from cellcc.sweep import RunSpec, Sweep

__all__ = [
    "PROGRESS_AFTER_S",
    "SPAWNING",
    "Job",
    "SweepOutcome",
    "execute",
    "longest_first",
    "run_jobs",
    "run_one",
    "run_sweep",
]

#: A batch shorter than this shows no progress bar (the issue: "anything longer than a second").
PROGRESS_AFTER_S = 1.0
#: How often the parent wakes to update the bar, seconds.
_POLL_S = 0.1
#: How long to wait for a Dask scheduler to answer, seconds.
_DASK_CONNECT_S = "10s"


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


# -- sweeps ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepOutcome:
    """What one :func:`run_sweep` call did: runs in the sweep, found complete, run now, and the
    wall seconds the store records for this sweep's runs (whenever they ran; a store also keeps
    the times of runs of earlier grids and engine builds, which are not counted)."""

    total: int
    skipped: int
    ran: int
    store: Store
    run_wall_s: float


def execute(scenario_json: str, source: str, seed: int) -> tuple[dict[str, bytes], float]:
    """Worker entry point (pool or Dask): run, return the run folder's files and the wall seconds."""
    started = time.perf_counter()
    result = run_one(Scenario(scenario_json, source), seed)
    return run_files(result, derived=True), time.perf_counter() - started


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> SweepOutcome:
    """Run every run of ``sweep`` whose key ``out`` does not hold yet; write each as it finishes.

    Local process pool by default (``workers`` processes; 1 runs in this process); ``scheduler``
    is a Dask scheduler address (``tcp://host:port``) or ``"local"`` for a LocalCluster of
    ``workers`` processes. Longest runs first, by the wall times of earlier runs (LPT).
    Interrupted (Ctrl-C), every finished run is in the store and nothing half-written is.
    """
    runs = sweep.expand()
    store = Store.create(out)
    store.write_manifest(sweep.describe(), [{"key": r.key, "seed": r.seed, **r.params} for r in runs])
    todo = longest_first(missing(runs, store.complete_keys()), store.timings(), sweep.base.to_dict()["duration_s"])
    timings: dict[str, float] = {}

    def collect(key: str, files: dict[str, bytes], seconds: float) -> None:
        store.put(key, files)
        timings[key] = seconds

    bar = _SweepProgress(len(todo), sweep.name, enabled=progress and bool(todo))
    try:
        if scheduler is not None:
            _run_dask(todo, scheduler, workers, collect, bar)
        elif (workers or os.cpu_count() or 1) <= 1 or len(todo) <= 1:
            for run in todo:
                collect(run.key, *execute(run.scenario.json, run.scenario.source, run.seed))
                bar.advance()
        else:
            _run_process_pool(todo, workers or os.cpu_count() or 1, collect, bar)
    finally:
        bar.stop()
        store.add_timings(timings)
    recorded = store.timings()
    run_wall_s = sum(recorded.get(run.key, 0.0) for run in runs)
    return SweepOutcome(len(runs), len(runs) - len(todo), len(todo), store, run_wall_s)


def longest_first(runs: Sequence[RunSpec], timings: dict[str, float], default_s: float) -> list[RunSpec]:
    """``runs`` ordered longest expected wall time first (sem's LPT idea): a run's own earlier time,
    else the mean time of its point's other seeds, else ``default_s`` (simulated duration) for all."""
    by_point: dict[str, list[float]] = {}
    for run in runs:
        if run.key in timings:
            by_point.setdefault(repr(sorted(run.params.items())), []).append(timings[run.key])

    def expected(run: RunSpec) -> float:
        if run.key in timings:
            return timings[run.key]
        known = by_point.get(repr(sorted(run.params.items())))
        return sum(known) / len(known) if known else default_s

    return sorted(runs, key=expected, reverse=True)


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops the pool and keeps the store consistent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_process_pool(todo: Sequence[RunSpec], workers: int, collect: Callable[..., None], bar: _SweepProgress) -> None:
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(processes=min(workers, len(todo)), initializer=_ignore_sigint)
    try:
        pending = {
            run.key: pool.apply_async(execute, (run.scenario.json, run.scenario.source, run.seed)) for run in todo
        }
        while pending:
            for key in [k for k, r in pending.items() if r.ready()]:
                collect(key, *pending.pop(key).get())
                bar.advance()
            if pending:
                next(iter(pending.values())).wait(_POLL_S)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _run_dask(
    todo: Sequence[RunSpec], scheduler: str, workers: int | None, collect: Callable[..., None], bar: _SweepProgress
) -> None:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UserError("--dask", json.dumps(scheduler), "installing the extra: pip install 'cellcc[dask]'") from None
    cluster = (
        LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True) if scheduler == "local" else None
    )
    try:
        client = Client(cluster if cluster is not None else scheduler, timeout=_DASK_CONNECT_S)
    except OSError as e:
        raise UserError(
            "--dask", json.dumps(scheduler), f"a reachable Dask scheduler address or `local` ({e})"
        ) from None
    try:
        futures = {
            client.submit(
                execute,
                run.scenario.json,
                run.scenario.source,
                run.seed,
                key=f"cellcc-{run.key}",
                priority=len(todo) - i,
            ): run.key
            for i, run in enumerate(todo)
        }
        for future in as_completed(futures):
            collect(futures[future], *future.result())
            bar.advance()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


class _SweepProgress:
    """A rich progress bar with an ETA, on stderr."""

    def __init__(self, total: int, description: str, enabled: bool) -> None:
        self._bar = (
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            if enabled
            else None
        )
        if self._bar is not None:
            self._bar.start()
            self._task = self._bar.add_task(description, total=total)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
