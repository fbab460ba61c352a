"""Run many (scenario, seed) jobs, and whole sweeps into a store.

Jobs: in this process for one job, else in a process
pool. Results come back in job order whatever order they finish in, so a batch is
as deterministic as each run. A progress bar (on stderr, on a terminal only) appears
once a batch has taken longer than :data:`PROGRESS_AFTER_S`; for a single run it counts
simulated seconds (with the rate and an ETA) once the run has taken :data:`RUN_PROGRESS_AFTER_S`.

Sweeps (:func:`run_sweep`) import the store and the metrics (pandas, scipy, DuckDB) when they
start, so `cellcc run` does not pay for them (start-up, issue 36).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from cellcc.claims import WAIT_S
from cellcc.errors import UserError
from cellcc.result import Result
from cellcc.scenario import Scenario
from cellcc.store import run_files

if TYPE_CHECKING:
    from cellcc.catalogue import Store
    from cellcc.sweep import RunSpec, Sweep

__all__ = [
    "PROGRESS_AFTER_S",
    "RUN_PROGRESS_AFTER_S",
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
#: A single run shorter than this shows no bar (issue 36: "longer than a couple of seconds").
RUN_PROGRESS_AFTER_S = 2.0
#: Width of a single run's bar, characters (the line fits an 80-column terminal).
_RUN_BAR_WIDTH = 16
#: Nanoseconds per second (the engine's clock is integer ns).
_NS_PER_S = 1e9
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


def run_one(scenario: Scenario, seed: int, progress: Callable[[int], object] | None = None) -> Result:
    """Simulate ``scenario`` with ``seed`` in this process (the engine releases the GIL).
    ``progress(now_ns)`` is called with the simulated time every 100 ms of wall time."""
    return Result.from_core(scenario, seed, _core.run(scenario.json, seed, progress))


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
    if len(jobs) == 1:
        return [_run_single(jobs[0], reduce, description, progress)]
    tracker = _LazyProgress(len(jobs), description, enabled=progress)
    try:
        if workers == 1:
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


def _run_single(job: Job, reduce: Callable[[Result], Any] | None, description: str, progress: bool) -> Any:
    """One run on a worker thread (the engine releases the GIL) while this thread shows its
    simulated time: the engine reports it through ``run_one``'s ``progress`` callback."""
    clock_ns = [0]
    bar = _SimTimeProgress(job.scenario.to_dict()["duration_s"], description, enabled=progress)
    try:
        with ThreadPoolExecutor(max_workers=1) as thread:
            future = thread.submit(run_one, job.scenario, job.seed, lambda now_ns: clock_ns.__setitem__(0, now_ns))
            while not wait([future], timeout=_POLL_S).done:
                bar.show(clock_ns[0] / _NS_PER_S)
            result = future.result()
    finally:
        bar.stop()
    return reduce(result) if reduce is not None else result


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


class _SimTimeProgress:
    """One run's bar: simulated seconds of the scenario's duration, the rate (simulated seconds
    per wall second) and an ETA from that rate, in one line that fits an 80-column terminal.
    Shown on a terminal only, once the run has taken RUN_PROGRESS_AFTER_S; nothing on a pipe."""

    def __init__(self, duration_s: float, description: str, enabled: bool) -> None:
        self._duration_s = float(duration_s)
        self._description = description
        self._enabled = enabled and sys.stderr.isatty()
        self._started_at = time.monotonic()
        self._bar: Progress | None = None
        self._task = None

    def show(self, sim_s: float) -> None:
        wall_s = time.monotonic() - self._started_at
        if self._bar is None and self._enabled and wall_s > RUN_PROGRESS_AFTER_S:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(bar_width=_RUN_BAR_WIDTH),
                TextColumn("{task.fields[status]}"),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self._description, total=self._duration_s, status="")
        if self._bar is not None and self._task is not None:
            sim_s = min(sim_s, self._duration_s)
            self._bar.update(self._task, completed=sim_s, status=self._status(sim_s, wall_s))

    def _status(self, sim_s: float, wall_s: float) -> str:
        text = f"{sim_s:.0f}/{self._duration_s:g} s simulated"
        if sim_s <= 0 or wall_s <= 0:
            return text
        rate = sim_s / wall_s
        eta = int((self._duration_s - sim_s) / rate)
        return f"{text} · {rate:.3g}x real time · eta {eta // 3600}:{eta // 60 % 60:02d}:{eta % 60:02d}"

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()


# -- sweeps ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepOutcome:
    """What one :func:`run_sweep` call did: runs in the sweep, found complete, run now by this
    process, run meanwhile by other processes sharing the store, and the wall seconds the store
    records for this sweep's runs (whenever they ran; a store also keeps the times of runs of
    earlier grids and engine builds, which are not counted)."""

    total: int
    skipped: int
    ran: int
    store: Store
    run_wall_s: float
    by_others: int = 0


def execute(scenario_json: str, source: str, seed: int) -> tuple[dict[str, bytes], float]:
    """Worker entry point (pool or Dask): run, return the run folder's files and the wall seconds."""
    started = time.perf_counter()
    result = run_one(Scenario(scenario_json, source), seed)
    return run_files(result, derived=True), time.perf_counter() - started


