"""Start-up time of the CLI, appended to BENCHMARKS.md by `make bench` (issues 13 and 36: under 0.3 s).

Runs each command REPEATS times in a fresh process and reports the median wall time, the
fastest, and the median CPU time (user + system, from ``wait4``), beside a bare
``python -c pass`` for scale. The machine is shared and noisy: waiting for a core inflates
wall time, not CPU time, so on a busy machine the CPU column is the figure to read. Usage::

    .venv/bin/python scripts/bench_startup.py [BENCHMARKS.md]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Runs per command.
REPEATS = 15
#: The goal of issues 13 and 36 for each command, seconds.
GOAL_S = 0.3
#: Where `run --out` writes (replaced by a temporary folder when timed).
OUT_DIR = "DIR"
#: Commands timed (arguments of `cellcc`): `run bottleneck` is a whole small run (20 s simulated at
#: 20 Mbit/s, a few ms of simulation), printed; with --out also written as Parquet (issue 36).
COMMANDS = (
    ["--version"],
    ["validate", "bottleneck"],
    ["ccas"],
    ["run", "bottleneck"],
    ["run", "bottleneck", "--out", OUT_DIR],
)
SECTION = "## CLI start-up"


def _time(argv: list[str]) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each of REPEATS runs."""
    wall, cpu = [], []
    for _ in range(REPEATS):
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall.append(time.perf_counter() - started)
        cpu.append(usage.ru_utime + usage.ru_stime)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(argv)} failed")
    return wall, cpu


def _rows(scratch: str) -> list[str]:
    cellcc = str(Path(sys.executable).parent / "cellcc")
    rows = []
    for label, argv in [("python -c pass (baseline)", [sys.executable, "-c", "pass"])] + [
        (f"cellcc {' '.join(args)}", [cellcc, *(f"{scratch}/run" if a == OUT_DIR else a for a in args)])
        for args in COMMANDS
    ]:
        wall, cpu = _time(argv)
        median, cpu_median = statistics.median(wall), statistics.median(cpu)
        goal = "" if "baseline" in label else ("yes" if min(median, cpu_median) < GOAL_S else "**no**")
        rows.append(f"| `{label}` | {median:.3f} | {min(wall):.3f} | {cpu_median:.3f} | {goal} |")
        print(f"{label}: wall median {median:.3f} s (fastest {min(wall):.3f} s), CPU median {cpu_median:.3f} s")
    return rows


def replace_section(text: str, section: str, body: str) -> str:
    """`text` with the section headed `section` (up to the next `## ` heading) replaced by `body`,
    or `body` appended if the section is absent."""
    head, sep, rest = text.partition(f"\n{section}\n")
    tail = ""
    if sep:
        _, nxt, after = rest.partition("\n## ")
        tail = f"\n## {after}" if nxt else ""
    return head.rstrip("\n") + "\n\n" + body.rstrip("\n") + "\n" + tail


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "BENCHMARKS.md")
    with tempfile.TemporaryDirectory() as scratch:
        _write(path, scratch)


def _write(path: Path, scratch: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    body = (
        f"{SECTION}\n\nWritten by `make bench` (`scripts/bench_startup.py`): wall time of a fresh process, "
        f"median and fastest of {REPEATS}, and median CPU time (user + system), which waiting for a core does not "
        f"inflate (the shared caches' other tenants still do). Goal (issues 13 and 36): under {GOAL_S} s.\n\n"
        "| command | wall median s | wall fastest s | CPU median s | under goal |\n|---|---:|---:|---:|---|\n"
        + "\n".join(_rows(scratch))
        + "\n"
    )
    text = replace_section(text, SECTION, body)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.resolve().parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
