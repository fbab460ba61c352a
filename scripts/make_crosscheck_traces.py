"""Regenerate the crosscheck traces of issue 12 (docs/crosscheck.md): paths the engine was
never tuned on, for the engine-vs-kernel comparison.

- ``walk-2-40mbps.trace``: a bounded random walk of the capacity between 2 and 40 Mbit/s
  (mean 21, up to +-4 Mbit/s per 100 ms step, weak pull to the mean), 20 s, seed 12.
- ``step-24-6mbps.trace``: 24 Mbit/s for 10 s, then 6 Mbit/s for 10 s (one capacity step).
- ``bursty-poisson.trace``: several opportunities in one millisecond, as in the LTE traces: each
  millisecond a Poisson number of them, the mean redrawn every 200 ms from 0.3 / 1 / 2 / 3.5 per
  ms (3.6-42 Mbit/s, 20.6 on average), 30 s, seed 7; ``one-per-ms.trace`` is its ACK path (12 Mbit/s).
- ``outage-15mbps.trace``: 15 Mbit/s with four outages of 300, 150, 600 and 200 ms (handover-like
  gaps, 20 s): the 600 ms one outlasts the RTO, so it tests what follows a timeout.
- ``gaps-30mbps.trace``: ten times 30 Mbit/s for 1.88 s and then a gap of 120 ms (250 ms in the
  1st, 4th, 7th and 10th), 20.5 s: gaps longer than the loss probe's timeout, shorter than the RTO.
- ``walk-5-60mbps.trace``: a second random walk, faster and wider (5-60 Mbit/s, mean 30, up to
  +-6 Mbit/s per 100 ms step), 20 s, seed 99.

Run from the repo root: ``.venv/bin/python scripts/make_crosscheck_traces.py``.
The test suite checks that the committed files equal this script's output.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cellcc.traces import RandomWalk, mahimahi_lines, step_lines, write_lines

TRACE_DIR = Path(__file__).resolve().parent.parent / "docs" / "crosscheck" / "traces"

#: The random walk: 2-40 Mbit/s, 100 ms steps, 20 s (the crosscheck's run length, so it does not loop).
WALK = RandomWalk(
    mean_mbps=21.0, low_mbps=2.0, high_mbps=40.0, step_mbps=4.0, theta=0.05, step_ms=100, duration_ms=20_000, seed=12
)
#: The capacity step: (rate Mbit/s, how long ms) in turn.
STEP_MBPS = (24.0, 6.0)
STEP_HOLD_MS = 10_000

#: The bursty trace: opportunities per ms ~ Poisson(mean), the mean redrawn every 200 ms.
BURSTY_MEANS_PER_MS = (0.3, 1.0, 2.0, 3.5)
BURSTY_FIRST_MEAN_PER_MS = 2.0
BURSTY_HOLD_MS = 200
BURSTY_DURATION_MS = 30_000
BURSTY_SEED = 7

#: The outage trace: (rate Mbit/s, how long ms) in turn, in 50 ms steps.
OUTAGE_PLAN = ((15, 3000), (0, 300), (15, 4000), (0, 150), (15, 3500), (0, 600), (15, 4000), (0, 200), (15, 4250))
OUTAGE_STEP_MS = 50

#: The gaps trace: ten times `GAPS_MBPS` for `GAPS_ON_MS`, then a gap (the long one in every
#: `GAPS_LONG_EVERY`-th period from the first), in 10 ms steps.
GAPS_PERIODS = 10
GAPS_LONG_EVERY = 3
GAPS_MBPS = 30
GAPS_ON_MS, GAPS_SHORT_MS, GAPS_LONG_MS = 1880, 120, 250
GAPS_STEP_MS = 10

#: The second random walk: 5-60 Mbit/s, 100 ms steps, 20 s.
WALK2 = RandomWalk(
    mean_mbps=30.0, low_mbps=5.0, high_mbps=60.0, step_mbps=6.0, theta=0.05, step_ms=100, duration_ms=20_000, seed=99
)

WALK_PATH = TRACE_DIR / "walk-2-40mbps.trace"
STEP_PATH = TRACE_DIR / "step-24-6mbps.trace"
BURSTY_PATH = TRACE_DIR / "bursty-poisson.trace"
ONE_PER_MS_PATH = TRACE_DIR / "one-per-ms.trace"
OUTAGE_PATH = TRACE_DIR / "outage-15mbps.trace"
WALK2_PATH = TRACE_DIR / "walk-5-60mbps.trace"
GAPS_PATH = TRACE_DIR / "gaps-30mbps.trace"


def walk_lines() -> list[int]:
    """Delivery opportunities of the random-walk trace."""
    return list(mahimahi_lines(WALK))


def step_trace_lines() -> list[int]:
    """Delivery opportunities of the capacity-step trace."""
    return list(step_lines(list(STEP_MBPS), STEP_HOLD_MS))


def bursty_lines() -> list[int]:
    """Delivery opportunities of the bursty trace (numpy's PCG64 stream, seeded)."""
    rng = np.random.default_rng(BURSTY_SEED)
    mean = BURSTY_FIRST_MEAN_PER_MS
    lines: list[int] = []
    for ms in range(1, BURSTY_DURATION_MS + 1):
        if ms % BURSTY_HOLD_MS == 0:
            mean = float(rng.choice(BURSTY_MEANS_PER_MS))
        lines += [ms] * int(rng.poisson(mean))
    return lines


def one_per_ms_lines() -> list[int]:
    """One opportunity every millisecond (the bursty path's ACK direction)."""
    return list(range(1, BURSTY_DURATION_MS + 1))


def plan_lines(plan: list[tuple[float, int]], step_ms: int) -> list[int]:
    """Delivery opportunities of (rate Mbit/s, how long ms) held in turn, in `step_ms` steps."""
    rates = [float(rate) for rate, hold_ms in plan for _ in range(hold_ms // step_ms)]
    return list(step_lines(rates, step_ms))


def outage_lines() -> list[int]:
    """Delivery opportunities of the outage trace."""
    return plan_lines(list(OUTAGE_PLAN), OUTAGE_STEP_MS)


def gaps_lines() -> list[int]:
    """Delivery opportunities of the gaps trace."""
    plan: list[tuple[float, int]] = []
    for k in range(GAPS_PERIODS):
        gap_ms = GAPS_LONG_MS if k % GAPS_LONG_EVERY == 0 else GAPS_SHORT_MS
        plan += [(GAPS_MBPS, GAPS_ON_MS), (0, gap_ms)]
    return plan_lines(plan, GAPS_STEP_MS)


def walk2_lines() -> list[int]:
    """Delivery opportunities of the second random walk."""
    return list(mahimahi_lines(WALK2))


TRACES = (
    (WALK_PATH, walk_lines),
    (STEP_PATH, step_trace_lines),
    (BURSTY_PATH, bursty_lines),
    (ONE_PER_MS_PATH, one_per_ms_lines),
    (OUTAGE_PATH, outage_lines),
    (WALK2_PATH, walk2_lines),
    (GAPS_PATH, gaps_lines),
)

if __name__ == "__main__":
    TRACE_DIR.mkdir(parents=True, exist_ok=True)
    for path, make in TRACES:
        lines = make()
        count = write_lines(iter(lines), path)
        print(f"wrote {path} ({count} delivery opportunities)")