#: A finished run as an executor hands it back: key, the run folder's files, wall seconds.
Finished = tuple[str, dict[str, bytes], float]


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
    Other processes may run the same sweep into the same store at once: each runs only the runs
    it claims (:mod:`cellcc.claims`), takes over those of a claimer that died, and returns when
    every run is stored, by whichever process.
    """
    from cellcc.catalogue import Store, missing

    runs = sweep.expand()
    store = Store.create(out)
    store.write_manifest(sweep.describe(), [{"key": r.key, "seed": r.seed, **r.params} for r in runs])
    todo = longest_first(missing(runs, store.complete_keys()), store.timings(), sweep.base.to_dict()["duration_s"])
    timings: dict[str, float] = {}
    bar = _SweepProgress(len(todo), sweep.name, enabled=progress and bool(todo))
    ran = 0
    try:
        with _executor(todo, workers, scheduler) as pool:
            ran = _claim_and_run(todo, store, pool, timings, bar)
    finally:
        bar.stop()
        store.add_timings(timings)
    recorded = store.timings()
    run_wall_s = sum(recorded.get(run.key, 0.0) for run in runs)
    return SweepOutcome(len(runs), len(runs) - len(todo), ran, store, run_wall_s, len(todo) - ran)


def _claim_and_run(
    todo: Sequence[RunSpec], store: Store, pool: _Executor, timings: dict[str, float], bar: _SweepProgress
) -> int:
    """Run ``todo`` in order, each only under its claim, at most ``pool.capacity`` at a time;
    return how many this process ran. A run another process holds is looked at again once this
    process has nothing of its own left: stored by then, or taken over if its claimer died."""
    claims = store.claims()
    queue, held_elsewhere = list(todo), []
    in_flight: set[str] = set()
    ran = 0
    try:
        while queue or in_flight or held_elsewhere:
            while queue and len(in_flight) < pool.capacity:
                run = queue.pop(0)
                if store.is_complete(run.key):
                    bar.advance()
                elif claims.acquire(run.key, complete=lambda key=run.key: store.is_complete(key)):
                    store.remove_leftovers(run.key)
                    pool.submit(run)
                    in_flight.add(run.key)
                elif store.is_complete(run.key):
                    bar.advance()
                else:
                    held_elsewhere.append(run)
            if in_flight:
                for key, files, seconds in pool.finished(_POLL_S):
                    store.put(key, files)
                    claims.release(key)
                    timings[key] = seconds
                    in_flight.discard(key)
                    ran += 1
                    bar.advance()
            elif held_elsewhere:
                time.sleep(WAIT_S)
            if not queue:
                queue, held_elsewhere = held_elsewhere, []
    finally:
        claims.release_all()
    return ran


class _Executor:
    """Where claimed runs execute: ``submit`` a run, collect ``finished`` ones; at most
    ``capacity`` in flight (so a process claims only what it is about to run)."""

    capacity = 1

    def submit(self, run: RunSpec) -> None:
        raise NotImplementedError

    def finished(self, timeout_s: float) -> list[Finished]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers (after a failure or an interrupt, without waiting for them)."""

    def __enter__(self) -> _Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def _executor(todo: Sequence[RunSpec], workers: int | None, scheduler: str | None) -> Iterator[_Executor]:
    """The executor for these options: Dask, a process pool, or this process."""
    if scheduler is not None:
        pool: _Executor = _DaskExecutor(scheduler, workers)
    elif (workers or os.cpu_count() or 1) <= 1 or len(todo) <= 1:
        pool = _InlineExecutor()
    else:
        pool = _PoolExecutor(min(workers or os.cpu_count() or 1, len(todo)))
    with pool:
        yield pool


class _InlineExecutor(_Executor):
    """Runs in this process, one at a time: ``finished`` runs the submitted run."""

    def __init__(self) -> None:
        self._next: RunSpec | None = None

    def submit(self, run: RunSpec) -> None:
        self._next = run

    def finished(self, timeout_s: float) -> list[Finished]:
        run, self._next = self._next, None
        if run is None:
            return []
        return [(run.key, *execute(run.scenario.json, run.scenario.source, run.seed))]


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops the pool and keeps the store consistent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _PoolExecutor(_Executor):
    """A ``spawn`` process pool of ``capacity`` workers."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        context = multiprocessing.get_context("spawn")
        with SPAWNING.hold():
            self._pool = context.Pool(processes=capacity, initializer=_ignore_sigint)
        self._pending: dict[str, Any] = {}

    def submit(self, run: RunSpec) -> None:
        self._pending[run.key] = self._pool.apply_async(execute, (run.scenario.json, run.scenario.source, run.seed))

    def finished(self, timeout_s: float) -> list[Finished]:
        ready = [k for k, r in self._pending.items() if r.ready()]
        if not ready and self._pending:
            next(iter(self._pending.values())).wait(timeout_s)
            ready = [k for k, r in self._pending.items() if r.ready()]
        return [(key, *self._pending.pop(key).get()) for key in ready]

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()


class _DaskExecutor(_Executor):
    """A Dask cluster: ``local`` (a LocalCluster of ``workers`` processes) or a scheduler address."""

    def __init__(self, scheduler: str, workers: int | None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UserError(
                "--dask", json.dumps(scheduler), "installing the extra: pip install 'cellcc[dask]'"
            ) from None
        self._cluster = (
            LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True) if scheduler == "local" else None
        )
        try:
            self._client = Client(self._cluster if self._cluster is not None else scheduler, timeout=_DASK_CONNECT_S)
        except OSError as e:
            self.close()
            raise UserError(
                "--dask", json.dumps(scheduler), f"a reachable Dask scheduler address or `local` ({e})"
            ) from None
        self.capacity = max(1, sum(self._client.nthreads().values()))
        self._pending: dict[Any, str] = {}

    def submit(self, run: RunSpec) -> None:
        future = self._client.submit(
            execute, run.scenario.json, run.scenario.source, run.seed, key=f"cellcc-{run.key}", pure=False
        )
        self._pending[future] = run.key

    def finished(self, timeout_s: float) -> list[Finished]:
        done = [f for f in self._pending if f.done()]
        if not done:
            time.sleep(timeout_s)
        return [(self._pending.pop(f), *f.result()) for f in done]

    def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
        if self._cluster is not None:
            self._cluster.close()


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
