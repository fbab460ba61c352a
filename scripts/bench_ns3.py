"""Wall time of ns-3 3.44 against the engine on the same scenarios, side by side in one run, written
into BENCHMARKS.md by `make bench` (issue 9: at least 30x on wired paths, 100x on the LTE cell;
issue 31: 100x on seed 000's Wi-Fi cell, and a row for 14 saturating stations).

Each scenario runs once on the engine (in this process, `cellcc.runner.run_one`) and once on the
ns-3 backend (`cellcc.backends.frontend.run_ns3`: plan, driver subprocess, tables), alternating, and
each side's time is its whole run including the Python round trip and table building. Besides the
wall time, the CPU time of each side (this process's for the engine; the driver child's,
`RUSAGE_CHILDREN`, plus this process's for ns-3's table building) is shown: a busy shared machine
inflates wall time, not CPU time. The ns-3 driver is compiled (and cached) before timing starts.
With the engine at tens of milliseconds a run, its side is the median of ENGINE_REPEATS runs.

Without the `ns3` wheel or a C++ compiler the script prints one line and leaves BENCHMARKS.md
alone. Usage::

    .venv/bin/python scripts/bench_ns3.py [BENCHMARKS.md]
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_startup import replace_section

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## ns-3 side by side"
#: Engine runs per scenario (median taken): a single one is short enough for timer noise to matter.
ENGINE_REPEATS = 5
#: Goals of issue 9 (ns-3 wall time / engine wall time).
WIRED_GOAL_X = 30.0
LTE_GOAL_X = 100.0
#: Goal of issue 31 on seed 000's Wi-Fi cell (held to the saturated row too).
WIFI_GOAL_X = 100.0


@dataclass(frozen=True)
class Case:
    label: str
    file: str
    goal_x: float
    #: Shorter than the file's duration to keep `make bench` to a few minutes (None: as written).
    duration_s: float | None = None


CASES = (
    Case(
        "wired 10 Mbit/s, 40 ms RTT, 1 BDP, bulk CUBIC, 20 s",
        "examples/crosscheck/dumbbell-10mbps-40ms-1bdp.toml",
        WIRED_GOAL_X,
    ),
    Case(
        "wired 100 Mbit/s, 20 ms RTT, 1 BDP, bulk CUBIC, 10 s",
        "examples/crosscheck/dumbbell-100mbps-20ms-1bdp.toml",
        WIRED_GOAL_X,
        10.0,
    ),
    Case("LTE seed-000 cell, 14 UEs x 1 Mbit/s, 20 MHz, RLC AM, 5 s", "examples/lte_seed000_cell.toml", LTE_GOAL_X),
    Case(
        "Wi-Fi seed-000 cell, 14 stations x 1 Mbit/s, 20 MHz, VhtMcs7, 5 s",
        "examples/wifi_seed000_cell.toml",
        WIFI_GOAL_X,
    ),
    Case(
        "Wi-Fi 14 saturating stations, UDP uplink 20 Mbit/s each, 20 MHz, VhtMcs7, 10 s",
        "examples/crosscheck/wifi-14sta-saturated-udp.toml",
        WIFI_GOAL_X,
        10.0,
    ),
)


def _child_cpu_s() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def _timed(fn) -> tuple[float, float, float]:
    """(wall s, own CPU s, children's CPU s) of one call."""
    wall0, cpu0, child0 = time.perf_counter(), time.process_time(), _child_cpu_s()
    fn()
    return time.perf_counter() - wall0, time.process_time() - cpu0, _child_cpu_s() - child0


def _scenario(case: Case):
    from cellcc.backends.frontend import DocScenario, resolve

    sc = resolve(ROOT / case.file)
    doc = sc.to_dict()
    if case.duration_s is not None:
        doc["duration_s"] = case.duration_s
    return DocScenario(doc, sc.source)


def _row(case: Case) -> str:
    from cellcc.backends.frontend import run_ns3
    from cellcc.backends.ns3.lte import as_lena
    from cellcc.runner import run_one
    from cellcc.scenario import Scenario

    sc = _scenario(case)
    # The engine under the LENA profile, as the ns-3 backend runs the cell (like for like).
    engine_sc = Scenario(json.dumps(as_lena(sc.to_dict())[0]), sc.source)
    engine = [_timed(lambda: run_one(engine_sc, sc.seed)) for _ in range(ENGINE_REPEATS)]
    e_wall = statistics.median(t[0] for t in engine)
    e_cpu = statistics.median(t[1] for t in engine)
    n_wall, n_own, n_child = _timed(lambda: run_ns3(sc, sc.seed))
    n_cpu = n_own + n_child
    ratio, cpu_ratio = n_wall / e_wall, n_cpu / e_cpu
    goal = "yes" if min(ratio, cpu_ratio) >= case.goal_x else "**no**"
    print(f"{case.label}: engine {e_wall:.3f} s, ns-3 {n_wall:.2f} s: {ratio:.0f}x wall, {cpu_ratio:.0f}x CPU")
    return (
        f"| {case.label} | {e_wall:.3f} | {n_wall:.2f} | {ratio:.0f}x | {e_cpu:.3f} | {n_cpu:.2f} | "
        f"{cpu_ratio:.0f}x | {case.goal_x:.0f}x | {goal} |"
    )


def _unavailable() -> str | None:
    """Why ns-3 cannot run here (one line), or None; compiles and caches the driver if needed."""
    from cellcc.backends.ns3.build import DriverUnavailable, driver_binary

    try:
        driver_binary()
    except DriverUnavailable as e:
        return str(e).splitlines()[0]
    return None


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "BENCHMARKS.md")
    why = _unavailable()
    if why is not None:
        print(f"bench_ns3: skipped, ns-3 backend unavailable: {why}")
        return
    rows = [_row(case) for case in CASES]
    body = (
        f"{SECTION}\n\nWritten by `make bench` (`scripts/bench_ns3.py`): the same scenario on the engine and on "
        "ns-3 3.44 (`--backend ns3`, LENA for the cell), alternating in one run; each side's time is its whole "
        f"run from the Python API (engine: median of {ENGINE_REPEATS}; ns-3: one run, the driver already "
        "compiled; an LTE run also simulates LENA's 0.5 s attach warm-up before the scenario starts, a Wi-Fi run "
        "the stations' 1 s association). "
        "CPU is user + system time (ns-3's driver process included), which a busy machine does not "
        "inflate. Goals: ns-3 / engine at least 30x on wired paths, 100x on the LTE cell (issue 9) and on the "
        "Wi-Fi cell (issue 31).\n\n"
        "| scenario | engine wall s | ns-3 wall s | wall ratio | engine CPU s | ns-3 CPU s | CPU ratio | goal | "
        "met |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n" + "\n".join(rows) + "\n"
    )
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.resolve().parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(replace_section(text, SECTION, body))
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
