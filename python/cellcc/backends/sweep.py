"""A sweep on the Linux backend: the same store, run keys and resumption as `runner.run_sweep`,
but one run at a time in this process (each run is real time in its own namespaces, and two at
once would share the cores the emulator's timing needs).
"""

from __future__ import annotations

import time
from pathlib import Path

from cellcc.catalogue import Store, missing
from cellcc.runner import SweepOutcome
from cellcc.store import run_files
from cellcc.sweep import Sweep

from .frontend import DocScenario, run_linux
from .netns import Unsupported, missing_privileges


def run_linux_sweep(sweep: Sweep, out: str | Path) -> SweepOutcome:
    """Run every run of `sweep` that `out` lacks on the Linux backend; Unsupported if this machine cannot."""
    why = missing_privileges()
    if why:
        raise Unsupported(why)
    runs = sweep.expand()
    store = Store.create(out)
    store.write_manifest(sweep.describe(), [{"key": r.key, "seed": r.seed, **r.params} for r in runs])
    todo = missing(runs, store.complete_keys())
    timings: dict[str, float] = {}
    try:
        for run in todo:
            started = time.perf_counter()
            result = run_linux(DocScenario(run.scenario.to_dict(), run.scenario.source), run.seed)
            store.put(run.key, run_files(result, derived=True))
            timings[run.key] = time.perf_counter() - started
    finally:
        store.add_timings(timings)
    recorded = store.timings()
    return SweepOutcome(len(runs), len(runs) - len(todo), len(todo), store, sum(recorded.get(r.key, 0.0) for r in runs))
